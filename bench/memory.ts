/**
 * @module `npm run bench:memory`: the memory of the workerd isolate and process before and after the
 * database is loaded, and after 100,000 and 200,000 lookups.
 *
 * Two readings at each step, each after a second of quiet:
 *
 * - **isolate**: what the Workers memory limit (128 MB) counts: the V8 heap in use after a full garbage
 *   collection plus ArrayBuffer backing stores (the database file). The collection is
 *   forced by a heap snapshot through the inspector (`HeapProfiler.takeHeapSnapshot`; workerd does not
 *   answer `HeapProfiler.collectGarbage`), and the sizes are `Runtime.getHeapUsage`'s.
 * - **process**: the resident memory (VmRSS) of the whole workerd process, which also hosts Miniflare's
 *   simulators and grows by about 200 MB over its first 200,000 requests of any kind (connection and
 *   allocator arenas). So the process first answers {@link WARM_UP} `/health` requests, and the same
 *   number of `/health` requests after the load is a control for what is noise.
 *
 * A fresh workerd process runs the lookup-only bundle (the production lookup routes without the plan
 * gate, `worker/lookup-only.js`, so that no Durable Object or KV state grows beside the lookups). One
 * lookup loads the database, then 100,000 single lookups of distinct addresses of the seeded sample
 * (`addresses.ts`), and again 100,000 at a time until a round adds less than
 * {@link SETTLED_BYTES} to the isolate (the caches are then full: their slots are fixed, see
 * `src/lookup/entry-caches.ts`), at most {@link MAX_ROUNDS} rounds.
 *
 *     npm run bench:memory -- [--lookups 100000] [--file data/out/ipgeo.mmdb] [--fields all] [--json FILE]
 *     npm run bench:memory -- --shards data/out/n3     (each shard Worker's isolate, `docs/sharding.md`)
 *
 * `--file` measures another build (its manifest beside it): the budget's model (`src/geo/budget.ts`) is
 * fitted on builds of several sizes. `--fields all` asks every field, so that the lookups also keep
 * what the fields answered only when asked for keep (each time zone's offsets and formatters).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonRequest } from 'autocannon';
import { DATABASE_FILE } from '../data/build.ts';
import { parseCommandLine } from '../data/command-line.ts';
import { addressCycle } from './addresses.ts';
import { mib } from './stats.ts';
import { buildBundle, buildShardBundle, residentBytes, seedDatabase, seedShards, shardWorkerName, startDeployment, workerName } from './worker/deployment.ts';
import { HeapPeak, Inspector } from './worker/inspector.ts';

const USAGE = `usage: npm run bench:memory -- [--lookups N] [--file FILE] [--json FILE]

The workerd isolate's and process's memory before and after the database loads, and after rounds of lookups.
  --lookups N  lookups per round (default 100000)
  --file FILE  the compiled database to load (default data/out/ipgeo.mmdb; its manifest beside it)
  --fields LIST the lookups' fields (default: none given, the default record; all: every field)
  --json FILE  also write the report as JSON
  --shards DIR instead, the isolate of each shard Worker of the sharded build in DIR, loaded, then after
               rounds of lookups through the app until every one settles (its caches full of what it sees)`;

/** `/health` requests before anything is measured, and between the load and the lookups. */
const WARM_UP = 200_000;

/** A round of lookups that adds less than this to the isolate finds the caches full. */
export const SETTLED_BYTES = 2 ** 19;

/** Rounds of lookups at most. */
const MAX_ROUNDS = 8;

/** The V8 inspector port of the measured workerd (`BENCH_INSPECTOR_PORT` overrides it when several checkouts measure at once). */
const INSPECTOR_PORT = Number(process.env.BENCH_INSPECTOR_PORT ?? 9390);

/** Memory at one step, in bytes. */
export interface MemoryReading {
  /** V8 heap in use after a full collection, plus ArrayBuffer backing stores. */
  readonly isolate: number;
  /** V8 heap committed (used or not), plus ArrayBuffer backing stores. */
  readonly committed: number;
  /** Resident memory of the workerd process. */
  readonly process: number;
}

/** Memory at each step. */
export interface MemoryReport {
  readonly lookups: number;
  readonly beforeLoad: MemoryReading;
  readonly afterLoad: MemoryReading;
  /** After as many `/health` requests as lookups, following the load: the noise floor. */
  readonly afterControl: MemoryReading;
  /** After each round of `lookups` lookups. */
  readonly afterRounds: readonly MemoryReading[];
  /** Size of the database file, for comparison. */
  readonly databaseBytes: number;
  /**
   * The isolate's peak (heap in use plus ArrayBuffers, sampled every 25 ms, garbage included) from the
   * first lookup of a fresh process until 3 s after its answer: the Workers cache empty (the load reads R2
   * and fills the cache from its buffer), then filled (the load reads the cache).
   */
  readonly loadPeak: { readonly cacheEmpty: number; readonly cacheFilled: number };
}

