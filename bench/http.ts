/**
 * @module `npm run bench:http`: requests per second and latency over HTTP, against Worker bundles run
 * by workerd (through Miniflare, `worker/deployment.ts`) on loopback, loaded by autocannon.
 *
 * Three bundles run side by side, each in a workerd process of its own:
 *
 * - `lookup-only` (`worker/lookup-only.js`): the production lookup and bulk routes without the plan
 *   gate, for what the lookup path itself costs: the trivial route, single lookups in JSON and XML, and
 *   bulk lookups of 50 addresses;
 * - `free`, the production free deployment: a lookup behind the rate limiter (a Durable Object call
 *   per request); the client address (`CF-Connecting-IP`) changes every {@link REQUESTS_PER_CLIENT}
 *   requests, so that the limiter is measured, not its 429s (whose share is reported);
 * - `de`, the production paid deployment: a single and a bulk lookup behind the access check, with an
 *   API key of an account seeded into the local KV by the operator tool's own operations
 *   (`operator/`), each answer counted for the account into the usage Worker beside it (in
 *   the same workerd process, so its CPU is in the figure); a distance between two addresses, and
 *   networks by ASN (typical ASNs of every block, the Workers cache filled with every block first), the same way.
 *
 * Every row runs `--rounds` times for `--seconds` each, rows interleaved round by round, each round
 * after {@link ROUND_WARMUP_SECONDS} of the same load unmeasured; requests per second are the median
 * over rounds, latencies the percentiles of every response of every round (timed per request by
 * autocannon, in microseconds). Lookups take their addresses in turn from the
 * benchmarks' seeded sample (`addresses.ts`, five IPv4 to one IPv6), so caches see varied addresses.
 *
 *     npm run bench:http -- [--rounds 3] [--seconds 4] [--connections 10] [--rows "trivial;single JSON"] [--json FILE]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonRequest } from 'autocannon';
import { DATABASE_FILE, OUT_DIR } from '../data/build.ts';
import { parseCommandLine } from '../data/command-line.ts';
import type { KvStore } from '../operator/account-store.ts';
import { createApiKey } from '../operator/keys.ts';
import { createAccount } from '../operator/lifecycle.ts';
import { addressCycle, clientCycle } from './addresses.ts';
import { askEveryBlock, asnPaths, pathCycle } from './asns.ts';
import { median, percentile, si } from './stats.ts';
import { buildBundle, cpuSeconds, type Deployment, type Environment, seedDatabase, startDeployment } from './worker/deployment.ts';

const USAGE = `usage: npm run bench:http -- [--rounds N] [--seconds S] [--connections N] [--rows LIST] [--json FILE]

Requests per second and latency over HTTP against Worker bundles in workerd, loaded by autocannon.
  --rounds N       rounds of every row, rows interleaved (default 3)
  --seconds S      length of each round (default 4)
  --connections N  concurrent connections (default 10)
  --rows LIST      the rows to run, separated by ';', e.g. "trivial;single JSON" (default: all)
  --json FILE      also write the report as JSON`;

/** Requests a free-plan client sends before the next client takes over (the limit is 10 in 10 s). */
export const REQUESTS_PER_CLIENT = 5;
/** Addresses per bulk request. */
export const BULK_SIZE = 50;

/** The paid deployment's bulk row, beside the lookup-only one (`bulk of 50`). */
export const PAID_BULK_ROW = `paid bulk of ${BULK_SIZE}`;

/** The paid deployment's distance row: two addresses of the cycle, as docs/costs.md prices it. */
const PAID_DISTANCE_ROW = 'paid distance';

/** The paid deployment's networks-by-ASN row (`bench/asns.ts`), as docs/costs.md prices it. */
const PAID_ASN_ROW = 'paid ASN';

/** The single lookup with options (docs/hot-path.md, "The targets"): German names, six fields. */
export const OPTIONS_ROW = 'single JSON, lang and fields';
export const OPTIONS_QUERY = 'lang=de&fields=latitude,longitude,countryName,countryCode,cityName,regionName';

/** A row of bulk requests of {@link BULK_SIZE} addresses in turn from `address` to `path` (with its query). */
function bulkRow(name: string, path: string, address: () => string): RowPlan {
  return {
    name,
    bundle: 'lookup-only',
    request: `POST ${path}, ${BULK_SIZE} addresses`,
    baseline: 'trivial',
    next: () => ({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ips: Array.from({ length: BULK_SIZE }, address) }),
    }),
  };
}

