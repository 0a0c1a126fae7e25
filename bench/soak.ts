/**
 * @module `npm run bench:soak`: a bounded run of mixed traffic on both plans that reports, every
 * interval, requests, answers by status, p50/p99/max latency and each isolate's memory, and fails if
 * any answer is a 5xx or if an isolate's memory keeps growing once its caches have filled.
 *
 *     npm run bench:soak -- [--seconds 300] [--interval 30] [--connections 24] [--plans free,paid]
 *                           [--inspector-ports 9393,9394]
 *     npm run bench:soak -- --plans paid --paid-url http://127.0.0.1:8788 --key ipgeo_… --ip 203.0.113.7 --origin https://app.example.com
 *
 * By default each plan runs in a workerd process of its own through Miniflare (`worker/deployment.ts`,
 * the bundle `wrangler deploy` would upload), seeded with the database and one paid account that has
 * an API key, a whitelisted address and a whitelisted hostname. With `--paid-url` (and `--free-url`)
 * the traffic goes to servers that are already running, e.g. `wrangler dev`, with the credentials
 * given; their memory is then not read.
 *
 * Traffic, `--connections` keep-alive connections per plan:
 *
 * - paid: single lookups in JSON and XML by key, by whitelisted address and by whitelisted origin in
 *   turn, bulk lookups of 10, distances, reference data, a preflight, and a few refusals (a key that
 *   fails its checksum, an unknown checksummed key, an origin no account whitelists);
 * - free: single lookups in JSON and XML, the country codes, and a few 400s (an invalid and a reserved
 *   address), from {@link FREE_CLIENTS} client addresses in turn (each mostly within its limits; any 429
 *   is reported, and is no failure).
 *
 * Addresses come from a fixed cycle of {@link ADDRESS_POOL} (`addresses.ts`), so that the lookup caches
 * reach their steady state within the warm-up, and made-up origins from a pool of {@link MADE_UP_POOL},
 * which fills an absent-entry cache of the access check. Memory is read after
 * each interval as `bench:memory` reads it (heap in use after a forced collection, plus array
 * buffers). The run fails when the last reading is more than {@link GROWTH_LIMIT} above the reading
 * at the end of the warm-up (the first {@link WARM_UP_SECONDS} s, or half of a shorter run).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon, { type AutocannonRequest } from 'autocannon';
import { DATABASE_FILE } from '../data/build.ts';
import { commandLineError, parseCommandLine } from '../data/command-line.ts';
import { createApiKey } from '../operator/keys.ts';
import { createAccount } from '../operator/lifecycle.ts';
import { allowDomain, allowIp } from '../operator/whitelists.ts';
import { generateApiKey } from '../src/access/api-key.ts';
import { addressCycle } from './addresses.ts';
import { mib, percentile } from './stats.ts';
import { buildBundle, type Deployment, type Environment, seedDatabase, startDeployment, workerName } from './worker/deployment.ts';
import { Inspector } from './worker/inspector.ts';

const USAGE = `usage: npm run bench:soak -- [--seconds S] [--interval S] [--connections N] [--plans free,paid] [--inspector-ports P,Q]
       npm run bench:soak -- --plans paid --paid-url URL --key KEY --ip IP --origin ORIGIN

A bounded run of mixed traffic on both plans; fails on any 5xx, or on an isolate whose memory keeps growing.
  --seconds S            length of the run (default 300)
  --interval S           reporting interval (default 30)
  --connections N        keep-alive connections per plan (default 24)
  --plans LIST           free, paid or both, comma-separated (default free,paid)
  --inspector-ports P,Q  inspector ports of the free and the paid workerd process (default 9393,9394)
  --free-url URL         send the free traffic to a server already running (its memory is not read)
  --paid-url URL         the same for the paid traffic, with the credentials below
  --key KEY              an API key of an account on --paid-url
  --ip IP                an address that account whitelists
  --origin ORIGIN        an origin that account whitelists`;

/** Distinct addresses looked up (five IPv4 for each IPv6). */
const ADDRESS_POOL = 12_000;
/** Distinct free-plan client addresses. */
const FREE_CLIENTS = 2_000;
/** Distinct made-up origins: few enough that the absent-entry cache fills within the warm-up. */
const MADE_UP_POOL = 1_000;
/** Seconds of warm-up before memory must stay flat (or half of a shorter run). */
const WARM_UP_SECONDS = 60;
/** How much an isolate may grow after the warm-up before the run fails. */
const GROWTH_LIMIT = 4 * 2 ** 20;

const line = parseCommandLine(process.argv.slice(2), {
  command: 'npm run bench:soak',
  usage: USAGE,
  options: {
    seconds: { type: 'string', default: '300' },
    interval: { type: 'string', default: '30' },
    connections: { type: 'string', default: '24' },
    plans: { type: 'string', default: 'free,paid' },
    'inspector-ports': { type: 'string', default: '9393,9394' },
    'paid-url': { type: 'string' },
    'free-url': { type: 'string' },
    key: { type: 'string' },
    ip: { type: 'string' },
    origin: { type: 'string' },
  },
});
if (typeof line === 'number') process.exit(line);
const { values } = line;
if (values['paid-url'] && !(values.key && values.ip && values.origin)) {
  process.exit(commandLineError('npm run bench:soak', '--paid-url needs --key, --ip and --origin'));
}
const SECONDS = Number(values.seconds);
const INTERVAL = Math.min(Number(values.interval), SECONDS);
const CONNECTIONS = Number(values.connections);
const PLANS = (values.plans as string).split(',').filter((plan): plan is 'free' | 'paid' => plan === 'free' || plan === 'paid');

