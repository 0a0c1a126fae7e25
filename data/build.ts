/**
 * @module `npm run data:build`: reads the sources, compiles the service database and writes it, as one
 * file or as shards by address range (docs/sharding.md), with its manifest into `data/out/`. Nothing is
 * written unless every source reads cleanly and every file fits the isolate budget.
 *
 *     npm run data:build                          default sources; the fewest shards that fit (one file if it fits)
 *     npm run data:build -- --maxmind-city GeoIP2-City.mmdb --maxmind-asn GeoLite2-ASN.mmdb \
 *                           --maxmind-anonymous-ip GeoIP2-Anonymous-IP.mmdb --proxy-list tor-exits.txt
 *     npm run data:build -- --shards 3             three shards, whatever fits
 *     npm run data:build -- --if-missing          only when data/out/ holds no build of this schema
 *     npm run data:build -- --budget-mib 64        files that need at most 64 MiB each once loaded
 *
 * The same sources and shards give the same bytes: the build date is the newest source's, not the clock's.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { budgetFit, DEFAULT_BUDGET_BYTES } from '../src/geo/budget.ts';
import { databaseVersion } from '../src/geo/identity.ts';
import { DATABASE_TYPE, SCHEMA_VERSION } from '../src/geo/schema.ts';
import { FIRST_POSITION, formatPosition, LAST_POSITION, type ShardRange, WHOLE_SPACE } from '../src/geo/shard-ranges.ts';
import { BUDGET_HELP, BUDGET_OPTION, BudgetError, budgetFromOption, checkBudget, mib, switchLine } from './budget.ts';
import { commandLineError, parseCommandLine } from './command-line.ts';
import { type CompileCounts, type Overlay, overlay } from './compile.ts';
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
/** The most shards a build makes: a bulk request may call every shard, and Workers allow a request 32 calls to other Workers. */
const MAX_SHARDS = 32;

/** The `--shards` option as `parseArgs` declares it (`data:build`, `data:update`). */
export const SHARDS_OPTION = { shards: { type: 'string' } } as const;

/** What {@link SHARDS_OPTION} sets, for the usage texts. */
export const SHARDS_HELP = `split the database into N files by address range (1 to ${MAX_SHARDS}), each served by a
                               Worker of its own; without it, the fewest that fit the budget (1 when the whole
                               database fits: one file, ipgeo.mmdb)`;

const USAGE = `usage: npm run data:build -- [--maxmind-city FILE] [--maxmind-asn FILE]
                               [--maxmind-anonymous-ip FILE] [--proxy-list FILE]... [--if-missing] [--out DIR]
                               [--budget-mib N] [--shards N]

Without options the default sources are used: geolite2-city and @ip-location-db/asn.
  --maxmind-city FILE          a GeoIP2/GeoLite2 City or Country database, replacing the default locations
  --maxmind-asn FILE           a GeoLite2/GeoIP2 ASN database, replacing the default ASN ranges
  --maxmind-anonymous-ip FILE  a GeoIP2 Anonymous-IP database: its anonymising networks set isProxy
  --proxy-list FILE            addresses or CIDR networks, one per line, that set isProxy (repeatable)
  --if-missing                 do nothing when ${relative(ROOT, OUT_DIR)} holds a build (any number of shards) in this schema version
  --out DIR                    where the database files and ipgeo.manifest.json go (default ${relative(ROOT, OUT_DIR)})
  --budget-mib N               ${BUDGET_HELP}
  --shards N                   ${SHARDS_HELP}`;

/** Options of one build, as parsed from the command line. */
export interface BuildOptions {
  maxmindCity?: string;
  maxmindAsn?: string;
  maxmindAnonymousIp?: string;
  proxyLists: string[];
  /** The default location package's folder, when not the installed one (`data:update` fetches newer ones). */
  locationPackageDir?: string;
  /** The default ASN package's folder, when not the installed one. */
  asnPackageDir?: string;
  /** The isolate budget each file must fit once loaded, in bytes (default {@link DEFAULT_BUDGET_BYTES}). */
  budgetBytes?: number;
  /** Shards to make, 1 to {@link MAX_SHARDS}; without it, the fewest whose files all fit the budget. */
  shards?: number;
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
  const locations = [options.maxmindCity ? maxmindCity(options.maxmindCity) : geolite2City(options.locationPackageDir)];
  const networks = [options.maxmindAsn ? maxmindAsn(options.maxmindAsn) : ipLocationDbAsn(options.asnPackageDir)];
  const proxies = [
    ...(options.maxmindAnonymousIp ? [maxmindAnonymousIp(options.maxmindAnonymousIp)] : []),
    ...options.proxyLists.map((path) => proxyList(path)),
  ];
  const sources = [...locations, ...networks, ...proxies].map((s) => s.info);
  const buildEpoch = newestSourceEpoch(sources);
  const compiled = overlay({ locations, networks, proxies, buildEpoch }, (line) => log(`  ${line}`));
  const { files, counts } = shardsFitting(compiled, options.shards, budgetBytes, outDir, log);

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
    isProxyConfigured: proxies.length > 0,
    sources: sources.map((s) => ({ ...s, files: s.files.map((f) => ({ ...f, path: relative(ROOT, f.path) })) })),
  };
  writeBuild(outDir, files, manifest);
  return manifest;
}

