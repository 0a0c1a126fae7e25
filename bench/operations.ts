/**
 * @module `npm run bench:operations`: the billable operations that each kind of request makes, counted
 * under load, for the costs (`costs.ts`, docs/costs.md). The production bundles are built with the
 * counting entry `worker/billed.js` (their bindings wrapped, the code unchanged) and loaded by autocannon
 * as the HTTP rows are; the counts before and after each kind's run, over the answers it got, give the
 * Durable Object requests and their wall time, the usage store's writes with the rows and answers they
 * carry (so the batch size under this load, and the ledger requests per batch), KV reads, R2 operations
 * and shard calls per request. Invocations are derived (the app's, each Durable Object call's and each
 * shard call's), each an invocation log where `wrangler.toml` turns those on; the lines the Workers
 * write themselves (data and operational events) are counted and measured in bytes. Before its data is
 * published, the free deployment answers a burst of requests 503, to measure the bound on those events.
 *
 *     npm run bench:operations -- [--seconds 5] [--connections 10] [--shards DIR] [--json FILE]
 *
 * `--shards DIR`: a sharded build (`npm run data:build -- --shards 3 --out DIR`) for the kind "shards";
 * without it that kind is not counted.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonRequest } from 'autocannon';
import { DATABASE_FILE, OUT_DIR } from '../data/build.ts';
import { parseCommandLine } from '../data/command-line.ts';
import { readWranglerToml } from '../scripts/deploy/config.ts';
import { invocationLogsOn } from '../scripts/deploy/logs.ts';
import { RETRY_AFTER_SECONDS } from '../src/geo/retry-after.ts';
import { addressCycle, clientCycle } from './addresses.ts';
import { askEveryBlock, asnPaths, pathCycle } from './asns.ts';
import { BULK_SIZE, REQUESTS_PER_CLIENT, seedPaidAccount } from './http.ts';
import { buildBundle, buildShardBundle, type Deployment, type Environment, ROOT, seedDatabase, seedShards, startDeployment } from './worker/deployment.ts';

/**
 * The kinds of request whose operations a run counts, and `costs.ts` prices: free and paid single
 * lookups, a paid bulk and distance, networks by ASN (a typical ASN of any block, every block in the
 * Workers cache), a paid lookup through shard Workers.
 */
type KindId = 'free' | 'paid' | 'bulk' | 'distance' | 'asn' | 'shards';

/** What one kind of request made over a run: totals, divided by `requests` for a request's share. */
export interface KindOperations {
  /** Answers received. */
  readonly requests: number;
  /** The free plan's rate limiter: RPC calls, and their wall time in ms (caller's view, queueing included). */
  readonly rateLimiter: { readonly calls: number; readonly ms: number };
  /**
   * The usage store's writes: RPC calls (ledger requests), wall ms, SQLite rows they write, the answers
   * they count, and the batches they carry (a batch: the parts of one id; absent in runs before December 2026).
   */
  readonly usage: { readonly calls: number; readonly ms: number; readonly rowsWritten: number; readonly answers: number; readonly batches?: number };
  readonly kvReads: number;
  readonly r2ClassA: number;
  readonly r2ClassB: number;
  /** Calls to shard Workers over service bindings. */
  readonly serviceCalls: number;
  /** Worker invocations: the app's, and each call into a Durable Object or a shard Worker; each writes an invocation log where those are on. */
  readonly invocations: number;
  /** Whether `wrangler.toml` turns invocation logs on for the deployment (the usage and shard Workers follow it). */
  readonly invocationLogs: boolean;
  /** The lines the Workers wrote themselves (data and operational events): how many, and their bytes (UTF-8). */
  readonly events: EventLines;
}

/** Lines of the Workers' own events: how many, and their bytes (UTF-8). */
export interface EventLines {
  readonly count: number;
  readonly bytes: number;
}

