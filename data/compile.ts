/**
 * @module Combines the sources into the service database: locations, routing facts and privacy and
 * hosting flags are overlaid in one search tree, then each distinct combination is written once.
 *
 * The overlay never materialises address ranges: a location source inserts its networks, the
 * operator's corrections replace the locations under their prefixes (`corrections/`), and the routing
 * and flag sources rewrite the leaves under theirs (`SearchTree.update`), so a network ends up split
 * exactly where any source or correction draws a boundary. Flags from several sources add up (a union);
 * a hosting provider's name is the most specific network's (docs/api.md, "Privacy and hosting flags").
 */
import { LANGUAGES } from '../src/geo/languages.ts';
import {
  DATABASE_TYPE,
  FLAG_BIT,
  FLAGS,
  SCHEMA_VERSION,
  type StoredCorrections,
  type StoredFlag,
  type StoredLocation,
  type StoredMetadata,
  type StoredNames,
  type StoredNetwork,
  type StoredShard,
  type StoredSource,
} from '../src/geo/schema.ts';
import { formatPosition, type ShardRange } from '../src/geo/shard-ranges.ts';
import { Combinations, Interner, NONE, type Parts, type RecordFlags } from './combinations.ts';
import { applyCorrections, type CorrectionsCounts, type CorrectionsFile, describeCorrections } from './corrections/corrections.ts';
import { SourcePlaces } from './corrections/places.ts';
import { writeDataSection } from './data-layout.ts';
import { leafParts } from './leaf-parts.ts';
import type { MmdbValue } from './mmdb/data-section.ts';
import { type FinalTree, type Network, SearchTree } from './mmdb/search-tree.ts';
import { assembleMmdb, chooseRecordSize } from './mmdb/writer.ts';
import type { FlagSource, LocationSource, NetworkFlag, NetworkSource } from './sources/source.ts';
import { positionBytes, splitRanges } from './split.ts';

/**
 * The sources of one build, applied in order: later location and network sources win where they
 * overlap; flags add up, and of two equally specific networks naming a hosting provider the earlier
 * flag source's name is kept.
 */
export interface CompileInput {
  readonly locations: readonly LocationSource[];
  readonly networks: readonly NetworkSource[];
  readonly flags: readonly FlagSource[];
  /** The operator's corrections, in precedence order (a later file wins for the same prefix); none by default. */
  readonly corrections?: readonly CorrectionsFile[];
  /** Seconds since the Unix epoch, written as the database's build_epoch. */
  readonly buildEpoch: number;
}

/** Counts reported by the build and written to the manifest. */
export interface CompileCounts {
  /** Networks (tree leaves) holding data in the output. */
  networks: number;
  /** Distinct records written to the data section. */
  records: number;
  /** Distinct locations and routing facts read from the sources. */
  locations: number;
  asns: number;
  /** Networks that the flag sources list with each flag, summed over the sources (a network listed twice counts twice). */
  flagNetworks: Record<NetworkFlag, number>;
  /** Distinct (country, region name) pairs, and how many of them carry an ISO 3166-2 code. */
  regions: { named: number; coded: number };
  /** Distinct names arrays of cities and regions (languages beyond English), and the countries and continents named. */
  names: { cities: number; regions: number; countries: number; continents: number };
  /** Search-tree nodes and record size of the output. */
  nodes: number;
  recordSize: number;
  /** What the corrections did, when the build had any. */
  corrections?: CorrectionsCounts;
}

/** A compiled database file: its bytes and its counts. */
interface CompiledFile {
  readonly bytes: Uint8Array;
  readonly counts: CompileCounts;
}

/** One shard of a sharded build: its file and the range of positions it answers. */
interface CompiledShard extends CompiledFile {
  readonly range: ShardRange;
}

/** A sharded build: its shards in address order, and the counts of the database they hold together. */
interface CompiledShards {
  readonly shards: readonly CompiledShard[];
  /**
   * As a whole file's, except: `networks` and `nodes` are the shards' sums (a network that a range
   * boundary cuts counts once per piece), `recordSize` the largest shard's.
   */
  readonly counts: CompileCounts;
}

/**
 * Builds the compiled database as one file.
 *
 * @internal Exported for the tests that compile small databases in one call; the build splits the
 *   work ({@link overlay}) to write one file or shards from the same overlay.
 * @param log receives one line per stage, with timings.
 * @returns the MMDB file's bytes and its counts.
 */
