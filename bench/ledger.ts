/**
 * @module `npm run bench:ledger`: the usage ledger of one busy account (docs/decisions/0009-ledger-spread-over-shards.md)
 * driven in workerd by simulated paid isolates (`worker/ledger-driver.js`: each the production usage state
 * of an isolate, writing a batch a second of realistic rows: four deployments, four kinds, four
 * credentials), against the production ledger class that counts each object's calls (`worker/ledger-store.js`),
 * with one answer in 100 lost after it was applied, so that writers send those parts again.
 *
 * For each number of writers: the calls each object receives per second (the root's and the busiest
 * shard's, between the third second and the end of the traffic), the batches written per second, the
 * write's time to its answer as the writer sees it (median and p99), the workerd process's CPU per
 * batch (with the CPU of the same calls that apply nothing, once, for the ledger's own part), and
 * whether every count arrived exactly once. Then the quota's overshoot: isolates that know the totals,
 * each admitting lookups at a steady rate against a monthly quota of some seconds of their traffic.
 *
 *     npm run bench:ledger -- [--writers 100,500,1000,2000,5000] [--seconds 10] [--quota-writers 100,1000] [--write]
 *
 * `--write` puts the tables into BENCHMARKS.md as a section naming its run (`report.ts` keeps it).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { parseCommandLine } from '../data/command-line.ts';
import { readWranglerToml } from '../scripts/deploy/config.ts';
import { type LedgerResults, type LedgerRow, ledgerSection, type QuotaRow, withLedgerSection } from './ledger-report.ts';
import { describeMachine, revision } from './machine.ts';
import { median } from './stats.ts';
import { buildBundle, cpuSeconds, lastWorkerd, ROOT } from './worker/deployment.ts';

const USAGE = `usage: npm run bench:ledger -- [--writers LIST] [--seconds S] [--quota-writers LIST] [--max-writes N] [--write]

Drives the usage ledger of one account with simulated isolates, each writing a batch a second.
  --writers LIST        numbers of writers, comma-separated (default 100,500,1000,2000,5000)
  --seconds S           seconds of traffic at each number, at least (default 10)
  --quota-writers LIST  numbers of isolates for the quota's overshoot (default 100,250)
  --max-writes N        writes a second this machine is driven at, at most: more writers write once every
                        ceil(writers / N) seconds, and their writes a second are scaled by that (default 250)
  --write               put the results into BENCHMARKS.md`;

/** Answers each simulated isolate counts before each batch (a batch carries a few rows of them). */
const ANSWERS_PER_BATCH = 5;
/** Writes a second this machine can drive and serve, about: beyond, writers write once every few seconds and their rates are scaled (`--max-writes`). */
const MAX_WRITES_PER_SECOND = 250;
/** The first batch of each writer that counts in the figures: the ledger spreads at the first, and the writers learn it at their second. */
const FROM_BATCH = 3;
/** One write's answer in this many is lost after the ledger applied it, so that the writer sends it again. */
const LOSE_EVERY = 100;
/** Lookups each isolate admits a second in the quota's runs, and the quota in seconds of the isolates' traffic. */
const QUOTA_LOOKUPS_PER_SECOND = 2;
const QUOTA_SECONDS = 5;

const STORE = 'ledger-store';
const DRIVER = 'ledger-driver';

type Sums = { requests: number; lookups: number; problems: number };

/** What the driver answers a run of writers (`worker/ledger-driver.js`). */
interface WriteAnswer {
  sent: Sums;
  stored: Sums;
  spread: number;
  writes: number;
  /** Batches whose keeper gave up (the store 25 s behind) and that a later request of their isolate wrote. */
  takenOver: number;
  /** Writes started by the writers in each second (s since the epoch). */
  started: Record<string, number>;
  latencyMs: { p50: number; p99: number; max: number };
  startedAt: number;
  endedAt: number;
  drainedAt: number;
  objects: string[];
}

/** What the driver answers a quota run. */
interface QuotaAnswer {
  quota: number;
  rate: number;
  admitted: number;
  refused: number;
  stored: Sums;
  spread: number;
  reachedMs: number | null;
  trailMs: number | null;
}

