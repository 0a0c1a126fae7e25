/**
 * @module `npm run bench:bulk`: the latency of one 50-address bulk request against single lookups,
 * measured over HTTP against the paid Worker running locally in workerd.
 *
 *     npm run bench:bulk -- [--rounds 200] [--timeout 180]
 *
 * How: the `de` deployment is bundled as `wrangler deploy --dry-run` does and run in workerd through
 * Miniflare (`bench/worker/deployment.ts`, with the usage Worker beside it), on a throwaway state
 * directory that gets the compiled database in its local R2 bucket and an account with an API key in
 * its local KV (the operator tool's own operations), served on 127.0.0.1. After a warm-up (the first request loads the database), each round sends, in turn, one
 * `GET /api/json/{ip}`, one `POST /api/bulk/json` with 50 addresses, one `POST /api/bulk/xml` with the
 * same 50, and the same 50 as sequential single lookups. Addresses are the benchmarks' seeded sample
 * (`bench/addresses.ts`): IPv4 and IPv6, every round different. Medians and 90th percentiles are
 * printed in milliseconds. The whole run is bounded by `--timeout` seconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASE_FILE } from '../data/build.ts';
import { parseCommandLine } from '../data/command-line.ts';
import { randomIpv4, randomIpv6 } from './addresses.ts';
import { seedPaidAccount } from './http.ts';
import { buildBundle, type Deployment, seedDatabase, startDeployment } from './worker/deployment.ts';

const USAGE = `usage: npm run bench:bulk -- [--rounds N] [--timeout S]

The latency of one 50-address bulk request against single lookups, over HTTP against the paid Worker.
  --rounds N   rounds (default 200)
  --timeout S  bound of the whole run in seconds (default 180)`;

const line = parseCommandLine(process.argv.slice(2), {
  command: 'npm run bench:bulk',
  usage: USAGE,
  options: { rounds: { type: 'string', default: '200' }, timeout: { type: 'string', default: '180' } },
});
if (typeof line === 'number') process.exit(line);
const { values } = line;
const ROUNDS = Number(values.rounds);
const TIMEOUT_SECONDS = Number(values.timeout);
const BATCH = 50;
const WARM_UP = 10;
const ENVIRONMENT = 'de';

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function summary(name: string, samples: number[], perAddress = 1): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = quantile(sorted, 0.5);
  const cell = (value: number) => value.toFixed(2).padStart(9);
  return `${name.padEnd(34)}${cell(median)}${cell(quantile(sorted, 0.9))}${cell(median / perAddress)}`;
}

/** Statuses that are answers: a sampled address may be one the data does not cover (404). */
const ANSWERS = new Set([200, 404]);

async function timed(request: () => Promise<Response>): Promise<number> {
  const start = performance.now();
  const response = await request();
  await response.arrayBuffer();
  const elapsed = performance.now() - start;
  if (!ANSWERS.has(response.status)) throw new Error(`HTTP ${response.status} from the Worker`);
  return elapsed;
}

async function main(): Promise<void> {
  const state = mkdtempSync(join(tmpdir(), 'ipgeo-bench-bulk-'));
  const deadline = setTimeout(() => {
    console.error(`bench:bulk: over ${TIMEOUT_SECONDS} s, stopping.`);
    rmSync(state, { recursive: true, force: true });
    process.exit(1);
  }, TIMEOUT_SECONDS * 1000);
  let worker: Deployment | undefined;
  try {
    worker = await startDeployment(ENVIRONMENT, buildBundle(ENVIRONMENT, join(state, 'bundle')), join(state, 'state'));
    await seedDatabase(worker, DATABASE_FILE);
    const credential = await seedPaidAccount(worker);
    if (!('authorization' in credential)) throw new Error(credential.pending);
    const origin = worker.url.origin;
    const headers = { Authorization: credential.authorization };
    const single = (ip: string) => fetch(`${origin}/api/json/${encodeURIComponent(ip)}`, { headers });
    const bulk = (format: 'json' | 'xml', ips: readonly string[]) =>
      fetch(`${origin}/api/bulk/${format}`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ ips }) });

    // Four IPv4 addresses for every IPv6 one, as the single-lookup benchmarks use.
    const v4 = randomIpv4((ROUNDS + WARM_UP) * 40);
    const v6 = randomIpv6((ROUNDS + WARM_UP) * 10);
    const batchOf = (round: number) => [...v4.slice(round * 40, round * 40 + 40), ...v6.slice(round * 10, round * 10 + 10)];

    for (let round = 0; round < WARM_UP; round++) {
      const ips = batchOf(round);
      await timed(() => single(ips[0] as string));
      await timed(() => bulk('json', ips));
      await timed(() => bulk('xml', ips));
    }

    const samples = { single: [] as number[], bulkJson: [] as number[], bulkXml: [] as number[], fiftySingles: [] as number[] };
    for (let round = WARM_UP; round < WARM_UP + ROUNDS; round++) {
      const ips = batchOf(round);
      samples.single.push(await timed(() => single(ips[round % BATCH] as string)));
      samples.bulkJson.push(await timed(() => bulk('json', ips)));
      samples.bulkXml.push(await timed(() => bulk('xml', ips)));
      let sequential = 0;
      for (const ip of ips) sequential += await timed(() => single(ip));
      samples.fiftySingles.push(sequential);
    }

    console.log(
      `Paid Worker (${ENVIRONMENT}) in workerd via Miniflare at ${origin}; Node ${process.version}; ${ROUNDS} rounds after ${WARM_UP} warm-up rounds.`,
    );
    console.log(`${''.padEnd(34)}${'median'.padStart(9)}${'p90'.padStart(9)}${'ms/addr'.padStart(9)}   (milliseconds)`);
    console.log(summary('GET /api/json/{ip}', samples.single));
    console.log(summary(`POST /api/bulk/json (${BATCH} addresses)`, samples.bulkJson, BATCH));
    console.log(summary(`POST /api/bulk/xml (${BATCH} addresses)`, samples.bulkXml, BATCH));
    console.log(summary(`${BATCH} sequential GET /api/json/{ip}`, samples.fiftySingles, BATCH));
  } finally {
    clearTimeout(deadline);
    await worker?.dispose();
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