/** A file of a build, ready to write: its path, bytes and range of positions. */
interface BuildOutput {
  readonly file: string;
  readonly bytes: Uint8Array;
  readonly range: ShardRange;
}

/**
 * The files of `shards` shards (the fewest that fit `budgetBytes` when undefined), each checked
 * against the budget, and the counts of the database.
 *
 * @throws BudgetError when a file would not fit: with `shards` given, naming how many would; without,
 *   when the budget leaves no room for data or even {@link MAX_SHARDS} shards would not fit.
 */
function shardsFitting(
  compiled: Overlay,
  shards: number | undefined,
  budgetBytes: number,
  outDir: string,
  log: (line: string) => void,
): { files: BuildOutput[]; counts: CompileCounts } {
  const attempt = (count: number) => {
    if (count === 1) {
      const { bytes, counts } = compiled.whole();
      return { files: [{ file: join(outDir, 'ipgeo.mmdb'), bytes, range: WHOLE_SPACE[0] as ShardRange }], counts };
    }
    const split = compiled.split(count);
    return { files: split.shards.map(({ bytes, range }, k) => ({ file: join(outDir, shardFileName(k, count)), bytes, range })), counts: split.counts };
  };
  const room = budgetFit(0, budgetBytes).largestFileBytes;
  let count = shards ?? 1;
  for (;;) {
    const result = attempt(count);
    const largest = result.files.reduce((a, b) => (b.bytes.length > a.bytes.length ? b : a));
    if (budgetFit(largest.bytes.length, budgetBytes).fits) return result;
    const total = result.files.reduce((sum, f) => sum + f.bytes.length, 0);
    // Shards repeat some data (a location used on both sides of a boundary): at least the total over the room, and one more than tried.
    const next = room > 0 ? Math.max(count + 1, Math.ceil(total / room)) : Number.POSITIVE_INFINITY;
    const remedy =
      room === 0
        ? `No number of shards helps: an isolate needs ${mib(budgetFit(0, budgetBytes).neededBytes)} before it holds any data. Give a larger budget with --budget-mib.`
        : next > MAX_SHARDS
          ? `Even ${MAX_SHARDS} shards, the most a build makes, would not fit: build from smaller sources, or give a larger budget with --budget-mib.`
          : `Build more shards: --shards ${next} or more, or leave --shards out to get the fewest that fit.`;
    if (shards !== undefined || room === 0 || next > MAX_SHARDS) checkBudget(relative(ROOT, largest.file), largest.bytes.length, budgetBytes, remedy);
    log(
      `  ${count === 1 ? 'The whole database' : `${count} shards: the largest`} (${mib(largest.bytes.length)}) would not fit the budget; trying ${next} shards.`,
    );
    count = next;
  }
}

/** The file name of shard `index` of `count` (`ipgeo.shard-0-of-3.mmdb`). */
function shardFileName(index: number, count: number): string {
  return `ipgeo.shard-${index}-of-${count}.mmdb`;
}

/** The database files a build of any number of shards writes into its folder. */
const BUILD_FILE = /^ipgeo(\.shard-\d+-of-\d+)?\.mmdb$/;

/**
 * Writes the files and the manifest of a build into `outDir`: every file under a temporary name
 * first, then each renamed into place, the manifest last (a reader that goes by the manifest finds
 * the files it names, checked by their SHA-256), then removes the files of another build.
 */
function writeBuild(outDir: string, files: readonly BuildOutput[], manifest: Manifest): void {
  mkdirSync(outDir, { recursive: true });
  const manifestFile = join(outDir, 'ipgeo.manifest.json');
  const temporary = (file: string) => `${file}.tmp`;
  try {
    for (const f of files) writeFileSync(temporary(f.file), f.bytes);
    writeFileSync(temporary(manifestFile), `${JSON.stringify(manifest, null, 2)}\n`);
    for (const f of files) renameSync(temporary(f.file), f.file);
    renameSync(temporary(manifestFile), manifestFile);
  } finally {
    for (const file of [...files.map((f) => f.file), manifestFile]) rmSync(temporary(file), { force: true });
  }
  const kept = new Set(files.map((f) => basename(f.file)));
  for (const name of readdirSync(outDir)) if (BUILD_FILE.test(name) && !kept.has(name)) rmSync(join(outDir, name), { force: true });
}