/** Everything `--json` writes. */
export interface OperationsReport {
  readonly seconds: number;
  readonly connections: number;
  readonly kinds: Partial<Record<KindId, KindOperations>>;
  /** Every event line the Workers wrote over the whole run, by its `event` (`load`, `data-unavailable`, …). */
  readonly eventsByKind?: Readonly<Record<string, EventLines>>;
  /** The free deployment with no data published: requests made, how many were answered 503, and the event lines they caused. */
  readonly burst?: { readonly requests: number; readonly unavailable: number; readonly events: Readonly<Record<string, EventLines>> };
}

type Counts = Record<string, { calls: number; ms: number; rows: number; answers: number; batches?: number }>;

/** R2 methods by class (https://developers.cloudflare.com/r2/pricing/). */
const R2_CLASS_A = ['list', 'put', 'createMultipartUpload', 'uploadPart', 'completeMultipartUpload'];
const R2_CLASS_B = ['get', 'head'];

/** Whether invocation logs are on for `environment` of `wrangler.toml` (an environment's own setting, else the top level's). */
function invocationLogsOf(environment: Environment): boolean {
  const config = readWranglerToml(join(ROOT, 'wrangler.toml')) as { observability?: unknown; env?: Record<string, { observability?: unknown }> };
  return invocationLogsOn(config.env?.[environment]?.observability ?? config.observability);
}

