/**
 * @module Combines the sources into the service database: locations, routing facts and proxy flags
 * are overlaid in one search tree, then each distinct combination is written once.
 *
 * The overlay never materialises address ranges: a location source inserts its networks, and the
 * routing and proxy sources rewrite the leaves under theirs (`SearchTree.update`), so a network
 * ends up split exactly where any source draws a boundary.
 */
import { LANGUAGES } from '../src/geo/languages.ts';
import {
  DATABASE_TYPE,
  SCHEMA_VERSION,
  type StoredLocation,
  type StoredMetadata,
  type StoredNames,
  type StoredNetwork,
  type StoredRecord,
  type StoredSource,
} from '../src/geo/schema.ts';
import { DataSectionWriter, MmdbPointer, type MmdbValue, mmdbType } from './mmdb/data-section.ts';
import { SearchTree } from './mmdb/search-tree.ts';
import { assembleMmdb, chooseRecordSize } from './mmdb/writer.ts';
import type { LocationSource, NetworkSource, ProxySource } from './sources/source.ts';

/** The sources of one build, applied in order (later sources of a kind win where they overlap). */
export interface CompileInput {
  readonly locations: readonly LocationSource[];
  readonly networks: readonly NetworkSource[];
  readonly proxies: readonly ProxySource[];
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
  /** Networks flagged as anonymising. */
  proxyNetworks: number;
  /** Distinct (country, region name) pairs, and how many of them carry an ISO 3166-2 code. */
  regions: { named: number; coded: number };
  /** Distinct names arrays of cities and regions (languages beyond English), and the countries and continents named. */
  names: { cities: number; regions: number; countries: number; continents: number };
  /** Search-tree nodes and record size of the output. */
  nodes: number;
  recordSize: number;
}

const NONE = -1;

class Interner<T extends object> {
  readonly values: T[] = [];
  private readonly ids = new Map<string, number>();
  /**
   * Sources hand out one object per distinct value they read: known objects skip the serialisation.
   * Weak, so that the many equal copies a source makes (one per record of its own) are not kept alive.
   */
  private readonly objects = new WeakMap<T, number>();
  id(value: T): number {
    let id = this.objects.get(value);
    if (id !== undefined) return id;
    const key = JSON.stringify(value);
    id = this.ids.get(key);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(key, id);
    }
    this.objects.set(value, id);
    return id;
  }
}