/** Calls by object id, by second since the epoch, by method (`worker/ledger-store.js`). */
type Calls = Record<string, Record<string, Record<string, number>>>;

/** Bundles a bench Worker with a configuration of its own (its Durable Object binding), as `wrangler deploy` would. */
function bundle(work: string, name: string, entry: string, durableObjects: object): string {
  const toml = readWranglerToml(join(ROOT, 'wrangler.toml'));
  const worker = {
    name,
    main: join(ROOT, entry),
    compatibility_date: toml.compatibility_date,
    compatibility_flags: toml.compatibility_flags,
    ...durableObjects,
  };
  const config = join(work, `${name}.json`);
  writeFileSync(config, JSON.stringify({ ...worker, env: { de: worker } }));
  return buildBundle('de', join(work, name), undefined, { wranglerArgs: ['--config', config] });
}

async function start(work: string): Promise<{ miniflare: Miniflare; pid: number }> {
  const toml = readWranglerToml(join(ROOT, 'wrangler.toml'));
  const store = bundle(work, STORE, 'bench/worker/ledger-store.js', {
    durable_objects: { bindings: [{ name: 'USAGE', class_name: 'MeasuredLedger' }] },
    migrations: [{ tag: 'v1', new_sqlite_classes: ['MeasuredLedger'] }],
  });
  const driver = bundle(work, DRIVER, 'bench/worker/ledger-driver.js', {
    durable_objects: { bindings: [{ name: 'USAGE', class_name: 'MeasuredLedger', script_name: STORE }] },
  });
  const common = { modules: true, compatibilityDate: toml.compatibility_date as string, compatibilityFlags: toml.compatibility_flags as string[] };
  const miniflare = new Miniflare(
    convertV4MiniflareOptions({
      resourcePersistencePath: join(work, 'state'),
      workers: [
        {
          name: DRIVER,
          rootPath: dirname(driver),
          scriptPath: basename(driver),
          ...common,
          durableObjects: { USAGE: { className: 'MeasuredLedger', scriptName: STORE, useSQLite: true } },
        },
        {
          name: STORE,
          rootPath: dirname(store),
          scriptPath: basename(store),
          ...common,
          durableObjects: { USAGE: { className: 'MeasuredLedger', useSQLite: true } },
        },
      ],
    } as Parameters<typeof convertV4MiniflareOptions>[0]),
  );
  await miniflare.ready;
  return { miniflare, pid: lastWorkerd().pid };
}

async function storeMode(miniflare: Miniflare, mode: { loseEvery: number; noop: boolean; fromBatch: number }): Promise<void> {
  await (await miniflare.getWorker(STORE)).fetch('http://store/', { method: 'POST', body: JSON.stringify(mode) });
}

/** The store's counts: calls by object, second and method; and the writers each object took batches from after the spread. */
async function storeCounts(miniflare: Miniflare): Promise<{ calls: Calls; writers: Record<string, number> }> {
  return (await (await (await miniflare.getWorker(STORE)).fetch('http://store/')).json()) as { calls: Calls; writers: Record<string, number> };
}

