/**
 * @module `npm run bench:access`: the latency that the plan gate adds to a request: the free plan's
 * rate-limit check (a Durable Object call) and the paid plans' access check (KV reads behind a
 * per-isolate cache), each warm and cold.
 *
 *     npm run bench:access -- [--samples 300] [--timeout 180]
 *
 * How: the Worker is bundled as `wrangler deploy --dry-run` does, and the `free` and `de` deployments
 * each run in a workerd process of their own through Miniflare (`bench/worker/deployment.ts`), with
 * local KV and Durable Objects, served on a loopback socket without a proxy in front. Requests go one
 * at a time from Node over keep-alive HTTP. Every measured request ends in the same handler (the
 * app's 404), so that the differences are the gate's work alone:
 *
 * - baseline: `GET /nothing` on the paid deployment (outside `/api/`: no gate work at all);
 * - rate limit: `GET /api/v1/nothing` on the free deployment; cold = the first request of a client
 *   (its Durable Object is created), warm = its 2nd to 10th request (the object is in memory);
 * - access: `GET /api/nothing` on the paid deployment with an API key, a whitelisted address, or a
 *   whitelisted origin; cold = a credential the isolate has not seen (KV reads), warm = one it has.
 *
 * Local KV and Durable Objects live in the same workerd process, so "cold" here is the cost of the
 * code path and of local storage, not the network latency of KV or of a distant Durable Object in
 * production. The run is bounded by `--timeout` seconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommandLine } from '../data/command-line.ts';
import type { KvStore } from '../operator/account-store.ts';
import { createApiKey } from '../operator/keys.ts';
import { createAccount } from '../operator/lifecycle.ts';
import { allowDomain, allowIp } from '../operator/whitelists.ts';
import { buildBundle, type Deployment, startDeployment } from './worker/deployment.ts';

const USAGE = `usage: npm run bench:access -- [--samples N] [--timeout S]

The latency that the plan gate adds: the free plan's rate-limit check and the paid plans' access check, warm and cold.
  --samples N  requests measured of each kind (default 300)
  --timeout S  bound of the whole run in seconds (default 180)`;

const line = parseCommandLine(process.argv.slice(2), {
  command: 'npm run bench:access',
  usage: USAGE,
  options: { samples: { type: 'string', default: '300' }, timeout: { type: 'string', default: '180' } },
});
if (typeof line === 'number') process.exit(line);
const { values } = line;
const SAMPLES = Number(values.samples);
const TIMEOUT_SECONDS = Number(values.timeout);
/** Requests per free client: all admitted (the burst quota is 10). */
const PER_CLIENT = 10;

/** Milliseconds one request takes, body read; throws unless the answer has the expected status. */
async function timed(url: URL, headers: Record<string, string>, status: number): Promise<number> {
  const start = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  const elapsed = performance.now() - start;
  if (response.status !== status) throw new Error(`${url.pathname}: HTTP ${response.status}, expected ${status}`);
  return elapsed;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** Median and 90th percentile of samples, in ms. */
function stats(samples: readonly number[]): { median: number; p90: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) };
}

/**
 * Accounts for the cold samples: `count` with one API key each, `count` with one whitelisted address,
 * `count` with one whitelisted hostname, so that every cold sample reads both its index entry and its
 * account from KV.
 */