function send(url: URL, amount: number, next: () => AutocannonRequest): Promise<void> {
  return new Promise((done, fail) => {
    autocannon({ url: url.href, connections: 10, amount, requests: [{ setupRequest: (r) => ({ ...r, ...next() }) }] }, (error) =>
      error ? fail(error) : done(),
    );
  });
}

/**
 * Starts a fresh process on `state`, sends one lookup, and returns the isolate's peak from just before
 * it until 3 s after its answer (the cache is filled in the load's `waitUntil`, after the answer).
 */
async function peakOfLoad(bundle: string, state: string, log: (line: string) => void): Promise<number> {
  const deployment = await startDeployment('de', bundle, state, { inspectorPort: INSPECTOR_PORT });
  const inspector = await Inspector.connect(INSPECTOR_PORT, workerName(deployment.environment));
  const heap = new HeapPeak(inspector);
  try {
    await sleep(500);
    heap.reset();
    const first = await fetch(new URL('/api/json/8.8.8.8', deployment.url));
    await first.arrayBuffer();
    if (first.status !== 200) throw new Error(`the first lookup answered ${first.status}`);
    await sleep(3000);
    log(`  peak of a cold load: ${mib(heap.peak)}`);
    return heap.peak;
  } finally {
    heap.stop();
    inspector.close();
    await deployment.dispose();
  }
}

/** Runs the benchmark; `work` holds the bundle and the local R2 store. */
async function benchMemory(
  options: { lookups?: number; file?: string; fields?: string; work: string },
  log: (line: string) => void = () => {},
): Promise<MemoryReport> {
  const lookups = options.lookups ?? 100_000;
  const file = options.file ?? DATABASE_FILE;
  const bundle = buildBundle('de', join(options.work, 'memory-bundle'), 'bench/worker/lookup-only.js');
  const state = join(options.work, 'memory-state');
  const seeding = await startDeployment('de', bundle, state);
  await seedDatabase(seeding, file);
  await seeding.dispose();

  const address = addressCycle(Math.ceil((lookups * MAX_ROUNDS) / 6), 31, 32);
  // Names in every language (docs/hot-path.md, "Memory"): each lookup asks the next of the eight, English among them.
  const languages = ['de', 'en', 'es', 'fr', 'ja', 'pt-BR', 'ru', 'zh-CN'];
  let asked = 0;
  const fields = options.fields ? `&fields=${encodeURIComponent(options.fields)}` : '';
  const lookup = (): AutocannonRequest => ({ method: 'GET', path: `/api/json/${address()}?lang=${languages[asked++ % languages.length]}${fields}` });

  const loadPeak = { cacheEmpty: await peakOfLoad(bundle, state, log), cacheFilled: await peakOfLoad(bundle, state, log) };
  const deployment = await startDeployment('de', bundle, state, { inspectorPort: INSPECTOR_PORT });
  const inspector = await Inspector.connect(INSPECTOR_PORT, workerName(deployment.environment));
  try {
    await inspector.send('HeapProfiler.enable');
    const reading = async (what: string): Promise<MemoryReading> => {
      await sleep(1000);
      await inspector.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      const heap = await inspector.send<{ usedSize: number; totalSize: number; backingStorageSize: number }>('Runtime.getHeapUsage');
      const result = {
        isolate: heap.usedSize + heap.backingStorageSize,
        committed: heap.totalSize + heap.backingStorageSize,
        process: residentBytes(deployment.pid),
      };
      log(
        `  ${what}: isolate ${mib(result.isolate)} (heap ${mib(heap.usedSize)} of ${mib(heap.totalSize)} committed, array buffers ${mib(heap.backingStorageSize)}), process ${mib(result.process)}`,
      );
      return result;
    };
    const health = (): AutocannonRequest => ({ method: 'GET', path: '/health' });
    await send(deployment.url, WARM_UP, health);
    const beforeLoad = await reading(`after ${WARM_UP} /health requests, before the database is loaded`);
    const first = await fetch(new URL('/api/json/8.8.8.8', deployment.url));
    const answer = await first.text();
    // A small build (`--file`) may not cover the address: a 404 of the data loaded is an answer too.
    if (first.status !== 200 && !(first.status === 404 && answer.includes('IP_ADDRESS_NOT_FOUND'))) {
      throw new Error(`the first lookup answered ${first.status}: ${answer.slice(0, 200)}`);
    }
    const afterLoad = await reading('after it is loaded');
    await send(deployment.url, lookups, health);
    const afterControl = await reading(`after ${lookups} /health requests (control)`);
    const afterRounds: MemoryReading[] = [];
    let previous = afterControl;
    do {
      await send(deployment.url, lookups, lookup);
      afterRounds.push(await reading(`after ${(afterRounds.length + 1) * lookups} lookups`));
      const last = afterRounds.at(-1) as MemoryReading;
      if (last.isolate - previous.isolate < SETTLED_BYTES) break;
      previous = last;
    } while (afterRounds.length < MAX_ROUNDS);
    const { size } = statSync(file);
    return { lookups, beforeLoad, afterLoad, afterControl, afterRounds, databaseBytes: size, loadPeak };
  } finally {
    inspector.close();
    await deployment.dispose();
  }
}

