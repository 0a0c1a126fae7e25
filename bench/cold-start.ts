/**
 * @module `npm run bench:cold`: cold start, from a fresh workerd process to the first lookup answered,
 * the database read from the local R2 store (Miniflare's, on disk) by the production free bundle.
 *
 * Each start spawns a new `workerd serve` process on a configuration of only what the Worker binds
 * (`worker/serve.ts`: the Worker, its Durable Object, and Miniflare's simulators of its R2 and KV
 * stores), and times: the spawn until workerd accepts connections (the runtime starting, the
 * simulators and our bundle compiled, their top levels run), and from then until the first
 * `GET /api/v1/json/8.8.8.8` is answered (the isolate's first request: the rate limiter's first
 * Durable Object, the 60 MB object read from R2, the reader set up, the lookup).
 *
 * Starts of three kinds alternate: that one; one whose first request is `GET /health`, which reads no
 * database, so that the database's part shows as the difference; and the lookup through Miniflare
 * (`worker/deployment.ts`, as the other benchmarks run the Worker), whose workerd process also
 * starts Miniflare's entry worker and its cache, e-mail and dev-control services. Medians of
 * `--starts` starts of each kind.
 *
 * With `--r2-latency-ms` and `--r2-mbps`, it measures instead the cold start and the switch with R2 that
 * far, the Workers cache off, empty and filled (`distant.ts`), under `--connections` steady clients.
 * With `--sweep`, it does so at each of several distances (lists of latencies and speeds, by default
 * 150 and 400 ms at 25, 16, 8, 4 and 2 MB/s), cache off and on, prints the table and writes it into
 * BENCHMARKS.md as a section naming its run (`report.ts`); about a quarter of an hour.
 *
 *     npm run bench:cold -- [--starts 5] [--json FILE]
 *     npm run bench:cold -- --r2-latency-ms 150 --r2-mbps 25 [--connections 4] [--json FILE]
 *     npm run bench:cold -- --sweep [--r2-latency-ms 150,400] [--r2-mbps 25,16,8,4,2] [--json FILE]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATABASE_FILE } from '../data/build.ts';
import { parseCommandLine } from '../data/command-line.ts';
import type { ColdStartReport } from './cold-start-report.ts';
import { benchDistant, benchSweep, type Distance } from './distant.ts';
import { describeMachine, revision } from './machine.ts';
import { sweepSection, withSweepSection } from './report.ts';
import { median } from './stats.ts';
import { buildBundle, ROOT, seedDatabase, startDeployment } from './worker/deployment.ts';
import { serveBundle } from './worker/serve.ts';

/** The sweep's distances by default: a bucket on the same continent and on another, from a good day to a bad one. */
const SWEEP_LATENCIES_MS = [150, 400];
const SWEEP_MBPS = [25, 16, 8, 4, 2];

const USAGE = `usage: npm run bench:cold -- [--starts N] [--json FILE]
       npm run bench:cold -- --r2-latency-ms MS --r2-mbps MB [--connections N] [--json FILE]
       npm run bench:cold -- --sweep [--r2-latency-ms MS,…] [--r2-mbps MB,…] [--connections N] [--json FILE]

Cold start: from a fresh workerd process to the first lookup answered.
  --starts N          starts of each kind (default 5); medians are reported
  --json FILE         also write the report as JSON
With R2 far away (a first-byte delay and a throughput), the cache off, empty and filled:
  --r2-latency-ms MS  the bucket's delay to the first byte (default 150 when --r2-mbps is given)
  --r2-mbps MB        the bucket's throughput in MB/s (default 25 when --r2-latency-ms is given)
  --connections N     steady clients during the cold start and the switch (default 4)
  --sweep             each latency at each throughput (lists; default ${SWEEP_LATENCIES_MS.join(',')} ms at ${SWEEP_MBPS.join(',')} MB/s),
                      cache off and on: about a quarter of an hour; writes its section of BENCHMARKS.md`;

