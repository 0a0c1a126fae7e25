/**
 * @module `npm run bench:memory`: the workerd process's resident memory (VmRSS) before and after the
 * database is loaded, and after 100,000 and 200,000 lookups.
 *
 * A fresh workerd process runs the lookup-only bundle (the production lookup routes without the plan
 * gate, `worker/lookup-only.js`, so that no Durable Object or KV state grows beside the lookups).
 *
 * workerd's own resident memory grows by about 200 MB over its first 200,000 requests of any kind
 * (connection and allocator arenas, the isolate's heap reaching its working size) and then stays: so
 * the process first answers {@link WARM_UP} `/health` requests, and the same number of `/health`
 * requests after the load is a control for what is noise. Then one lookup loads the database, then
 * 100,000 single lookups of distinct addresses of the seeded sample (`addresses.ts`), then 100,000
 * more. Every reading is taken after a second of quiet.
 *
 *     npm run bench:memory -- [--lookups 100000] [--json FILE]
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type AutocannonRequest } from 'autocannon';
import { DATABASE_FILE } from '../data/build.ts';
import { randomIpv4, randomIpv6 } from './addresses.ts';
import { mib } from './stats.ts';
import { buildBundle, residentBytes, seedDatabase, startDeployment } from './worker/deployment.ts';

/** `/health` requests before anything is measured, and between the load and the lookups. */
export const WARM_UP = 200_000;

/** Resident memory of the workerd process, in bytes, at each step. */
export interface MemoryReport {
  readonly lookups: number;
  readonly beforeLoad: number;
  readonly afterLoad: number;
  /** After as many `/health` requests as lookups, following the load: the noise floor. */
  readonly afterControl: number;
  readonly afterLookups: number;
  readonly afterMoreLookups: number;
  /** Size of the database file, for comparison. */
  readonly databaseBytes: number;
}

function send(url: URL, amount: number, next: () => AutocannonRequest): Promise<void> {
  return new Promise((done, fail) => {
    autocannon({ url: url.href, connections: 10, amount, requests: [{ setupRequest: (r) => ({ ...r, ...next() }) }] }, (error) =>
      error ? fail(error) : done(),
    );
  });
}

/** Runs the benchmark; `work` holds the bundle and the local R2 store. */
export async function benchMemory(options: { lookups?: number; work: string }, log: (line: string) => void = () => {}): Promise<MemoryReport> {
  const lookups = options.lookups ?? 100_000;
  const bundle = buildBundle('de', join(options.work, 'memory-bundle'), 'bench/worker/lookup-only.js');
  const state = join(options.work, 'memory-state');
  const seeding = await startDeployment('de', bundle, state);
  await seedDatabase(seeding, DATABASE_FILE);
  await seeding.dispose();

  const ipv4 = randomIpv4(Math.ceil((lookups * 2 * 5) / 6), 31);
  const ipv6 = randomIpv6(Math.ceil((lookups * 2) / 6), 32);
  const addresses: string[] = [];
  for (let i = 0; i < ipv6.length; i++) addresses.push(...ipv4.slice(i * 5, i * 5 + 5), ipv6[i] as string);
  let next = 0;
  const lookup = (): AutocannonRequest => ({ method: 'GET', path: `/api/json/${addresses[next++ % addresses.length]}` });

  const deployment = await startDeployment('de', bundle, state);
  try {
    const rss = async (what: string) => {
      await sleep(1000);
      const bytes = residentBytes(deployment.pid);
      log(`  ${what}: ${mib(bytes)}`);
      return bytes;
    };
    const health = (): AutocannonRequest => ({ method: 'GET', path: '/health' });
    await send(deployment.url, WARM_UP, health);
    const beforeLoad = await rss(`after ${WARM_UP} /health requests, before the database is loaded`);
    const first = await fetch(new URL('/api/json/8.8.8.8', deployment.url));
    await first.arrayBuffer();
    if (first.status !== 200) throw new Error(`the first lookup answered ${first.status}`);
    const afterLoad = await rss('after it is loaded');
    await send(deployment.url, lookups, health);
    const afterControl = await rss(`after ${lookups} /health requests (control)`);
    await send(deployment.url, lookups, lookup);
    const afterLookups = await rss(`after ${lookups} lookups`);
    await send(deployment.url, lookups, lookup);
    const afterMoreLookups = await rss(`after ${2 * lookups} lookups`);
    const { size } = statSync(DATABASE_FILE);
    return { lookups, beforeLoad, afterLoad, afterControl, afterLookups, afterMoreLookups, databaseBytes: size };
  } finally {
    await deployment.dispose();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { lookups: { type: 'string', default: '100000' }, json: { type: 'string' } } });
  const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-memory-'));
  try {
    const report = await benchMemory({ lookups: Number(values.lookups), work }, console.log);
    console.log(
      `database adds ${mib(report.afterLoad - report.beforeLoad)} (file ${mib(report.databaseBytes)}); ${report.lookups} /health requests then ` +
        `${mib(report.afterControl - report.afterLoad)}; ${report.lookups} lookups ${mib(report.afterLookups - report.afterControl)}, ${report.lookups} more ${mib(report.afterMoreLookups - report.afterLookups)}`,
    );
    if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