/** One row's figures. */
export interface HttpRow {
  readonly name: string;
  readonly bundle: string;
  readonly request: string;
  /** Median requests per second over rounds; NaN when the row is pending. */
  readonly perSecond: number;
  /** Requests per second in each round, in order (rows interleave, so round i of two rows is close in time). */
  readonly rounds: readonly number[];
  /**
   * CPU time of the deployment's workerd process per request, in microseconds: the median over
   * rounds. Time spent waiting for a core does not count, so other work on the machine moves it less
   * than requests per second (the process also runs Miniflare's R2, KV and Durable Object simulators).
   */
  readonly cpuPerRequest: number;
  /** Latency percentiles in milliseconds. */
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  /** Share of answers that were not 2xx, and of 429s among them. */
  readonly non2xx: number;
  readonly tooMany: number;
  /** The trivial row this one is compared with. */
  readonly baseline: string;
  /** Why the row did not run, if it did not. */
  readonly pending?: string;
}

/** The whole HTTP benchmark. */
export interface HttpReport {
  readonly rounds: number;
  readonly seconds: number;
  readonly connections: number;
  readonly rows: readonly HttpRow[];
}

interface RowPlan {
  readonly name: string;
  readonly bundle: 'lookup-only' | 'free' | 'de';
  readonly request: string;
  readonly baseline: string;
  /** The requests to send, or why the row cannot run yet. */
  readonly next: (() => AutocannonRequest) | { pending: string };
}

interface Samples {
  perSecond: number[];
  /** CPU microseconds per request of each round. */
  cpu: number[];
  latencies: number[];
  total: number;
  non2xx: number;
  tooMany: number;
}

/** Sends load for `seconds` and collects every response's status and latency. */
function load(deployment: Deployment, next: () => AutocannonRequest, seconds: number, connections: number, samples?: Samples): Promise<void> {
  const cpuBefore = cpuSeconds(deployment.pid);
  return new Promise((done, fail) => {
    const instance = autocannon(
      {
        url: deployment.url.href,
        connections,
        duration: seconds,
        timeout: 10,
        requests: [{ setupRequest: (request) => ({ ...request, ...next() }) }],
      },
      (error, result) => {
        if (error) return fail(error);
        if (samples) {
          samples.perSecond.push(result.requests.average);
          samples.cpu.push(((cpuSeconds(deployment.pid) - cpuBefore) * 1e6) / result.requests.total);
          if (result.errors + result.timeouts > 0) console.warn(`  ${result.errors} errors, ${result.timeouts} timeouts`);
        }
        done();
      },
    );
    if (samples) {
      instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
        samples.latencies.push(ms);
        samples.total++;
        if (status < 200 || status > 299) samples.non2xx++;
        if (status === 429) samples.tooMany++;
      });
    }
  });
}

/** Seeds an account with an API key on the paid deployment: its credential, or why there is none yet. */
export async function seedPaidAccount(paid: Deployment): Promise<{ authorization: string } | { pending: string }> {
  try {
    const kv = (await paid.miniflare.getKVNamespace('ACCOUNTS', 'bench-de')) as unknown as KvStore;
    const account = `bench-${Date.now().toString(36)}`;
    await createAccount(kv, account);
    const { key } = await createApiKey(kv, account);
    const authorization = `Bearer ${key}`;
    const response = await fetch(new URL('/api/json/8.8.8.8', paid.url), { headers: { Authorization: authorization } });
    await response.arrayBuffer();
    if (response.status !== 200) return { pending: `a seeded API key is answered ${response.status}` };
    return { authorization };
  } catch (error) {
    return { pending: `no account could be seeded (${(error as Error).message})` };
  }
}

/**
 * Unmeasured load before each measured round of a row. Rows interleave, and a row's first half second
 * is slower than the rest: the load generator's connections start, and a lookup row that follows the
 * trivial route (and the other deployments' rows) finds its data out of the processor's caches. With
 * counts per half second (six rounds in this file's order), the single JSON row's first half second
 * ran at 82% of its later rate and the single XML row's, which follows it, at 100%; so XML, which does
 * more work, measured faster than JSON. Each row is measured in its steady state instead.
 */
export const ROUND_WARMUP_SECONDS = 0.5;

/**
 * Runs the benchmark.
 *
 * @param work a scratch directory for bundles and local storage.
 */