/** Combinations of (location, network, proxy) ids, each with a stable id used as a tree leaf. */
class Combinations {
  readonly location: number[] = [];
  readonly network: number[] = [];
  readonly proxy: boolean[] = [];
  private readonly ids = new Map<string, number>();
  id(location: number, network: number, proxy: boolean): number {
    const key = `${location},${network},${proxy ? 1 : 0}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.location.length;
      this.location.push(location);
      this.network.push(network);
      this.proxy.push(proxy);
      this.ids.set(key, id);
    }
    return id;
  }
}

/**
 * Builds the compiled database.
 *
 * @param log receives one line per stage, with timings.
 * @returns the MMDB file's bytes and its counts.
 */
export function compile(input: CompileInput, log: (line: string) => void = () => {}): { bytes: Uint8Array; counts: CompileCounts } {
  const started = Date.now();
  const stage = (what: string) =>
    log(`${what} (${((Date.now() - started) / 1000).toFixed(1)} s, ${Math.round(process.memoryUsage.rss() / 1024 / 1024)} MiB resident)`);
  const tree = new SearchTree();
  const locations = new Interner<StoredLocation>();
  const networks = new Interner<StoredNetwork>();
  const combos = new Combinations();
  const countryNames = new Map<string, StoredNames>();
  const continentNames = new Map<string, StoredNames>();

  for (const source of input.locations) {
    let count = 0;
    source.forEach((network, location, places) => {
      tree.insert(network, combos.id(locations.id(location), NONE, false));
      if (places.country && !countryNames.has(places.country.code)) countryNames.set(places.country.code, places.country.names);
      if (places.continent && !continentNames.has(places.continent.code)) continentNames.set(places.continent.code, places.continent.names);
      count++;
    });
    stage(`${source.info.name}: ${count} networks`);
  }
  for (const source of input.networks) {
    let count = 0;
    source.forEach((network, facts) => {
      const id = networks.id(facts);
      tree.update(network, (old) =>
        old === undefined ? combos.id(NONE, id, false) : combos.id(combos.location[old] as number, id, combos.proxy[old] as boolean),
      );
      count++;
    });
    stage(`${source.info.name}: ${count} networks`);
  }
  let proxyNetworks = 0;
  for (const source of input.proxies) {
    source.forEach((network) => {
      tree.update(network, (old) =>
        old === undefined ? combos.id(NONE, NONE, true) : combos.id(combos.location[old] as number, combos.network[old] as number, true),
      );
      proxyNetworks++;
    });
    stage(`${source.info.name}: ${proxyNetworks} networks`);
  }

  const final = tree.finalize({ aliasIpv4: true, rootDepth: 0 });
  stage(`search tree: ${final.nodeCount} nodes`);

  const data = new DataSectionWriter();
  const offsets = new Map<number, number>();
  const regionPairs = new Map<string, boolean>();
  const leafIds = [...final.leafIds()].sort((a, b) => a - b);
  // Locations and routing facts first, each once: every record then holds pointers only, so a reader
  // finds a record's parts without walking over a map written in its middle.
  const used = { locations: new Set<number>(), networks: new Set<number>() };
  for (const id of leafIds) {
    used.locations.add(combos.location[id] as number);
    used.networks.add(combos.network[id] as number);
  }
  // Every map key comes first of all, so that the pointers to them are the shortest (2 bytes) and a
  // reader finds them all at the start (src/geo/database.ts recognises keys by their offset).
  for (const key of STORED_KEYS) data.write(key);
  // Then the names arrays, each once, so that a location holds a pointer to its arrays and is told
  // apart from the others by that pointer rather than by the arrays' contents.
  const arrays = new Map<StoredNames, MmdbPointer>();
  const pointerTo = (names: StoredNames, kind: Set<number>): MmdbPointer => {
    let pointer = arrays.get(names);
    if (pointer === undefined) {
      pointer = new MmdbPointer(data.write(names));
      arrays.set(names, pointer);
    }
    kind.add(pointer.target);
    return pointer;
  };
  const nameArrays = { cities: new Set<number>(), regions: new Set<number>() };
  const locationOffsets = new Map<number, number>();
  const networkOffsets = new Map<number, number>();
  for (const index of [...used.locations].sort((a, b) => a - b)) {
    const location = locations.values[index];
    if (location === undefined) continue;
    const stored = toStored(location);
    if (location.region_names) stored.region_names = pointerTo(location.region_names, nameArrays.regions);
    if (location.city_names) stored.city_names = pointerTo(location.city_names, nameArrays.cities);
    locationOffsets.set(index, data.write(stored));
    if (location.region) regionPairs.set(`${location.country_code}|${location.region}`, Boolean(location.region_code));
  }
  for (const index of [...used.networks].sort((a, b) => a - b)) {
    const network = networks.values[index];
    if (network !== undefined) networkOffsets.set(index, data.write(network as MmdbValue));
  }
  for (const id of leafIds) {
    const locationOffset = locationOffsets.get(combos.location[id] as number);
    const networkOffset = networkOffsets.get(combos.network[id] as number);
    // The stored shape of StoredRecord, its parts as pointers to their one copy.
    const record: { [K in keyof StoredRecord]?: MmdbValue } = {};
    if (locationOffset !== undefined) record.location = new MmdbPointer(locationOffset);
    if (networkOffset !== undefined) record.network = new MmdbPointer(networkOffset);
    if (combos.proxy[id]) record.proxy = true;
    offsets.set(id, data.write(record as MmdbValue));
  }
  stage(`data section: ${offsets.size} records, ${data.size} bytes`);

  let leaves = 0;
  final.forEachNode((left, right) => {
    if (left.kind === 'leaf') leaves++;
    if (right.kind === 'leaf') leaves++;
  });
  const sorted = (names: Map<string, StoredNames>) => Object.fromEntries([...names].sort(([a], [b]) => (a < b ? -1 : 1)));
  const extra: StoredMetadata = {
    languages: LANGUAGES,
    country_names: sorted(countryNames),
    continent_names: sorted(continentNames),
    sources: [...input.locations, ...input.networks, ...input.proxies].map(
      ({ info }): StoredSource => ({
        name: info.name,
        provides: info.provides,
        version: info.version,
        built_at: info.builtAt,
        licence: info.licence,
        attribution: info.attribution,
      }),
    ),
    counts: { networks: leaves, records: offsets.size },
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
  stage(`assembled: ${bytes.length} bytes`);
  return {
    bytes,
    counts: {
      networks: leaves,
      records: offsets.size,
      locations: locations.values.length,
      asns: networks.values.length,
      proxyNetworks,
      regions: { named: regionPairs.size, coded: [...regionPairs.values()].filter(Boolean).length },
      names: { cities: nameArrays.cities.size, regions: nameArrays.regions.size, countries: countryNames.size, continents: continentNames.size },
      nodes: final.nodeCount,
      recordSize,
    },
  };
}

/** The keys of every map of the compact schema, written first of the data section. */
const STORED_KEYS = [
  'location',
  'network',
  'proxy',
  'country_code',
  'region',
  'region_code',
  'city',
  'postal_code',
  'latitude',
  'longitude',
  'time_zone',
  'region_names',
  'city_names',
  'asn',
  'organization',
  'continent_code',
] as const satisfies readonly (keyof StoredRecord | keyof StoredLocation | keyof StoredNetwork)[];

/**
 * Coordinates are int32 (1e-4 degree); everything else keeps its inferred type. The English keys come
 * first, in the order of schema 1, then the names arrays.
 */
function toStored(location: StoredLocation): Record<string, MmdbValue> {
  const value: Record<string, MmdbValue> = {};
  for (const [key, v] of Object.entries(location)) {
    value[key] = key === 'latitude' || key === 'longitude' ? mmdbType.int32(v as number) : (v as MmdbValue);
  }
  return value;
}
