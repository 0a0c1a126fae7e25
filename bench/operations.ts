/**
 * @module `npm run bench:operations`: the billable operations that each kind of request makes, counted
 * under load, for the costs (`costs.ts`, docs/costs.md). The production bundles are built with the
 * counting entry `worker/billed.js` (their bindings wrapped, the code unchanged) and loaded by autocannon
 * as the HTTP rows are; the counts before and after each kind's run, over the answers it got, give the
 * Durable Object requests and their wall time, the usage store's writes with the rows and answers they
 * carry (so the batch size under this load), KV reads, R2 operations and shard calls per request. Workers
 * Logs events are derived: one execution log per invocation of a Worker whose `observability` is on in
 * `wrangler.toml` (the app's, each Durable Object call's and each shard call's); the request path logs
 * nothing else.
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
import { DATABASE_FILE } from '../data/build.ts';
import { parseCommandLine } from '../data/command-line.ts';
import { readWranglerToml } from '../scripts/deploy/config.ts';
import { addressCycle, clientCycle } from './addresses.ts';
import { BULK_SIZE, REQUESTS_PER_CLIENT, seedPaidAccount } from './http.ts';
import { buildBundle, buildShardBundle, type Deployment, type Environment, ROOT, seedDatabase, seedShards, startDeployment } from './worker/deployment.ts';

/** The kinds of request whose operations a run counts, and `costs.ts` prices: free and paid single lookups, a paid bulk and distance, a paid lookup through shard Workers. */
type KindId = 'free' | 'paid' | 'bulk' | 'distance' | 'shards';

/** What one kind of request made over a run: totals, divided by `requests` for a request's share. */
export interface KindOperations {
  /** Answers received. */
  readonly requests: number;
  /** The free plan's rate limiter: RPC calls, and their wall time in ms (caller's view, queueing included). */
  readonly rateLimiter: { readonly calls: number; readonly ms: number };
  /** The usage store's writes: RPC calls, wall ms, SQLite rows they write, and the answers they count. */
  readonly usage: { readonly calls: number; readonly ms: number; readonly rowsWritten: number; readonly answers: number };
  readonly kvReads: number;
  readonly r2ClassA: number;
  readonly r2ClassB: number;
  /** Calls to shard Workers over service bindings. */
  readonly serviceCalls: number;
  /** Workers Logs events: the app's invocations, and each call into a Worker whose logs are on. */
  readonly logEvents: number;
  /** Whether the usage Worker's invocations are logged (its `observability` is the app's). */
  readonly usageLogged: boolean;
}

/** Everything `--json` writes. */
export interface OperationsReport {
  readonly seconds: number;
  readonly connections: number;
  readonly kinds: Partial<Record<KindId, KindOperations>>;
}

type Counts = Record<string, { calls: number; ms: number; rows: number; answers: number }>;

/** R2 methods by class (https://developers.cloudflare.com/r2/pricing/). */
const R2_CLASS_A = ['list', 'put', 'createMultipartUpload', 'uploadPart', 'completeMultipartUpload'];
const R2_CLASS_B = ['get', 'head'];

/** Whether Workers Logs are on for `environment` of `wrangler.toml` (an environment's own setting, else the top level's). */
function logsOn(environment: Environment): boolean {
  const config = readWranglerToml(join(ROOT, 'wrangler.toml')) as {
    observability?: { enabled?: boolean };
    env?: Record<string, { observability?: { enabled?: boolean } }>;
  };
  return (config.env?.[environment]?.observability ?? config.observability)?.enabled === true;
}

async function countsOf(deployment: Deployment): Promise<Counts> {
  const response = await fetch(new URL('/__bench/billed', deployment.url));
  return (await response.json()) as Counts;
}