export function compile(input: CompileInput, log: (line: string) => void = () => {}): CompiledFile {
  return overlay(input, log).whole();
}

/**
 * Reads every source into one search tree (the work all outputs share), from which {@link Overlay.whole}
 * writes the database as one file and {@link Overlay.split} as shards.
 *
 * @param log receives one line per stage, with timings.
 */
export function overlay(input: CompileInput, log: (line: string) => void = () => {}): Overlay {
  const started = Date.now();
  const stage = (what: string) =>
    log(`${what} (${((Date.now() - started) / 1000).toFixed(1)} s, ${Math.round(process.memoryUsage.rss() / 1024 / 1024)} MiB resident)`);
  const tree = new SearchTree();
  const locations = new Interner<StoredLocation>();
  const networks = new Interner<StoredNetwork>();
  const flagSets = new Interner<RecordFlags>();
  const combos = new Combinations();
  const places: Places = { countryNames: new Map(), continentNames: new Map(), europeanUnion: new Set() };
  /** Networks per location id: how often the source gives each place, which the corrections go by. */
  const networksOf: number[] = [];
  /** Networks per location id and accuracy radius: the radius a corrected place takes from the source. */
  const radiiOf: Map<number, number>[] = [];

  for (const source of input.locations) {
    let count = 0;
    source.forEach((network, location, named, radius) => {
      const id = locations.id(location);
      networksOf[id] = (networksOf[id] ?? 0) + 1;
      const radii = radiiOf[id] ?? new Map<number, number>();
      radii.set(radius ?? 0, (radii.get(radius ?? 0) ?? 0) + 1);
      radiiOf[id] = radii;
      tree.insert(network, combos.id(id, radius ?? 0, NONE, NONE));
      const { country, continent } = named;
      if (country && !places.countryNames.has(country.code)) {
        places.countryNames.set(country.code, country.names);
        if (country.inEuropeanUnion) places.europeanUnion.add(country.code);
      }
      if (continent && !places.continentNames.has(continent.code)) places.continentNames.set(continent.code, continent.names);
      count++;
    });
    stage(`${source.info.name}: ${count} networks`);
  }
  let corrections: CorrectionsCounts | undefined;
  if (input.corrections?.length) {
    const places = new SourcePlaces(locations.values, networksOf, radiiOf);
    const report = applyCorrections(input.corrections, places, (network, location, accuracyRadius) => {
      if (location === undefined) tree.update(network, () => undefined);
      else tree.insert(network, combos.id(locations.id(location), accuracyRadius, NONE, NONE));
    });
    corrections = report.counts;
    for (const note of report.notes) log(`corrections: ${note}`);
    stage(`corrections: ${describeCorrections(corrections)}`);
  }
  for (const source of input.networks) {
    let count = 0;
    source.forEach((network, facts) => {
      const id = networks.id(facts);
      tree.update(network, (old) => (old === undefined ? combos.id(NONE, 0, id, NONE) : combos.with(old, { network: id })));
      count++;
    });
    stage(`${source.info.name}: ${count} networks`);
  }
  const flagNetworks = overlayFlags(input.flags, tree, combos, flagSets, stage);
  return new SourceOverlay(input, tree, { locations, networks, flagSets, combos }, places, flagNetworks, corrections, stage);
}

/** The country and continent names the location sources give, and the countries they place in the EU. */
interface Places {
  readonly countryNames: Map<string, StoredNames>;
  readonly continentNames: Map<string, StoredNames>;
  readonly europeanUnion: Set<string>;
}

/**
 * Overlays the flag sources on `tree` in two passes. First every flag, in any order, since they add up.
 * Then the hosting providers' names, from the least specific network to the most specific, so that the
 * most specific one's name stands; between networks of the same prefix length, the earlier source's
 * is applied last. A name brings the `hosting` flag.
 *
 * @returns the networks listed with each flag, summed over the sources.
 */