/** Runs the benchmark; `work` holds the bundle and the local R2 store. */
async function benchColdStart(options: { starts?: number; work: string }, log: (line: string) => void = () => {}): Promise<ColdStartReport> {
  const starts = options.starts ?? 5;
  const bundle = buildBundle('free', join(options.work, 'cold-bundle'));
  const state = join(options.work, 'cold-state');
  const seeding = await startDeployment('free', bundle, state);
  await seedDatabase(seeding, DATABASE_FILE);
  await seeding.dispose();
  const samples: [string, number, number][] = [];
  const kinds = ['lookup', 'health', 'miniflare'] as const;
  for (let i = 0; i < starts * kinds.length; i++) {
    const kind = kinds[i % kinds.length] as (typeof kinds)[number];
    const deployment = kind === 'miniflare' ? await startDeployment('free', bundle, state) : await serveBundle('free', bundle, state);
    try {
      const path = kind === 'health' ? '/health' : '/api/v1/json/8.8.8.8';
      const response = await fetch(new URL(path, deployment.url), { headers: { 'CF-Connecting-IP': `11.255.0.${i + 1}` } });
      await response.arrayBuffer();
      const answered = performance.now();
      if (response.status !== 200) throw new Error(`first ${path} answered ${response.status}`);
      samples.push([kind, deployment.readyAt - deployment.spawnedAt, answered - deployment.readyAt]);
      log(`  start ${i + 1}: ${kind} ${(deployment.readyAt - deployment.spawnedAt).toFixed(0)} + ${(answered - deployment.readyAt).toFixed(0)} ms`);
    } finally {
      await deployment.dispose();
    }
  }
  const of = (kind: string, field: 1 | 2) => median(samples.filter((s) => s[0] === kind).map((s) => s[field]));
  const total = (kind: string) => median(samples.filter((s) => s[0] === kind).map((s) => s[1] + s[2]));
  return {
    starts,
    spawnToListening: of('lookup', 1),
    listeningToLookup: of('lookup', 2),
    spawnToLookup: total('lookup'),
    spawnToHealth: total('health'),
    listeningToHealth: of('health', 2),
    miniflare: { spawnToListening: of('miniflare', 1), listeningToLookup: of('miniflare', 2), spawnToLookup: total('miniflare') },
    samples,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const line = parseCommandLine(process.argv.slice(2), {
    command: 'npm run bench:cold',
    usage: USAGE,
    options: {
      starts: { type: 'string', default: '5' },
      json: { type: 'string' },
      'r2-latency-ms': { type: 'string' },
      'r2-mbps': { type: 'string' },
      connections: { type: 'string', default: '4' },
      sweep: { type: 'boolean', default: false },
    },
  });
  if (typeof line === 'number') process.exit(line);
  const { values } = line;
  const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-cold-'));
  // The V8 inspector of the measured workerd (`BENCH_INSPECTOR_PORT` when several checkouts measure at once).
  const inspectorPort = Number(process.env.BENCH_INSPECTOR_PORT ?? 9390);
  try {
    if (values.sweep) {
      const list = (text: string | undefined, fallback: number[]) => (text === undefined ? fallback : text.split(',').map(Number));
      const latencies = list(values['r2-latency-ms'], SWEEP_LATENCIES_MS);
      const speeds = list(values['r2-mbps'], SWEEP_MBPS);
      if (!latencies.every((ms) => ms >= 0) || !speeds.every((mbps) => mbps > 0)) throw new Error('--r2-latency-ms must be ≥ 0 and --r2-mbps > 0');
      const distances: Distance[] = latencies.flatMap((latencyMs) => speeds.map((megabytesPerSecond) => ({ latencyMs, megabytesPerSecond })));
      const machine = describeMachine();
      const measured = revision();
      const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      const started = performance.now();
      const sweep = await benchSweep({ distances, connections: Number(values.connections), inspectorPort, work }, console.log);
      const section = sweepSection({ machine, revision: measured, date, seconds: (performance.now() - started) / 1000, sweep });
      const file = join(ROOT, 'BENCHMARKS.md');
      if (existsSync(file)) writeFileSync(file, withSweepSection(readFileSync(file, 'utf8'), section));
      console.log(`\n${section}\n\nWritten to BENCHMARKS.md.`);
      if (values.json) writeFileSync(values.json, JSON.stringify(sweep, null, 2));
    } else if (values['r2-latency-ms'] !== undefined || values['r2-mbps'] !== undefined) {
      const distance = { latencyMs: Number(values['r2-latency-ms'] ?? 150), megabytesPerSecond: Number(values['r2-mbps'] ?? 25) };
      if (!(distance.latencyMs >= 0 && distance.megabytesPerSecond > 0)) throw new Error('--r2-latency-ms must be ≥ 0 and --r2-mbps > 0');
      const report = await benchDistant({ distance, connections: Number(values.connections), inspectorPort, work }, console.log);
      if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
    } else {
      const report = await benchColdStart({ starts: Number(values.starts), work }, console.log);
      console.log(
        `spawn → listening ${report.spawnToListening.toFixed(0)} ms, → first lookup ${report.listeningToLookup.toFixed(0)} ms: ${report.spawnToLookup.toFixed(0)} ms in all ` +
          `(first /health instead: ${report.spawnToHealth.toFixed(0)} ms, ${report.listeningToHealth.toFixed(0)} ms after listening; ` +
          `through Miniflare: ${report.miniflare.spawnToListening.toFixed(0)} + ${report.miniflare.listeningToLookup.toFixed(0)} = ${report.miniflare.spawnToLookup.toFixed(0)} ms)`,
      );
      if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