/** The credentials of the paid traffic. */
interface Credentials {
  readonly key: string;
  readonly ip: string;
  readonly origin: string;
}

/** One plan under load: where it answers, and how to read its isolate's memory (none for outside servers). */
interface Target {
  readonly plan: 'free' | 'paid';
  readonly url: URL;
  readonly next: () => AutocannonRequest;
  readonly memory?: () => Promise<number>;
}

/** What one interval of one plan gave. */
interface IntervalReport {
  readonly requests: number;
  readonly statuses: Record<string, number>;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly memory?: number;
}

function paidTraffic(credentials: Credentials): () => AutocannonRequest {
  const address = addressCycle(ADDRESS_POOL / 6, 41, 42);
  let n = 0;
  const madeUpKeys = Array.from({ length: 64 }, () => generateApiKey());
  return () => {
    n++;
    const headers: Record<string, string> = { 'CF-Connecting-IP': '198.51.100.200' };
    const via = n % 3;
    if (via === 0) headers.Authorization = `Bearer ${credentials.key}`;
    else if (via === 1) headers['CF-Connecting-IP'] = credentials.ip;
    else headers.Origin = credentials.origin;
    const kind = n % 40;
    if (kind === 7) return { method: 'POST', path: '/api/bulk/json', headers: { ...headers, 'Content-Type': 'application/json' }, body: bulkBody(address) };
    if (kind === 13) {
      return {
        method: 'POST',
        path: '/api/distance',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ from: address(), to: address() }),
      };
    }
    if (kind === 17) return { method: 'GET', path: '/api/countries/DE', headers };
    if (kind === 19) return { method: 'GET', path: '/api/timezones/Europe/Berlin', headers };
    if (kind === 23) {
      return { method: 'OPTIONS', path: '/api/bulk/json', headers: { Origin: credentials.origin, 'Access-Control-Request-Method': 'POST' } };
    }
    // Refusals: a key that fails its checksum, an unknown key (from a small pool, then also from a large one), an unknown origin.
    if (kind === 29) return { method: 'GET', path: '/api/json/8.8.8.8', headers: { Authorization: `Bearer ipgeo_${'x'.repeat(49)}` } };
    if (kind === 31) return { method: 'GET', path: '/api/json/8.8.8.8', headers: { Authorization: `Bearer ${madeUpKeys[n % madeUpKeys.length]}` } };
    if (kind === 37) return { method: 'GET', path: '/api/json/8.8.8.8', headers: { Origin: `https://site-${n % MADE_UP_POOL}.made-up.example` } };
    return { method: 'GET', path: `/api/${n % 4 === 0 ? 'xml' : 'json'}/${address()}`, headers };
  };
}

function bulkBody(address: () => string): string {
  return JSON.stringify({ ips: Array.from({ length: 10 }, address) });
}

function freeTraffic(): () => AutocannonRequest {
  const address = addressCycle(ADDRESS_POOL / 6, 51, 52);
  let n = 0;
  return () => {
    n++;
    const headers = { 'CF-Connecting-IP': `11.0.${(n % FREE_CLIENTS) >> 8}.${(n % FREE_CLIENTS) & 0xff}` };
    const kind = n % 25;
    if (kind === 3) return { method: 'GET', path: '/api/v1/countrycodes', headers };
    if (kind === 5) return { method: 'GET', path: '/api/v1/json/999.1.2.3', headers };
    if (kind === 7) return { method: 'GET', path: '/api/v1/json/10.1.2.3', headers };
    return { method: 'GET', path: `/api/v1/${n % 4 === 0 ? 'xml' : 'json'}/${address()}`, headers };
  };
}

/** Runs `seconds` of traffic on one target and reports it. */
function runInterval(target: Target, seconds: number): Promise<Omit<IntervalReport, 'memory'>> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { url: target.url.href, connections: CONNECTIONS, duration: seconds, requests: [{ setupRequest: (request) => ({ ...request, ...target.next() }) }] },
      (error, result) => {
        if (error) return reject(error);
        if (result.errors > 0) statuses.socket = result.errors;
        if (result.timeouts > 0) statuses.timeout = result.timeouts;
        resolve({
          requests: latencies.length,
          statuses,
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          max: latencies.reduce((a, b) => Math.max(a, b), 0),
        });
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      latencies.push(ms);
    });
  });
}

/** The isolate's memory as `bench:memory` reads it: heap in use after a forced collection, plus array buffers. */
async function memoryReader(port: number, deployment: Deployment): Promise<{ read: () => Promise<number>; close: () => void }> {
  const inspector = await Inspector.connect(port, workerName(deployment.environment));
  await inspector.send('HeapProfiler.enable');
  return {
    read: async () => {
      await sleep(500);
      await inspector.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      const heap = await inspector.send<{ usedSize: number; backingStorageSize: number }>('Runtime.getHeapUsage');
      return heap.usedSize + heap.backingStorageSize;
    },
    close: () => inspector.close(),
  };
}