async function benchHttp(
  options: { rounds?: number; seconds?: number; connections?: number; rows?: readonly string[]; work: string },
  log: (line: string) => void = () => {},
): Promise<HttpReport> {
  const rounds = options.rounds ?? 3;
  const seconds = options.seconds ?? 4;
  const connections = options.connections ?? 10;
  const { work } = options;
  const bundles: Record<RowPlan['bundle'], [Environment, string]> = {
    'lookup-only': ['de', buildBundle('de', join(work, 'bundle-lookup-only'), 'bench/worker/lookup-only.js')],
    free: ['free', buildBundle('free', join(work, 'bundle-free'))],
    de: ['de', buildBundle('de', join(work, 'bundle-de'))],
  };
  const deployments = {} as Record<RowPlan['bundle'], Deployment>;
  try {
    for (const [name, [environment, bundle]] of Object.entries(bundles) as [RowPlan['bundle'], [Environment, string]][]) {
      const deployment = await startDeployment(environment, bundle, join(work, `state-${name}`));
      deployments[name] = deployment;
      await seedDatabase(deployment, DATABASE_FILE);
      log(`  ${name}: workerd pid ${deployment.pid} on ${deployment.url.host}`);
    }
    const credential = await seedPaidAccount(deployments.de);
    const address = addressCycle(20_000, 11, 12);
    const freeClient = clientCycle(REQUESTS_PER_CLIENT);
    const asns = asnPaths(OUT_DIR);
    const typicalAsn = pathCycle(asns.typical);
    const get = (path: string, headers: Record<string, string> = {}): AutocannonRequest => ({ method: 'GET', path, headers });
    const plans: RowPlan[] = [
      { name: 'trivial', bundle: 'lookup-only', request: 'GET /health', baseline: 'trivial', next: () => get('/health') },
      { name: 'single JSON', bundle: 'lookup-only', request: 'GET /api/json/{ip}', baseline: 'trivial', next: () => get(`/api/json/${address()}`) },
      { name: 'single XML', bundle: 'lookup-only', request: 'GET /api/xml/{ip}', baseline: 'trivial', next: () => get(`/api/xml/${address()}`) },
      {
        name: OPTIONS_ROW,
        bundle: 'lookup-only',
        request: `GET /api/json/{ip}?${OPTIONS_QUERY}`,
        baseline: 'trivial',
        next: () => get(`/api/json/${address()}?${OPTIONS_QUERY}`),
      },
      bulkRow(`bulk of ${BULK_SIZE}`, '/api/bulk/json', address),
      bulkRow(`bulk of ${BULK_SIZE}, lang=ja`, '/api/bulk/json?lang=ja', address),
      { name: 'trivial (free)', bundle: 'free', request: 'GET /health', baseline: 'trivial (free)', next: () => get('/health') },
      {
        name: 'free-plan lookup',
        bundle: 'free',
        request: `GET /api/v1/json/{ip}, rate limiter (Durable Object), a new client every ${REQUESTS_PER_CLIENT} requests`,
        baseline: 'trivial (free)',
        next: () => get(`/api/v1/json/${address()}`, { 'CF-Connecting-IP': freeClient() }),
      },
      { name: 'trivial (paid)', bundle: 'de', request: 'GET /health', baseline: 'trivial (paid)', next: () => get('/health') },
      {
        name: 'paid lookup',
        bundle: 'de',
        request: 'GET /api/json/{ip}, access check (API key), usage counted',
        baseline: 'trivial (paid)',
        next:
          'authorization' in credential ? () => get(`/api/json/${address()}`, { Authorization: credential.authorization }) : { pending: credential.pending },
      },
      {
        name: PAID_BULK_ROW,
        bundle: 'de',
        request: `POST /api/bulk/json, ${BULK_SIZE} addresses, access check (API key), usage counted`,
        baseline: 'trivial (paid)',
        next:
          'authorization' in credential
            ? () => ({
                method: 'POST',
                path: '/api/bulk/json',
                headers: { 'content-type': 'application/json', Authorization: credential.authorization },
                body: JSON.stringify({ ips: Array.from({ length: BULK_SIZE }, address) }),
              })
            : { pending: credential.pending },
      },
      {
        name: PAID_ASN_ROW,
        bundle: 'de',
        request: 'GET /api/asn/{asn}, a typical ASN (a few dozen prefixes) of any block, from the Workers cache, access check (API key), usage counted',
        baseline: 'trivial (paid)',
        next: 'authorization' in credential ? () => get(typicalAsn(), { Authorization: credential.authorization }) : { pending: credential.pending },
      },
      {
        name: PAID_DISTANCE_ROW,
        bundle: 'de',
        request: 'POST /api/distance, two addresses, access check (API key), usage counted',
        baseline: 'trivial (paid)',
        next:
          'authorization' in credential
            ? () => ({
                method: 'POST',
                path: '/api/distance',
                headers: { 'content-type': 'application/json', Authorization: credential.authorization },
                body: JSON.stringify({ from: address(), to: address() }),
              })
            : { pending: credential.pending },
      },
    ];
    if (options.rows) plans.splice(0, plans.length, ...plans.filter((plan) => options.rows?.includes(plan.name)));
    // Every block of the ASN object in the Workers cache first, as a location long in use has them.
    if ('authorization' in credential && plans.some((plan) => plan.name === PAID_ASN_ROW))
      await askEveryBlock(deployments.de.url, credential.authorization, asns);
    const samples = plans.map((): Samples => ({ perSecond: [], cpu: [], latencies: [], total: 0, non2xx: 0, tooMany: 0 }));
    // Warm every row once (isolates, the database, JIT), unmeasured.
    for (const plan of plans) {
      if (typeof plan.next === 'function') await load(deployments[plan.bundle], plan.next, 1, connections);
    }
    for (let round = 0; round < rounds; round++) {
      for (const [index, plan] of plans.entries()) {
        if (typeof plan.next !== 'function') continue;
        await load(deployments[plan.bundle], plan.next, ROUND_WARMUP_SECONDS, connections);
        await load(deployments[plan.bundle], plan.next, seconds, connections, samples[index]);
        log(
          `  round ${round + 1}/${rounds} ${plan.name}: ${si(samples[index]?.perSecond.at(-1) ?? Number.NaN)} requests/s, ${(samples[index]?.cpu.at(-1) ?? Number.NaN).toFixed(0)} µs CPU each`,
        );
      }
    }
    const rows = plans.map((plan, index): HttpRow => {
      const s = samples[index] as Samples;
      const latencies = Float64Array.from(s.latencies);
      return {
        name: plan.name,
        bundle: plan.bundle,
        request: plan.request,
        perSecond: median(s.perSecond),
        rounds: s.perSecond,
        cpuPerRequest: median(s.cpu),
        p50: percentile(latencies, 50),
        p90: percentile(latencies, 90),
        p99: percentile(latencies, 99),
        non2xx: s.total ? s.non2xx / s.total : Number.NaN,
        tooMany: s.total ? s.tooMany / s.total : Number.NaN,
        baseline: plan.baseline,
        ...(typeof plan.next === 'function' ? {} : { pending: plan.next.pending }),
      };
    });
    return { rounds, seconds, connections, rows };
  } finally {
    for (const deployment of Object.values(deployments)) await deployment.dispose();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const line = parseCommandLine(process.argv.slice(2), {
    command: 'npm run bench:http',
    usage: USAGE,
    options: {
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '4' },
      connections: { type: 'string', default: '10' },
      rows: { type: 'string' },
      json: { type: 'string' },
    },
  });
  if (typeof line === 'number') process.exit(line);
  const { values } = line;
  const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-http-'));
  try {
    const report = await benchHttp(
      {
        rounds: Number(values.rounds),
        seconds: Number(values.seconds),
        connections: Number(values.connections),
        work,
        ...(values.rows ? { rows: values.rows.split(';') } : {}),
      },
      console.log,
    );
    const base = new Map(report.rows.map((row) => [row.name, row.perSecond]));
    for (const row of report.rows) {
      const ratio = row.perSecond / (base.get(row.baseline) ?? Number.NaN);
      console.log(
        `${row.name.padEnd(18)} ${row.pending ? `pending: ${row.pending}` : `${si(row.perSecond).padStart(8)} req/s  CPU ${row.cpuPerRequest.toFixed(0)} µs/request  p50 ${row.p50.toFixed(2)} ms  p99 ${row.p99.toFixed(2)} ms  ${(ratio * 100).toFixed(0)}% of ${row.baseline}  non-2xx ${(row.non2xx * 100).toFixed(1)}%`}`,
      );
    }
    if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