/**
 * The digest a sharded build's version is made of: the SHA-256 of its files' SHA-256s, as lower-case
 * hex, each followed by a newline, in shard order (what `sha256sum` of the files, cut to the digests,
 * piped into `sha256sum` again prints).
 */
function shardSetDigest(sha256s: readonly string[]): string {
  return createHash('sha256')
    .update(sha256s.map((sha256) => `${sha256}\n`).join(''))
    .digest('hex');
}

/**
 * The build date that a build of `sources` writes (its `build_epoch`, seconds): the newest source's
 * `builtAt`, never the clock, so that the same sources give the same bytes and the same version.
 */
function newestSourceEpoch(sources: readonly Pick<SourceInfo, 'builtAt'>[]): number {
  return Math.max(0, ...sources.map((source) => Math.floor(Date.parse(source.builtAt) / 1000)).filter(Number.isFinite));
}

/** One file of a build, as its manifest lists it. */
export interface ManifestShard {
  /** Its place in address order, 0 to N-1. */
  index: number;
  /** Its file name, in the manifest's folder: `ipgeo.mmdb` for N = 1, else `ipgeo.shard-<index>-of-<N>.mmdb`. */
  file: string;
  /** The first and last position it answers (RFC 5952 text, `src/geo/shard-ranges.ts`): `::` and `ffff:…:ffff` for N = 1. */
  first: string;
  last: string;
  bytes: number;
  /** SHA-256 of the file, lower-case hex. */
  sha256: string;
}

/**
 * The files a manifest names, in address order: its `shards`, or for a manifest written before shards
 * its one `output`, which covers everything.
 */
export function manifestShards(manifest: Pick<Partial<Manifest>, 'shards' | 'output'>): ManifestShard[] {
  if (manifest.shards) return manifest.shards;
  if (!manifest.output) return [];
  const { bytes, sha256 } = manifest.output;
  return [{ index: 0, file: basename(manifest.output.file), first: formatPosition(FIRST_POSITION), last: formatPosition(LAST_POSITION), bytes, sha256 }];
}

/** The manifest written beside the database's files (`data/out/ipgeo.manifest.json`). */
export interface Manifest {
  /**
   * `YYYY-MM-DD.hhhhhhhh`: the newest location source's build date and 8 hex digits of the file's
   * SHA-256 (`src/geo/identity.ts`), or with N > 1 of the SHA-256 of the files' SHA-256s ({@link shardSetDigest}).
   */
  version: string;
  databaseType: string;
  schemaVersion: number;
  /** ISO 8601, also the database's build_epoch: the newest source's build date ({@link newestSourceEpoch}), not the clock's. */
  builtAt: string;
  /** How long the build took; the one figure of the manifest that differs between two builds of the same sources. */
  buildSeconds: number;
  /** With one shard only: the database file (its path from the repository), as manifests before shards had it. */
  output?: { file: string; bytes: number; sha256: string };
  /** Every file of the build in address order, their ranges tiling the address space. Absent in manifests written before shards. */
  shards: ManifestShard[];
  /** Total size of the source files read, in bytes. */
  sourceBytes: number;
  counts: CompileCounts;
  /** False when no anonymising-network source was given: every isProxy is then false. */
  isProxyConfigured: boolean;
  /** Every source with its name, version, build date, licence, attribution, notice and files. */
  sources: SourceInfo[];
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
  const missing = files.find((file) => !existsSync(join(outDir, file)));
  if (files.length === 0 || missing !== undefined) return { complete: false, why: `${relative(ROOT, join(outDir, missing ?? 'ipgeo.mmdb'))} is missing` };
  return { complete: true, files: files.length };
}

/** `--shards` as a number of shards (undefined without it), or an error message. */
export function shardsFromOption(value: string | undefined): number | undefined | { error: string } {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > MAX_SHARDS)
    return { error: `--shards must be a whole number from 1 to ${MAX_SHARDS}, not ${JSON.stringify(value)}` };
  return count;
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
  const options: BuildOptions = { proxyLists: values['proxy-list'] ?? [], budgetBytes, ...(shards ? { shards } : {}) };
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
      (manifest.isProxyConfigured ? '' : ' No anonymising-network source: isProxy is false everywhere.'),
  ];
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