async function seedAccounts(kv: KvStore, count: number): Promise<{ keys: string[]; ips: string[]; origins: string[] }> {
  const keys: string[] = [];
  const ips: string[] = [];
  const origins: string[] = [];
  for (let i = 0; i < count; i++) {
    await createAccount(kv, `bench-key-${i}`);
    keys.push((await createApiKey(kv, `bench-key-${i}`)).key);
    // Public addresses: allow-ip refuses private-use ones (no server sends from them).
    const ip = `11.${(i >> 8) & 255}.${i & 255}.1`;
    await createAccount(kv, `bench-ip-${i}`);
    await allowIp(kv, `bench-ip-${i}`, ip);
    ips.push(ip);
    await createAccount(kv, `bench-origin-${i}`);
    await allowDomain(kv, `bench-origin-${i}`, `site-${i}.bench.example`);
    origins.push(`https://site-${i}.bench.example`);
  }
  return { keys, ips, origins };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-access-'));
  const deadline = setTimeout(() => {
    console.error(`bench:access: over ${TIMEOUT_SECONDS} s, stopping.`);
    rmSync(work, { recursive: true, force: true });
    process.exit(1);
  }, TIMEOUT_SECONDS * 1000);
  const deployments: Deployment[] = [];
  try {
    const free = await startDeployment('free', buildBundle('free', join(work, 'free')), join(work, 'state-free'));
    deployments.push(free);
    const paid = await startDeployment('de', buildBundle('de', join(work, 'de')), join(work, 'state-de'));
    deployments.push(paid);
    const kv = (await paid.miniflare.getKVNamespace('ACCOUNTS', 'bench-de')) as unknown as KvStore;
    const seeded = await seedAccounts(kv, SAMPLES + 1);
    const at = (deployment: Deployment, path: string) => new URL(path, deployment.url);

    // Warm both isolates (module evaluation, the first Durable Object, the first KV read).
    for (let i = 0; i < 20; i++) await timed(at(paid, '/nothing'), {}, 404);
    await timed(at(free, '/api/v1/nothing'), { 'CF-Connecting-IP': '192.0.2.1' }, 404);
    await timed(at(paid, '/api/nothing'), { Authorization: `Bearer ${seeded.keys[SAMPLES]}` }, 404);

    const samples: Record<string, number[]> = {
      baseline: [],
      rateCold: [],
      rateWarm: [],
      keyCold: [],
      keyWarm: [],
      ipCold: [],
      ipWarm: [],
      originCold: [],
      originWarm: [],
    };
    const push = (name: string, ms: number) => samples[name]?.push(ms);
    for (let i = 0; i < SAMPLES; i++) {
      push('baseline', await timed(at(paid, '/nothing'), {}, 404));

      const client = { 'CF-Connecting-IP': `198.18.${(i >> 8) & 255}.${i & 255}` };
      push('rateCold', await timed(at(free, '/api/v1/nothing'), client, 404));
      // Nine more of this client's ten admitted requests; one of them is sampled, as the others are.
      const warm: number[] = [];
      for (let j = 1; j < PER_CLIENT; j++) warm.push(await timed(at(free, '/api/v1/nothing'), client, 404));
      push('rateWarm', warm[i % warm.length] ?? Number.NaN);

      const key = { Authorization: `Bearer ${seeded.keys[i]}` };
      const ip = { 'CF-Connecting-IP': seeded.ips[i] ?? '' };
      const origin = { Origin: seeded.origins[i] ?? '', 'CF-Connecting-IP': '198.51.100.1' };
      push('keyCold', await timed(at(paid, '/api/nothing'), key, 404));
      push('keyWarm', await timed(at(paid, '/api/nothing'), key, 404));
      push('ipCold', await timed(at(paid, '/api/nothing'), ip, 404));
      push('ipWarm', await timed(at(paid, '/api/nothing'), ip, 404));
      push('originCold', await timed(at(paid, '/api/nothing'), origin, 404));
      push('originWarm', await timed(at(paid, '/api/nothing'), origin, 404));
    }

    const base = stats(samples.baseline ?? []);
    const rows: [string, string][] = [
      ['baseline: paid GET /nothing (no gate)', 'baseline'],
      ['rate limit, cold (new Durable Object)', 'rateCold'],
      ['rate limit, warm', 'rateWarm'],
      ['access by API key, cold (2 KV reads)', 'keyCold'],
      ['access by API key, warm (cached)', 'keyWarm'],
      ['access by server IP, cold (2 KV reads)', 'ipCold'],
      ['access by server IP, warm (cached)', 'ipWarm'],
      ['access by origin, cold (2 KV reads)', 'originCold'],
      ['access by origin, warm (cached)', 'originWarm'],
    ];
    console.log(
      `Worker bundles in workerd via Miniflare on ${free.url.host} (free) and ${paid.url.host} (de); Node ${process.version}; ${SAMPLES} samples each.`,
    );
    console.log(
      `${''.padEnd(42)}${'median'.padStart(9)}${'p90'.padStart(9)}${'+median'.padStart(9)}${'+p90'.padStart(9)}   (milliseconds; + is over the baseline)`,
    );
    const cell = (value: number) => value.toFixed(3).padStart(9);
    for (const [label, name] of rows) {
      const { median, p90 } = stats(samples[name] ?? []);
      const added = name === 'baseline' ? '' : `${cell(median - base.median)}${cell(p90 - base.p90)}`;
      console.log(`${label.padEnd(42)}${cell(median)}${cell(p90)}${added}`);
    }
  } finally {
    clearTimeout(deadline);
    for (const deployment of deployments) await deployment.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