function overlayFlags(
  sources: readonly FlagSource[],
  tree: SearchTree,
  combos: Combinations,
  flagSets: Interner<RecordFlags>,
  stage: (what: string) => void,
): Record<NetworkFlag, number> {
  const counts = Object.fromEntries(FLAGS.map((flag) => [flag, 0])) as Record<NetworkFlag, number>;
  const named: { network: Network; provider: string; source: number }[] = [];
  const withFlags = (old: number | undefined, bits: number, provider?: string): number => {
    const oldFlags = old === undefined ? NONE : (combos.flags[old] as number);
    const before = oldFlags === NONE ? undefined : flagSets.values[oldFlags];
    const flags: RecordFlags = { flags: (before?.flags ?? 0) | bits };
    const name = provider ?? before?.hosting_provider;
    if (name) flags.hosting_provider = name;
    const id = flagSets.id(flags);
    return old === undefined ? combos.id(NONE, 0, NONE, id) : combos.with(old, { flags: id });
  };
  sources.forEach((source, index) => {
    let count = 0;
    source.forEach((network, facts) => {
      let bits = facts.flags.reduce((sum, flag) => sum | FLAG_BIT[flag], 0);
      for (const flag of FLAGS) if (bits & FLAG_BIT[flag]) counts[flag]++;
      if (facts.hostingProvider) {
        bits |= FLAG_BIT.hosting;
        named.push({ network, provider: facts.hostingProvider, source: index });
      }
      if (bits !== 0) tree.update(network, (old) => withFlags(old, bits));
      count++;
    });
    stage(`${source.info.name}: ${count} networks`);
  });
  named.sort((a, b) => a.network.prefixLength - b.network.prefixLength || b.source - a.source);
  for (const { network, provider } of named) tree.update(network, (old) => withFlags(old, FLAG_BIT.hosting, provider));
  if (named.length > 0) stage(`hosting providers: ${named.length} networks named`);
  return counts;
}

/** The sources overlaid in one search tree, ready to be written as one file or as shards. */
export interface Overlay {
  /** The database as one file (N = 1); the overlay may still be split afterwards. */
  whole(): CompiledFile;
  /**
   * The database as `count` shards (`count` ≥ 2), each a file of the same schema holding exactly the
   * networks of its range (`src/geo/shard-ranges.ts`), with ranges chosen so the files are about equal in size.
   *
   * @throws SplitError when the data has too few networks for `count` shards.
   */
  split(count: number): CompiledShards;
  /**
   * Visits every network and empty space of the overlay in address order (the IPv4-alias regions
   * skipped) with the country the database places it in: its location's ISO 3166-1 alpha-2 code, ''
   * for none. The ASN object counts where each ASN's addresses are by it (`asn/countries.ts`).
   */
  forEachCountry(visit: (start: Uint8Array, prefixLength: number, country: string) => void): void;
}

class SourceOverlay implements Overlay {
  constructor(
    private readonly input: CompileInput,
    private readonly tree: SearchTree,
    private readonly parts: Parts,
    private readonly places: Places,
    private readonly flagNetworks: Record<NetworkFlag, number>,
    private readonly corrections: CorrectionsCounts | undefined,
    private readonly stage: (what: string) => void,
  ) {}

  whole(): CompiledFile {
    const final = this.tree.finalize({ aliasIpv4: true, rootDepth: 0 });
    this.stage(`search tree: ${final.nodeCount} nodes`);
    return this.write(final);
  }

  split(count: number): CompiledShards {
    // The tree as `whole` (which finalizes it) leaves it: a split after it cuts the same ranges.
    this.tree.settle();
    const ranges = splitRanges(this.tree, leafParts(this.parts), count);
    this.stage(`ranges of ${count} shards, starting at ${ranges.map((r) => formatPosition(r.first)).join(', ')}`);
    const leafIds = new Set<number>();
    const shards = ranges.map((range, index): CompiledShard => {
      const final = this.tree.clip(positionBytes(range.first), positionBytes(range.last)).finalize({ aliasIpv4: true, rootDepth: 0 });
      for (const id of final.leafIds()) leafIds.add(id);
      return { ...this.write(final, { index, count, first: formatPosition(range.first), last: formatPosition(range.last) }), range };
    });
    const counts: CompileCounts = {
      ...this.contentCounts(leafIds),
      networks: shards.reduce((sum, shard) => sum + shard.counts.networks, 0),
      nodes: shards.reduce((sum, shard) => sum + shard.counts.nodes, 0),
      recordSize: Math.max(...shards.map((shard) => shard.counts.recordSize)) as CompileCounts['recordSize'],
    };
    return { shards, counts };
  }

  forEachCountry(visit: (start: Uint8Array, prefixLength: number, country: string) => void): void {
    const { combos, locations } = this.parts;
    this.tree.forEachSlot((id, prefixLength, start) => {
      const location = id === undefined ? NONE : (combos.location[id] as number);
      visit(start, prefixLength, location === NONE ? '' : (locations.values[location]?.country_code ?? ''));
    });
  }