async function drive<T>(miniflare: Miniflare, path: string, options: object): Promise<T> {
  const response = await miniflare.dispatchFetch(`http://driver${path}`, { method: 'POST', body: JSON.stringify(options) });
  if (response.status !== 200) throw new Error(`the driver answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * The calls a second of `id` from `from` to `to` (s since the epoch, inclusive), as if each writer wrote a
 * batch a second: over windows of `period` seconds (the writers' interval, rounded), the writes of a
 * window (one batch of each of its writers) and its other calls (reads, syncs, alarms) a second.
 */
function perSecond(calls: Calls, id: string, from: number, to: number, period: number): number[] {
  const seconds = calls[id] ?? {};
  const window = Math.max(1, Math.round(period));
  return Array.from({ length: Math.max(0, Math.floor((to - from + 1) / window)) }, (_, index) => {
    let writes = 0;
    let others = 0;
    for (let second = from + index * window; second < from + (index + 1) * window; second++) {
      for (const [method, n] of Object.entries(seconds[String(second)] ?? {})) {
        if (method === 'add') writes += n;
        else others += n;
      }
    }
    return (writes * period) / window + others / window;
  });
}

/** The writes of `id` in each second from `from` to `to`. */
function writesPerSecond(calls: Calls, id: string, from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => calls[id]?.[String(from + index)]?.add ?? 0);
}

/** Every write the store received. */
function writesOf(calls: Calls): number {
  return Object.values(calls).reduce((sum, seconds) => sum + Object.values(seconds).reduce((n, methods) => n + (methods.add ?? 0), 0), 0);
}

const same = (a: Sums, b: Sums) => a.requests === b.requests && a.lookups === b.lookups && a.problems === b.problems;

/**
 * One run of `writers` writers, each writing a batch every `everySeconds` (1 when this machine can drive
 * them at a batch a second), for at least `seconds` and four batches each.
 */
async function writersRow(miniflare: Miniflare, pid: number, writers: number, seconds: number, everySeconds: number): Promise<LedgerRow> {
  await storeMode(miniflare, { loseEvery: LOSE_EVERY, noop: false, fromBatch: FROM_BATCH });
  const cpu = cpuSeconds(pid);
  const answer = await drive<WriteAnswer>(miniflare, '/write', {
    account: `bench-${writers}-${crypto.randomUUID().slice(0, 8)}`,
    writers,
    seconds: Math.max(seconds, 4 * everySeconds + 2),
    everySeconds,
    answersPerBatch: ANSWERS_PER_BATCH,
    seed: 20261208 + writers,
  });
  const cpuUsed = cpuSeconds(pid) - cpu;
  const { calls, writers: writersOf } = await storeCounts(miniflare);
  // From the writers' third batch on: the ledger spread at their first, and they learned it at their second.
  const from = Math.floor(answer.startedAt / 1000) + (FROM_BATCH - 1) * everySeconds + 1;
  const to = Math.floor(answer.endedAt / 1000) - 1;
  // The driver's period: the batch's interval and a tick (`worker/ledger-driver.js`).
  const period = everySeconds + 0.1;
  const [root = [0], ...shards] = answer.objects.map((id) => perSecond(calls, id, from, to, period));
  const written = answer.objects.map((id) => writesPerSecond(calls, id, from, to));
  const writtenPerSecond = (written[0] ?? []).map((_, second) => written.reduce((sum, series) => sum + (series[second] ?? 0), 0));
  let busiest: number[] = [0];
  for (const series of shards) if (Math.max(0, ...series) > Math.max(...busiest)) busiest = series;
  const totalAdds = writesOf(calls);
  return {
    writers,
    everySeconds,
    nominal: writers / period,
    offered: median(Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => answer.started[String(from + index)] ?? 0)),
    written: median(writtenPerSecond),
    writersPerObject: { root: writersOf[answer.objects[0] ?? ''] ?? 0, busiestShard: Math.max(0, ...answer.objects.slice(1).map((id) => writersOf[id] ?? 0)) },
    root: { median: median(root), max: Math.max(0, ...root) },
    busiestShard: { median: median(busiest), max: Math.max(0, ...busiest) },
    spread: answer.spread,
    latencyMs: { p50: answer.latencyMs.p50, p99: answer.latencyMs.p99 },
    cpuPerWriteUs: (cpuUsed / Math.max(1, totalAdds)) * 1e6,
    exact: same(answer.sent, answer.stored),
    resent: Math.floor(totalAdds / LOSE_EVERY),
    takenOver: answer.takenOver,
    drainSeconds: (answer.drainedAt - answer.endedAt) / 1000,
  };
}

/** The CPU per write of calls that apply nothing (the RPC alone), at `writers` writers. */
async function noopCpu(miniflare: Miniflare, pid: number, writers: number, seconds: number): Promise<number> {
  await storeMode(miniflare, { loseEvery: 0, noop: true, fromBatch: FROM_BATCH });
  const cpu = cpuSeconds(pid);
  await drive<WriteAnswer>(miniflare, '/write', {
    account: `bench-noop-${crypto.randomUUID().slice(0, 8)}`,
    writers,
    seconds,
    everySeconds: 1,
    answersPerBatch: ANSWERS_PER_BATCH,
    seed: 1,
  });
  const used = cpuSeconds(pid) - cpu;
  return (used / Math.max(1, writesOf((await storeCounts(miniflare)).calls))) * 1e6;
}

async function quotaRow(miniflare: Miniflare, writers: number): Promise<QuotaRow> {
  await storeMode(miniflare, { loseEvery: 0, noop: false, fromBatch: FROM_BATCH });
  const answer = await drive<QuotaAnswer>(miniflare, '/quota', {
    account: `bench-quota-${writers}-${crypto.randomUUID().slice(0, 8)}`,
    writers,
    lookupsPerSecond: QUOTA_LOOKUPS_PER_SECOND,
    quotaSeconds: QUOTA_SECONDS,
    seed: 7 + writers,
  });
  return {
    writers,
    rate: answer.rate,
    quota: answer.quota,
    admitted: answer.admitted,
    spread: answer.spread,
    trailMs: answer.trailMs,
    exact: answer.stored.lookups === answer.admitted && answer.stored.problems === answer.refused,
  };
}

/** Runs the bench, printing each row as it is measured. */
async function benchLedger(
  options: { writers: number[]; seconds: number; quotaWriters: number[]; maxWrites: number },
  log: (line: string) => void,
): Promise<LedgerResults> {
  const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-ledger-'));
  const { miniflare, pid } = await start(work);
  try {
    const rows: LedgerRow[] = [];
    for (const writers of options.writers) {
      const row = await writersRow(miniflare, pid, writers, options.seconds, Math.max(1, Math.ceil(writers / options.maxWrites)));
      log(JSON.stringify(row));
      rows.push(row);
    }
    const noopWriters = Math.min(options.maxWrites, Math.max(...options.writers));
    const noopCpuPerWriteUs = await noopCpu(miniflare, pid, noopWriters, options.seconds);
    log(`no-op writes at ${noopWriters} writers: ${noopCpuPerWriteUs.toFixed(0)} µs of CPU each`);
    const quota: QuotaRow[] = [];
    for (const writers of options.quotaWriters) {
      const row = await quotaRow(miniflare, writers);
      log(JSON.stringify(row));
      quota.push(row);
    }
    return {
      rows,
      noopCpuPerWriteUs,
      noopWriters,
      quota,
      seconds: options.seconds,
      answersPerBatch: ANSWERS_PER_BATCH,
      loseEvery: LOSE_EVERY,
      quotaSeconds: QUOTA_SECONDS,
      fromBatch: FROM_BATCH,
    };
  } finally {
    await miniflare.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}

const line = parseCommandLine(process.argv.slice(2), {
  command: 'npm run bench:ledger',
  usage: USAGE,
  options: {
    writers: { type: 'string', default: '100,500,1000,2000,5000' },
    seconds: { type: 'string', default: '10' },
    'quota-writers': { type: 'string', default: '100,250' },
    'max-writes': { type: 'string', default: String(MAX_WRITES_PER_SECOND) },
    write: { type: 'boolean', default: false },
  },
});
if (typeof line === 'number') process.exit(line);
const list = (text: string) => text.split(',').map(Number);
const writers = list(line.values.writers);
const quotaWriters = list(line.values['quota-writers']);
const seconds = Number(line.values.seconds);
const maxWrites = Number(line.values['max-writes']);
if (![...writers, ...quotaWriters, maxWrites].every((n) => Number.isInteger(n) && n > 0) || !(seconds >= 5)) {
  console.error('npm run bench:ledger: --writers, --quota-writers and --max-writes are whole numbers above 0, --seconds at least 5');
  process.exit(2);
}
const machine = describeMachine();
const measured = revision();
const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const started = performance.now();
const results = await benchLedger({ writers, seconds, quotaWriters, maxWrites }, console.log);
const section = ledgerSection({ machine, revision: measured, date, seconds: (performance.now() - started) / 1000, ledger: results });
console.log(`\n${section}`);
const file = join(ROOT, 'BENCHMARKS.md');
if (line.values.write && existsSync(file)) {
  writeFileSync(file, withLedgerSection(readFileSync(file, 'utf8'), section));
  console.log('\nWritten to BENCHMARKS.md.');
}