/** `after` minus `before`, summed over the names that `match`. */
function delta(before: Counts, after: Counts, match: (name: string) => boolean): { calls: number; ms: number; rows: number; answers: number } {
  const sum = { calls: 0, ms: 0, rows: 0, answers: 0 };
  for (const [name, entry] of Object.entries(after)) {
    if (!match(name)) continue;
    const was = before[name] ?? { calls: 0, ms: 0, rows: 0, answers: 0 };
    sum.calls += entry.calls - was.calls;
    sum.ms += entry.ms - was.ms;
    sum.rows += entry.rows - was.rows;
    sum.answers += entry.answers - was.answers;
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

/** Counts one kind on `deployment`: an unmeasured second, then `seconds` measured, each followed by the last batch's write. */
async function countKind(
  deployment: Deployment,
  next: () => AutocannonRequest,
  options: { seconds: number; connections: number; logs: boolean },
): Promise<KindOperations> {
  await load(deployment, next, 1, options.connections);
  await new Promise((done) => setTimeout(done, SETTLE_MS));
  const before = await countsOf(deployment);
  const requests = await load(deployment, next, options.seconds, options.connections);
  await new Promise((done) => setTimeout(done, SETTLE_MS));
  const after = await countsOf(deployment);
  const rateLimiter = delta(before, after, (name) => name.startsWith('RATE_LIMITER.') && !name.includes('.namespace.'));
  const usage = delta(before, after, (name) => name.startsWith('USAGE.') && !name.includes('.namespace.'));
  const r2 = (methods: readonly string[]) => delta(before, after, (name) => methods.some((method) => name === `GEO_DATA.${method}`)).calls;
  const serviceCalls = delta(before, after, (name) => name.startsWith('SHARD.')).calls;
  // The app logs each invocation; so do the Worker of the rate limiter (the app itself), the usage Worker and the shard Workers, whose logs are the app's.
  const logEvents = options.logs ? requests + rateLimiter.calls + usage.calls + serviceCalls : 0;
  return {
    requests,
    rateLimiter: { calls: rateLimiter.calls, ms: rateLimiter.ms },
    usage: { calls: usage.calls, ms: usage.ms, rowsWritten: usage.rows, answers: usage.answers },
    kvReads: delta(before, after, (name) => name === 'ACCOUNTS.get' || name === 'ACCOUNTS.getWithMetadata').calls,
    r2ClassA: r2(R2_CLASS_A),
    r2ClassB: r2(R2_CLASS_B),
    serviceCalls,
    logEvents,
    usageLogged: options.logs,
  };
}

/** Runs every kind; the shards kind only with a sharded build. */
async function countOperations(
  options: { seconds: number; connections: number; shards?: string; work: string },
  log: (line: string) => void,
): Promise<OperationsReport> {
  const { work } = options;
  const started: Deployment[] = [];
  const start = async (environment: Environment, name: string, shards?: string): Promise<Deployment> => {
    const bundle = buildBundle(environment, join(work, `bundle-${name}`), 'bench/worker/billed.js');
    const count = shards ? (JSON.parse(readFileSync(join(shards, 'ipgeo.manifest.json'), 'utf8')) as { shards: unknown[] }).shards.length : 0;
    const deployment = await startDeployment(
      environment,
      bundle,
      join(work, `state-${name}`),
      shards ? { shards: { bundle: buildShardBundle(environment, join(work, `shard-${name}`), count), count } } : {},
    );
    started.push(deployment);
    if (shards) await seedShards(deployment, shards);
    else await seedDatabase(deployment, DATABASE_FILE);
    return deployment;
  };
  try {
    const address = addressCycle(20_000, 11, 12);
    const freeClient = clientCycle(REQUESTS_PER_CLIENT);
    const kinds: Partial<Record<KindId, KindOperations>> = {};
    const free = await start('free', 'free');
    kinds.free = await countKind(free, () => ({ method: 'GET', path: `/api/v1/json/${address()}`, headers: { 'CF-Connecting-IP': freeClient() } }), {
      ...options,
      logs: logsOn('free'),
    });
    log(`  free: ${JSON.stringify(kinds.free)}`);
    const paid = await start('de', 'de');
    const credential = await seedPaidAccount(paid);
    if (!('authorization' in credential)) throw new Error(credential.pending);
    const auth = { Authorization: credential.authorization };
    const json = { ...auth, 'content-type': 'application/json' };
    const paidKinds: [KindId, () => AutocannonRequest][] = [
      ['paid', () => ({ method: 'GET', path: `/api/json/${address()}`, headers: auth })],
      ['bulk', () => ({ method: 'POST', path: '/api/bulk/json', headers: json, body: JSON.stringify({ ips: Array.from({ length: BULK_SIZE }, address) }) })],
      ['distance', () => ({ method: 'POST', path: '/api/distance', headers: json, body: JSON.stringify({ from: address(), to: address() }) })],
    ];
    for (const [kind, next] of paidKinds) {
      kinds[kind] = await countKind(paid, next, { ...options, logs: logsOn('de') });
      log(`  ${kind}: ${JSON.stringify(kinds[kind])}`);
    }
    if (options.shards) {
      const sharded = await start('de', 'de-shards', options.shards);
      const shardCredential = await seedPaidAccount(sharded);
      if (!('authorization' in shardCredential)) throw new Error(shardCredential.pending);
      kinds.shards = await countKind(
        sharded,
        () => ({ method: 'GET', path: `/api/json/${address()}`, headers: { Authorization: shardCredential.authorization } }),
        { ...options, logs: logsOn('de') },
      );
      log(`  shards: ${JSON.stringify(kinds.shards)}`);
    }
    return { seconds: options.seconds, connections: options.connections, kinds };
  } finally {
    for (const deployment of started) await deployment.dispose();
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