  /** The counts of what the leaves `leafIds` reach (records, regions, names) and of the sources read. */
  private contentCounts(leafIds: ReadonlySet<number>): Omit<CompileCounts, 'networks' | 'nodes' | 'recordSize'> {
    const { combos, locations, networks } = this.parts;
    const { countryNames, continentNames } = this.places;
    const regionPairs = new Map<string, boolean>();
    // Names arrays are told apart by their contents, as the data section writes each distinct one once.
    const names = { cities: new Set<string>(), regions: new Set<string>() };
    for (const index of new Set([...leafIds].map((id) => combos.location[id] as number))) {
      const location = locations.values[index];
      if (location === undefined) continue;
      if (location.region) regionPairs.set(`${location.country_code}|${location.region}`, Boolean(location.region_code));
      if (location.region_names) names.regions.add(JSON.stringify(location.region_names));
      if (location.city_names) names.cities.add(JSON.stringify(location.city_names));
    }
    return {
      records: leafIds.size,
      locations: locations.values.length,
      asns: networks.values.length,
      flagNetworks: this.flagNetworks,
      regions: { named: regionPairs.size, coded: [...regionPairs.values()].filter(Boolean).length },
      names: { cities: names.cities.size, regions: names.regions.size, countries: countryNames.size, continents: continentNames.size },
      ...(this.corrections ? { corrections: this.corrections } : {}),
    };
  }

  /** Writes the data that `final` reaches and assembles the file; `shard` adds its metadata. */
  private write(final: FinalTree, shard?: StoredShard): CompiledFile {
    const { input } = this;
    const reached = final.leafIds();
    const { data, offsets } = writeDataSection(this.parts, reached);
    const what = shard ? `shard ${shard.index} of ${shard.count}: ` : '';
    this.stage(`${what}data section: ${offsets.size} records, ${data.size} bytes`);

    let leaves = 0;
    final.forEachNode((left, right) => {
      if (left.kind === 'leaf') leaves++;
      if (right.kind === 'leaf') leaves++;
    });
    const sorted = (names: Map<string, StoredNames>) => Object.fromEntries([...names].sort(([a], [b]) => (a < b ? -1 : 1)));
    const extra: StoredMetadata = {
      languages: LANGUAGES,
      country_names: sorted(this.places.countryNames),
      continent_names: sorted(this.places.continentNames),
      european_union: [...this.places.europeanUnion].sort(),
      flags: flagsSet(input.flags),
      sources: [...input.locations, ...input.networks, ...input.flags].map(
        (source): StoredSource => ({
          name: source.info.name,
          provides: source.info.provides,
          version: source.info.version,
          built_at: source.info.builtAt,
          licence: source.info.licence,
          attribution: source.info.attribution,
          ...('sets' in source ? { flags: flagsSet([source]) } : {}),
        }),
      ),
      counts: { networks: leaves, records: offsets.size },
      ...(input.corrections?.length
        ? { corrections: input.corrections.map(({ info: { name, sha256, lines, prefixes } }): StoredCorrections => ({ name, sha256, lines, prefixes })) }
        : {}),
      ...(shard ? { shard } : {}),
    };
    const { languages, ...rest } = extra;
    const bytes = assembleMmdb(
      final,
      data,
      {
        ipVersion: 6,
        databaseType: DATABASE_TYPE,
        languages,
        description: { en: `IP geolocation service database, compact schema version ${SCHEMA_VERSION}` },
        buildEpoch: input.buildEpoch,
        extra: rest as unknown as Record<string, MmdbValue>,
      },
      (id) => offsets.get(id) as number,
    );
    const recordSize = chooseRecordSize(final.nodeCount, data.size);
    this.stage(`${what}assembled: ${bytes.length} bytes`);
    return { bytes, counts: { ...this.contentCounts(reached), networks: leaves, nodes: final.nodeCount, recordSize } };
  }
}

/**
 * The flags that `sources` can set, in `FLAGS` order: with a hosting provider's name a source sets
 * `hosting` too, which it then lists itself.
 */
export function flagsSet(sources: readonly FlagSource[]): StoredFlag[] {
  return FLAGS.filter((flag) => sources.some((source) => source.sets.includes(flag)));
}