async function seedAccount(deployment: Deployment): Promise<Credentials> {
  const kv = await deployment.miniflare.getKVNamespace('ACCOUNTS', workerName(deployment.environment));
  await createAccount(kv, 'soak');
  const { key } = await createApiKey(kv, 'soak');
  await allowIp(kv, 'soak', '203.0.113.7');
  await allowDomain(kv, 'soak', 'app.soak.example');
  return { key, ip: '203.0.113.7', origin: 'https://app.soak.example' };
}

async function main(): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-soak-'));
  const cleanup: (() => unknown)[] = [() => rmSync(work, { recursive: true, force: true })];
  try {
    const targets: Target[] = [];
    const ports = (values['inspector-ports'] as string).split(',').map(Number);
    for (const [i, plan] of PLANS.entries()) {
      const outside = plan === 'paid' ? values['paid-url'] : values['free-url'];
      if (outside) {
        const credentials = { key: values.key ?? '', ip: values.ip ?? '', origin: values.origin ?? '' };
        targets.push({ plan, url: new URL(outside), next: plan === 'paid' ? paidTraffic(credentials) : freeTraffic() });
        continue;
      }
      const environment: Environment = plan === 'paid' ? 'de' : 'free';
      const bundle = buildBundle(environment, join(work, `bundle-${environment}`));
      const deployment = await startDeployment(environment, bundle, join(work, `state-${environment}`), { inspectorPort: ports[i] ?? 9393 + i });
      cleanup.unshift(() => deployment.dispose());
      await seedDatabase(deployment, DATABASE_FILE);
      const credentials = plan === 'paid' ? await seedAccount(deployment) : undefined;
      const memory = await memoryReader(ports[i] ?? 9393 + i, deployment);
      cleanup.unshift(memory.close);
      targets.push({ plan, url: deployment.url, next: credentials ? paidTraffic(credentials) : freeTraffic(), memory: memory.read });
    }

    console.log(`soak: ${SECONDS} s of ${targets.map((t) => t.plan).join(' and ')} traffic, ${CONNECTIONS} connections each, a report every ${INTERVAL} s`);
    const reports = new Map<string, IntervalReport[]>(targets.map((target) => [target.plan, []]));
    for (let elapsed = 0; elapsed < SECONDS; elapsed += INTERVAL) {
      const seconds = Math.min(INTERVAL, SECONDS - elapsed);
      const results = await Promise.all(targets.map((target) => runInterval(target, seconds)));
      for (const [i, target] of targets.entries()) {
        const memory = target.memory ? await target.memory() : undefined;
        const report = { ...(results[i] as Omit<IntervalReport, 'memory'>), ...(memory === undefined ? {} : { memory }) };
        reports.get(target.plan)?.push(report);
        console.log(
          `${String(elapsed + seconds).padStart(4)} s ${target.plan.padEnd(4)} ${String(report.requests).padStart(7)} requests  ` +
            `${Object.entries(report.statuses)
              .map(([status, count]) => `${status}:${count}`)
              .join(' ')}  p50 ${report.p50.toFixed(1)} ms  p99 ${report.p99.toFixed(1)} ms  max ${report.max.toFixed(1)} ms` +
            (memory === undefined ? '' : `  isolate ${mib(memory)}`),
        );
      }
    }

    let failed = false;
    const warmUpIntervals = Math.max(1, Math.floor(Math.min(WARM_UP_SECONDS, SECONDS / 2) / INTERVAL));
    for (const [plan, list] of reports) {
      const errors = list.reduce(
        (sum, r) => sum + Object.entries(r.statuses).reduce((s, [status, n]) => s + (Number(status) >= 500 || Number.isNaN(Number(status)) ? n : 0), 0),
        0,
      );
      const total = list.reduce((sum, r) => sum + r.requests, 0);
      const memories = list.map((r) => r.memory).filter((m): m is number => m !== undefined);
      const warm = memories[warmUpIntervals - 1];
      const last = memories.at(-1);
      const growth = warm !== undefined && last !== undefined && memories.length > warmUpIntervals ? last - warm : undefined;
      console.log(
        `${plan}: ${total} requests, ${errors} 5xx or failed` +
          (growth === undefined
            ? ''
            : `, isolate ${mib(warm as number)} after the warm-up, ${mib(last as number)} at the end (${growth >= 0 ? '+' : ''}${mib(growth)})`),
      );
      if (errors > 0) failed = true;
      if (growth !== undefined && growth > GROWTH_LIMIT) {
        console.log(`${plan}: FAIL, memory grew by more than ${mib(GROWTH_LIMIT)} after the warm-up`);
        failed = true;
      }
    }
    console.log(failed ? 'soak: FAILED' : 'soak: passed');
    return failed ? 1 : 0;
  } finally {
    for (const step of cleanup) await step();
  }
}

process.exitCode = await main();