/** The Workers' own event lines (JSON objects with an `event`), by that event. */
function eventLines(lines: readonly string[]): Record<string, EventLines> {
  const byKind: Record<string, { count: number; bytes: number }> = {};
  for (const line of lines) {
    let kind: unknown;
    try {
      kind = (JSON.parse(line) as { event?: unknown }).event;
    } catch {
      continue;
    }
    if (typeof kind !== 'string') continue;
    const entry = byKind[kind] ?? { count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += Buffer.byteLength(line);
    byKind[kind] = entry;
  }
  return byKind;
}

/** The sum over every kind. */
function allLines(byKind: Readonly<Record<string, EventLines>>): EventLines {
  return Object.values(byKind).reduce((sum, entry) => ({ count: sum.count + entry.count, bytes: sum.bytes + entry.bytes }), { count: 0, bytes: 0 });
}

async function countsOf(deployment: Deployment): Promise<Counts> {
  const response = await fetch(new URL('/__bench/billed', deployment.url));
  return (await response.json()) as Counts;
}

/** `after` minus `before`, summed over the names that `match`. */
function delta(before: Counts, after: Counts, match: (name: string) => boolean): { calls: number; ms: number; rows: number; answers: number; batches: number } {
  const sum = { calls: 0, ms: 0, rows: 0, answers: 0, batches: 0 };
  for (const [name, entry] of Object.entries(after)) {
    if (!match(name)) continue;
    const was = before[name] ?? { calls: 0, ms: 0, rows: 0, answers: 0, batches: 0 };
    sum.calls += entry.calls - was.calls;
    sum.ms += entry.ms - was.ms;
    sum.rows += entry.rows - was.rows;
    sum.answers += entry.answers - was.answers;
    sum.batches += (entry.batches ?? 0) - (was.batches ?? 0);
  }
  return sum;
}

/** Load for `seconds`; the number of answers. */
function load(deployment: Deployment, next: () => AutocannonRequest, seconds: number, connections: number): Promise<number> {
  return new Promise((done, fail) => {
    autocannon(
      { url: deployment.url.href, connections, duration: seconds, timeout: 10, requests: [{ setupRequest: (request) => ({ ...request, ...next() }) }] },
      (error, result) => (error ? fail(error) : done(result.requests.total)),
    );
  });
}

/** How long after a run its last usage batch is surely written: a batch is written a second after it opens (`src/usage/recorder.ts`). */
const SETTLE_MS = 2_500;

/** A deployment of the run, and the lines its Workers have written so far. */
interface Logged {
  readonly deployment: Deployment;
  readonly lines: string[];
}

/** Counts one kind on `deployment`: an unmeasured second, then `seconds` measured, each followed by the last batch's write. */
async function countKind(
  { deployment, lines }: Logged,
  next: () => AutocannonRequest,
  options: { seconds: number; connections: number; invocationLogs: boolean },
): Promise<KindOperations> {
  await load(deployment, next, 1, options.connections);
  await new Promise((done) => setTimeout(done, SETTLE_MS));
  const before = await countsOf(deployment);
  const linesBefore = lines.length;
  const requests = await load(deployment, next, options.seconds, options.connections);
  await new Promise((done) => setTimeout(done, SETTLE_MS));
  const after = await countsOf(deployment);
  const events = allLines(eventLines(lines.slice(linesBefore)));
  const rateLimiter = delta(before, after, (name) => name.startsWith('RATE_LIMITER.') && !name.includes('.namespace.'));
  const usage = delta(before, after, (name) => name.startsWith('USAGE.') && !name.includes('.namespace.'));
  const r2 = (methods: readonly string[]) => delta(before, after, (name) => methods.some((method) => name === `GEO_DATA.${method}`)).calls;
  const serviceCalls = delta(before, after, (name) => name.startsWith('SHARD.')).calls;
  return {
    requests,
    rateLimiter: { calls: rateLimiter.calls, ms: rateLimiter.ms },
    usage: { calls: usage.calls, ms: usage.ms, rowsWritten: usage.rows, answers: usage.answers, batches: usage.batches },
    kvReads: delta(before, after, (name) => name === 'ACCOUNTS.get' || name === 'ACCOUNTS.getWithMetadata').calls,
    r2ClassA: r2(R2_CLASS_A),
    r2ClassB: r2(R2_CLASS_B),
    serviceCalls,
    // The app's invocation, and one of the Worker each call enters: the rate limiter's (the app itself), the usage Worker, a shard Worker.
    invocations: requests + rateLimiter.calls + usage.calls + serviceCalls,
    invocationLogs: options.invocationLogs,
    events,
  };
}

/** Requests of the burst that the free deployment answers before it has data: enough to pass the events' bound many times over. */
const BURST_REQUESTS = 200;

/** {@link BURST_REQUESTS} lookups one after another, each answered 503 while no data is published; what they wrote. */
async function burst({ deployment, lines }: Logged): Promise<NonNullable<OperationsReport['burst']>> {
  const linesBefore = lines.length;
  let unavailable = 0;
  for (let i = 0; i < BURST_REQUESTS; i++) {
    const response = await fetch(new URL('/api/v1/json/81.2.69.142', deployment.url), { headers: { 'CF-Connecting-IP': `198.18.${i >> 8}.${i & 255}` } });
    await response.arrayBuffer();
    if (response.status === 503) unavailable++;
  }
  return { requests: BURST_REQUESTS, unavailable, events: eventLines(lines.slice(linesBefore)) };
}

/** Runs every kind; the shards kind only with a sharded build. */
async function countOperations(
  options: { seconds: number; connections: number; shards?: string; work: string },
  log: (line: string) => void,
): Promise<OperationsReport> {
  const { work } = options;
  const started: Logged[] = [];
  /** Starts a deployment with an empty bucket (the caller publishes its data), whose Workers' lines are kept. */
  const start = async (environment: Environment, name: string, shards?: string): Promise<Logged> => {
    const bundle = buildBundle(environment, join(work, `bundle-${name}`), 'bench/worker/billed.js');
    const count = shards ? (JSON.parse(readFileSync(join(shards, 'ipgeo.manifest.json'), 'utf8')) as { shards: unknown[] }).shards.length : 0;
    const lines: string[] = [];
    const deployment = await startDeployment(environment, bundle, join(work, `state-${name}`), {
      onLog: (line) => void lines.push(line),
      ...(shards ? { shards: { bundle: buildShardBundle(environment, join(work, `shard-${name}`), count), count } } : {}),
    });
    const logged = { deployment, lines };
    started.push(logged);
    return logged;
  };
  try {
    const address = addressCycle(20_000, 11, 12);
    const freeClient = clientCycle(REQUESTS_PER_CLIENT);
    const kinds: Partial<Record<KindId, KindOperations>> = {};
    const free = await start('free', 'free');
    const burstFigures = await burst(free);
    log(`  burst without data: ${JSON.stringify(burstFigures)}`);
    await seedDatabase(free.deployment, DATABASE_FILE);
    // The burst's failed load is tried again this long after it (src/geo/loading.ts): until then, lookups answer 503.
    await new Promise((done) => setTimeout(done, (RETRY_AFTER_SECONDS + 1) * 1000));
    kinds.free = await countKind(free, () => ({ method: 'GET', path: `/api/v1/json/${address()}`, headers: { 'CF-Connecting-IP': freeClient() } }), {
      ...options,
      invocationLogs: invocationLogsOf('free'),
    });
    log(`  free: ${JSON.stringify(kinds.free)}`);
    const paid = await start('de', 'de');
    await seedDatabase(paid.deployment, DATABASE_FILE);
    const credential = await seedPaidAccount(paid.deployment);
    if (!('authorization' in credential)) throw new Error(credential.pending);
    const auth = { Authorization: credential.authorization };
    const json = { ...auth, 'content-type': 'application/json' };
    // Every block of the ASN object in the Workers cache, as a location long in use has them (its writes settle before the first count).
    const asns = asnPaths(OUT_DIR);
    await askEveryBlock(paid.deployment.url, credential.authorization, asns);
    const typicalAsn = pathCycle(asns.typical);
    const paidKinds: [KindId, () => AutocannonRequest][] = [
      ['paid', () => ({ method: 'GET', path: `/api/json/${address()}`, headers: auth })],
      ['bulk', () => ({ method: 'POST', path: '/api/bulk/json', headers: json, body: JSON.stringify({ ips: Array.from({ length: BULK_SIZE }, address) }) })],
      ['distance', () => ({ method: 'POST', path: '/api/distance', headers: json, body: JSON.stringify({ from: address(), to: address() }) })],
      ['asn', () => ({ method: 'GET', path: typicalAsn(), headers: auth })],
    ];
    for (const [kind, next] of paidKinds) {
      kinds[kind] = await countKind(paid, next, { ...options, invocationLogs: invocationLogsOf('de') });
      log(`  ${kind}: ${JSON.stringify(kinds[kind])}`);
    }
    if (options.shards) {
      const sharded = await start('de', 'de-shards', options.shards);
      await seedShards(sharded.deployment, options.shards);
      const shardCredential = await seedPaidAccount(sharded.deployment);
      if (!('authorization' in shardCredential)) throw new Error(shardCredential.pending);
      kinds.shards = await countKind(
        sharded,
        () => ({ method: 'GET', path: `/api/json/${address()}`, headers: { Authorization: shardCredential.authorization } }),
        { ...options, invocationLogs: invocationLogsOf('de') },
      );
      log(`  shards: ${JSON.stringify(kinds.shards)}`);
    }
    const eventsByKind = eventLines(started.flatMap(({ lines }) => lines));
    log(`  event lines of the whole run: ${JSON.stringify(eventsByKind)}`);
    return { seconds: options.seconds, connections: options.connections, kinds, eventsByKind, burst: burstFigures };
  } finally {
    for (const { deployment } of started) await deployment.dispose();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const line = parseCommandLine(process.argv.slice(2), {
    command: 'npm run bench:operations',
    usage: `usage: npm run bench:operations -- [--seconds S] [--connections N] [--shards DIR] [--json FILE]

Counts the billable operations of each kind of request under load (Durable Object calls and time,
usage writes and their rows, KV reads, R2 operations, shard calls), for docs/costs.md.
  --seconds S      measured seconds of each kind (default 5)
  --connections N  concurrent connections (default 10)
  --shards DIR     a sharded build, for a lookup through its shard Workers
  --json FILE      also write the report as JSON`,
    options: {
      seconds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '10' },
      shards: { type: 'string' },
      json: { type: 'string' },
    },
  });
  if (typeof line === 'number') process.exit(line);
  const { values } = line;
  const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-operations-'));
  try {
    const report = await countOperations(
      {
        seconds: Number(values.seconds),
        connections: Number(values.connections),
        work,
        ...(values.shards ? { shards: resolve(process.env.INIT_CWD ?? process.cwd(), values.shards) } : {}),
      },
      console.log,
    );
    if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