/**
 * The isolate of each shard Worker of the sharded build in `dir` (`docs/sharding.md`): after its load,
 * then after each round of `lookups` lookups through the app (the lookup-only bundle bound to them)
 * until no shard grows by {@link SETTLED_BYTES}. A shard's caches fill with the records of its own
 * addresses only.
 *
 * @returns each shard's isolate bytes after its load and after the last round.
 */
async function benchShardMemory(dir: string, lookups: number, work: string, log: (line: string) => void): Promise<{ afterLoad: number; full: number }[]> {
  const count = (JSON.parse(readFileSync(join(dir, 'ipgeo.manifest.json'), 'utf8')) as { shards: unknown[] }).shards.length;
  const bundle = buildBundle('de', join(work, 'memory-bundle'), 'bench/worker/lookup-only.js');
  const shards = { bundle: buildShardBundle('de', join(work, 'shard'), count), count };
  const deployment = await startDeployment('de', bundle, join(work, 'memory-state'), { inspectorPort: INSPECTOR_PORT, shards });
  const inspectors = await Promise.all(Array.from({ length: count }, (_, index) => Inspector.connect(INSPECTOR_PORT, shardWorkerName('de', index))));
  try {
    await seedShards(deployment, dir);
    for (const inspector of inspectors) await inspector.send('HeapProfiler.enable');
    const readings = async (what: string): Promise<number[]> => {
      await sleep(1000);
      const isolates: number[] = [];
      for (const inspector of inspectors) {
        await inspector.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
        const heap = await inspector.send<{ usedSize: number; backingStorageSize: number }>('Runtime.getHeapUsage');
        isolates.push(heap.usedSize + heap.backingStorageSize);
      }
      log(`  ${what}: shard isolates ${isolates.map(mib).join(', ')}`);
      return isolates;
    };
    const address = addressCycle(Math.ceil((lookups * MAX_ROUNDS) / 6), 31, 32);
    const languages = ['de', 'en', 'es', 'fr', 'ja', 'pt-BR', 'ru', 'zh-CN'];
    let asked = 0;
    const lookup = (): AutocannonRequest => ({ method: 'GET', path: `/api/json/${address()}?lang=${languages[asked++ % languages.length]}` });
    // Enough distinct addresses that every shard is asked and loads.
    await send(deployment.url, 1000, lookup);
    const afterLoad = await readings('after 1000 lookups (every shard loaded)');
    let previous = afterLoad;
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      await send(deployment.url, lookups, lookup);
      const now = await readings(`after ${round * lookups} more lookups`);
      const settled = now.every((bytes, index) => bytes - (previous[index] as number) < SETTLED_BYTES);
      previous = now;
      if (settled) break;
    }
    return afterLoad.map((bytes, index) => ({ afterLoad: bytes, full: previous[index] as number }));
  } finally {
    for (const inspector of inspectors) inspector.close();
    await deployment.dispose();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url) && process.argv.includes('--shards')) {
  const line = parseCommandLine(process.argv.slice(2), {
    command: 'npm run bench:memory',
    usage: USAGE,
    options: { lookups: { type: 'string', default: '100000' }, shards: { type: 'string' } },
  });
  if (typeof line === 'number') process.exit(line);
  const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-memory-'));
  try {
    const shards = await benchShardMemory(resolve(line.values.shards as string), Number(line.values.lookups), work, console.log);
    for (const [index, { afterLoad, full }] of shards.entries()) {
      console.log(`shard ${index}: isolate ${mib(afterLoad)} once loaded, ${mib(full)} with its caches full`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
} else if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const line = parseCommandLine(process.argv.slice(2), {
    command: 'npm run bench:memory',
    usage: USAGE,
    options: { lookups: { type: 'string', default: '100000' }, file: { type: 'string' }, fields: { type: 'string' }, json: { type: 'string' } },
  });
  if (typeof line === 'number') process.exit(line);
  const { values } = line;
  const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-memory-'));
  try {
    const report = await benchMemory(
      { lookups: Number(values.lookups), work, ...(values.file ? { file: resolve(values.file) } : {}), ...(values.fields ? { fields: values.fields } : {}) },
      console.log,
    );
    for (const key of ['isolate', 'committed', 'process'] as const) {
      const at = (reading: MemoryReading) => reading[key];
      const rounds = report.afterRounds.map((reading, i) => mib(at(reading) - at(report.afterRounds[i - 1] ?? report.afterControl)));
      console.log(
        `${key}: the database adds ${mib(at(report.afterLoad) - at(report.beforeLoad))} (file ${mib(report.databaseBytes)}); ${report.lookups} /health requests then ` +
          `${mib(at(report.afterControl) - at(report.afterLoad))}; rounds of ${report.lookups} lookups: ${rounds.join(', ')}`,
      );
    }
    console.log(
      `isolate peak during a cold load: ${mib(report.loadPeak.cacheEmpty)} with the Workers cache empty, ${mib(report.loadPeak.cacheFilled)} with it filled`,
    );
    if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
