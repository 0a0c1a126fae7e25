/**
 * @module `npm run bench:switch`: a steady, bounded load on a running `npm run dev` while a different
 * build is published, until `GET /api/v1/status` and `X-Database-Version` name it; then a rollback, until
 * they name the first again. Prints requests, failures, the slowest answer around each switch, how long
 * each switch took to be seen, the isolate's peak memory (V8 heap plus ArrayBuffer backing stores, as
 * `bench:memory` counts it, sampled every 50 ms through the inspector of `wrangler dev`), and the workerd
 * process's peak resident memory (VmHWM, reset before each switch; it includes the local R2 and the
 * other Workers of `wrangler dev`, so only an upper bound).
 *
 * The load cycles through a seeded sample of addresses (`addresses.ts`), so that a sharded build's every
 * shard is asked; an answer other than 200 or 404 (an address the data does not cover) is a failure.
 * The slowest answer around each switch (during the publishing command, which runs at the lowest CPU
 * priority; after it returned; within 3 s of the switch) is set against the p99 of a steady phase before
 * the first, beside a `/health` probe's slowest, which tells a stall of the whole process from a wait.
 * With `--damage-shard K` (a sharded build), a third phase publishes the build of `--file` again under
 * another version with shard K's object damaged (its size kept, its bytes not), counts the failures of
 * that shard's addresses and of the others', then publishes the first build again (recovery).
 *
 *     npm run dev -- --port 8731 --inspector-port 8732          (terminal 1)
 *     npm run bench:switch -- --url http://127.0.0.1:8731 --inspector 8732 --file other/ipgeo.mmdb --pid <workerd pid>
 *     npm run bench:switch -- --file data/out/n2b/ipgeo.manifest.json --damage-shard 1   (a sharded build, docs/sharding.md)
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { commandLineError, parseCommandLine } from '../data/command-line.ts';
import { bucketOf } from '../data/publish/cli.ts';
import { wranglerBucket } from '../data/publish/wrangler-bucket.ts';
import { CURRENT_RECORD_KEY, CurrentRecordSchema } from '../src/geo/published.ts';
import { parseRanges, shardIndexOf } from '../src/geo/shard-ranges.ts';
import { type IpAddress, parseIp } from '../src/ip/address.ts';
import { addressCycle } from './addresses.ts';

const USAGE = `usage: npm run bench:switch -- --file FILE [--url URL] [--inspector PORT] [--pid PID] [--connections N] [--limit S]

A steady load on a running npm run dev while another build is published, then rolled back: how long
each switch takes to be seen, failures, the slowest answers, memory.
  --file FILE       the build to publish (required)
  --url URL         the running server (default http://127.0.0.1:8787)
  --inspector PORT  wrangler dev's inspector port, to read the isolate's memory
  --pid PID         the workerd process, to read its resident memory
  --connections N   concurrent connections (default 8)
  --limit S         bound of each phase in seconds (default 90)
  --steady S        seconds of steady load before the first switch, whose p99 the switches are set against (default 10)
  --damage-shard K  then publish --file's build again with shard K's object damaged, and recover`;

const line = parseCommandLine(process.argv.slice(2), {
  command: 'npm run bench:switch',
  usage: USAGE,
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:8787' },
    file: { type: 'string' },
    pid: { type: 'string' },
    inspector: { type: 'string' },
    connections: { type: 'string', default: '8' },
    /** Bound of each phase, seconds. */
    limit: { type: 'string', default: '90' },
    steady: { type: 'string', default: '10' },
    'damage-shard': { type: 'string' },
  },
});
if (typeof line === 'number') process.exit(line);
const { values } = line;
if (!values.file) process.exit(commandLineError('npm run bench:switch', '--file FILE is required: the build to publish'));
const base = values.url as string;
const connections = Number(values.connections);
const limitMs = Number(values.limit) * 1000;

/** The `ws` client (wrangler dev's inspector proxy refuses Node's built-in WebSocket's handshake). */
type Socket = { on(event: string, listener: (data: unknown) => void): void; send(text: string): void; close(): void };
const WebSocketClient = createRequire(import.meta.url)('ws') as new (url: string) => Socket;

/**
 * The isolate's memory read every 50 ms, as `bench:memory` counts it (heap used plus ArrayBuffer backing
 * stores; no garbage collection is forced here, so garbage counts too), and the committed heap plus
 * backing stores; peaks since the last reset.
 */
const isolate = { now: Number.NaN, peak: 0, committed: 0, committedPeak: 0 };
async function sampleIsolate(port: string): Promise<() => void> {
  const socket = new WebSocketClient(`ws://127.0.0.1:${port}/ws`);
  await new Promise((resolve) => socket.on('open', resolve));
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: { usedSize: number; totalSize: number; backingStorageSize: number } };
    if (message.id === undefined || !message.result?.totalSize) return;
    const { usedSize, totalSize, backingStorageSize } = message.result;
    isolate.now = (usedSize + backingStorageSize) / 1048576;
    isolate.peak = Math.max(isolate.peak, isolate.now);
    isolate.committed = (totalSize + backingStorageSize) / 1048576;
    isolate.committedPeak = Math.max(isolate.committedPeak, isolate.committed);
  });
  let id = 1_000_000;
  const timer = setInterval(() => socket.send(JSON.stringify({ id: id++, method: 'Runtime.getHeapUsage' })), 50);
  return () => {
    clearInterval(timer);
    socket.close();
  };
}

interface Sample {
  at: number;
  ms: number;
  status: number;
  version: string | null;
  address: string;
}

/** A failed request: neither a record (200) nor an address the data does not cover (404). */
const failedSample = (sample: Sample): boolean => sample.status !== 200 && sample.status !== 404;
const address = addressCycle(2000, 61, 62);

const samples: Sample[] = [];
let running = true;
let client = 0;
/**
 * A probe beside the load: `GET /health` (no data, no shard, no rate limit) every 20 ms. Local workerd
 * runs every Worker of `wrangler dev` (the app, each shard, R2, the cache) on one thread, so anything
 * that holds the thread delays every answer; the probe's slowest around a switch tells that stall from
 * a wait for data.
 */
const probes: { at: number; ms: number }[] = [];
async function probe(): Promise<void> {
  while (running) {
    const started = performance.now();
    await fetch(`${base}/health`)
      .then((response) => response.arrayBuffer())
      .catch(() => undefined);
    probes.push({ at: Date.now(), ms: performance.now() - started });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Requests come from 2,048 client addresses in turn (198.18.0.0/15), so that none comes near the free
 * plan's 10 in 10 s at these rates, and the rate limiter's objects are warm (a new object per request
 * would make local workerd create SQLite files for each: slow, and nothing to do with the switch).
 */
async function worker(): Promise<void> {
  while (running) {
    const n = ++client % 2048;
    const ip = address();
    const started = performance.now();
    try {
      const response = await fetch(`${base}/api/v1/json/${ip}`, { headers: { 'CF-Connecting-IP': `198.18.${(n >> 8) & 0xff}.${n & 0xff}` } });
      await response.arrayBuffer();
      samples.push({
        at: Date.now(),
        ms: performance.now() - started,
        status: response.status,
        version: response.headers.get('x-database-version'),
        address: ip,
      });
    } catch {
      samples.push({ at: Date.now(), ms: performance.now() - started, status: 0, version: null, address: ip });
    }
  }
}

/** The status endpoint's database: its version, and its shards with their ranges. */
async function status(): Promise<{ version?: string; shards?: { first: string; last: string; version: string | null }[] }> {
  const response = await fetch(`${base}/api/v1/status`, { headers: { 'CF-Connecting-IP': '198.19.0.1' } });
  return ((await response.json()) as { database?: { version?: string } }).database ?? {};
}

async function statusVersion(): Promise<string | undefined> {
  return (await status()).version;
}

function memory(field: 'VmHWM' | 'VmRSS'): number {
  if (!values.pid) return Number.NaN;
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${values.pid}/status`, 'utf8'));
  return Number(match?.[1]) / 1024;
}

function resetPeak(): void {
  // Writing 5 to clear_refs resets the process's peak resident size (VmHWM) to its current size.
  if (values.pid) writeFileSync(`/proc/${values.pid}/clear_refs`, '5');
}

/** Runs `command` (an npm command line, or a function), then waits until status and answers name a version other than `from`. */
async function phase(name: string, command: string[] | (() => Promise<unknown>), from: string): Promise<string> {
  resetPeak();
  const before = memory('VmRSS');
  const isolateBefore = isolate.now;
  isolate.peak = isolate.now;
  isolate.committedPeak = isolate.committed;
  const startedAt = Date.now();
  const firstSample = samples.length;
  // Asynchronously: the load keeps going (and its timings stay true) while the command runs.
  // At the lowest CPU priority: the publisher (upload, and reading every record to verify it) runs on the
  // operator's machine or in CI, not beside the Workers; here it shares two cores with them.
  if (Array.isArray(command)) await promisify(execFile)('nice', ['-n', '19', 'npm', ...command], { encoding: 'utf8' });
  else await command();
  const publishedAt = Date.now();
  let seen: string | undefined;
  while (Date.now() - publishedAt < limitMs) {
    const version = await statusVersion();
    const answered = samples.slice(firstSample).find((s) => s.version && s.version !== from && s.at >= publishedAt);
    if (version && version !== from && answered) {
      seen = version;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const during = samples.slice(firstSample);
  const failed = during.filter(failedSample);
  const switchAt = during.find((s) => s.version && s.version !== from)?.at ?? Number.NaN;
  const around = during.filter((s) => Math.abs(s.at - switchAt) < 3000);
  const after = during.filter((s) => s.at >= publishedAt);
  const probed = probes.filter((p) => p.at >= startedAt);
  const probedAround = probed.filter((p) => Math.abs(p.at - switchAt) < 3000);
  console.log(
    `${name}: ${Array.isArray(command) ? command.slice(3).join(' ') : 'damaged upload'} took ${((publishedAt - startedAt) / 1000).toFixed(1)} s; ` +
      `new version ${seen ?? 'NOT SEEN'} answered ${((switchAt - publishedAt) / 1000).toFixed(1)} s after it returned; ` +
      `${during.length} requests, ${failed.length} not 200 (${[...new Set(failed.map((s) => s.status))].join(', ') || 'none'}); ` +
      `slowest answer ${Math.max(...during.map((s) => s.ms)).toFixed(0)} ms overall (${(Math.max(...during.map((s) => s.ms)) / steadyP99).toFixed(2)}× the steady p99), ` +
      `${Math.max(0, ...after.map((s) => s.ms)).toFixed(0)} ms after the command returned (${(Math.max(0, ...after.map((s) => s.ms)) / steadyP99).toFixed(2)}×), ` +
      `${Math.max(0, ...around.map((s) => s.ms)).toFixed(0)} ms within 3 s of the switch ` +
      `(median ${median(during.map((s) => s.ms)).toFixed(1)} ms); /health probe slowest ${Math.max(0, ...probed.map((p) => p.ms)).toFixed(0)} ms overall, ` +
      `${Math.max(0, ...probedAround.map((p) => p.ms)).toFixed(0)} ms within 3 s of the switch; isolate ${isolateBefore.toFixed(1)} MiB before, peak ${isolate.peak.toFixed(1)} MiB, ` +
      `after ${isolate.now.toFixed(1)} MiB (committed: peak ${isolate.committedPeak.toFixed(1)} MiB); workerd process RSS ${before.toFixed(0)} MiB before, peak ${memory('VmHWM').toFixed(0)} MiB`,
  );
  if (!seen) throw new Error(`${name}: not switched within ${limitMs / 1000} s`);
  return seen;
}

function median(values: number[]): number {
  return percentile(values, 0.5);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

/**
 * Uploads the build of `manifestFile` into the local free bucket as version `version`, shard `damaged`'s
 * object replaced by as many zero bytes (its size right, its SHA-256 wrong), then the record naming it
 * as current, as `data:publish` would (`src/geo/published.ts`).
 */
async function publishDamaged(manifestFile: string, version: string, damaged: number): Promise<void> {
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { shards: { file: string; first: string; last: string; bytes: number; sha256: string }[] };
  const bucket = wranglerBucket({ environment: 'free', bucket: bucketOf('free'), remote: false });
  try {
    const shards = [];
    const zeros = join(tmpdir(), `ipgeo-bench-damaged-${process.pid}.mmdb`);
    for (const [index, { file, first, last, bytes, sha256 }] of manifest.shards.entries()) {
      const key = `ipgeo-${version}.shard-${index}-of-${manifest.shards.length}.mmdb`;
      if (index === damaged) writeFileSync(zeros, new Uint8Array(bytes));
      await bucket.putObject(key, index === damaged ? zeros : join(dirname(manifestFile), file));
      shards.push({ key, first, last, bytes, sha256 });
    }
    rmSync(zeros, { force: true });
    const record = CurrentRecordSchema.parse(JSON.parse((await bucket.getText(CURRENT_RECORD_KEY)) ?? 'null'));
    const at = new Date().toISOString();
    const [head] = shards as [(typeof shards)[number]];
    const entry = { version, key: head.key, bytes: head.bytes, sha256: head.sha256, shards, publishedAt: at, retiredAt: null };
    const versions = record.versions.map((v) => (v.version === record.current.version ? { ...v, retiredAt: at } : v));
    await bucket.putText(CURRENT_RECORD_KEY, JSON.stringify({ v: 1, current: entry, versions: [...versions, entry] }));
  } finally {
    await bucket.dispose();
  }
}

const first = await statusVersion();
if (!first) throw new Error(`${base}/api/v1/status names no version`);
const steadyMs = Number(values.steady) * 1000;
console.log(`Serving ${first}; ${connections} connections of steady load on /api/v1/json/ of a sample of addresses`);
const stopSampling = values.inspector ? await sampleIsolate(values.inspector) : () => {};
await new Promise((resolve) => setTimeout(resolve, 200));
const workers = [...Array.from({ length: connections }, () => worker()), probe()];
const started = Date.now();
let steadyP99 = Number.NaN;
try {
  // Warm-up: every client address once, so that the rate limiter's objects exist before anything is timed.
  while (samples.length < 2048) await new Promise((resolve) => setTimeout(resolve, 250));
  const steadyFrom = samples.length;
  const steadyStartedAt = Date.now();
  await new Promise((resolve) => setTimeout(resolve, steadyMs));
  const steady = samples.slice(steadyFrom).map((s) => s.ms);
  steadyP99 = percentile(steady, 0.99);
  const steadyProbes = probes.filter((p) => p.at >= steadyStartedAt).map((p) => p.ms);
  console.log(
    `steady: ${steady.length} requests in ${values.steady} s, ${samples.slice(steadyFrom).filter(failedSample).length} failed; p50 ${percentile(steady, 0.5).toFixed(1)} ms, p99 ${steadyP99.toFixed(1)} ms, slowest ${Math.max(...steady).toFixed(0)} ms; ` +
      `/health probe p99 ${percentile(steadyProbes, 0.99).toFixed(1)} ms, slowest ${Math.max(0, ...steadyProbes).toFixed(0)} ms`,
  );
  const second = await phase('publish', ['run', 'data:publish', '--', '--env', 'free', '--file', values.file], first);
  await phase('rollback', ['run', 'data:rollback', '--', '--env', 'free'], second);
  if (values['damage-shard'] !== undefined) {
    const damaged = Number(values['damage-shard']);
    const version = `${second.slice(0, 10)}.dead000${damaged}`;
    const from = samples.length;
    await phase(`shard ${damaged} damaged`, () => publishDamaged(values.file as string, version, damaged), first);
    const { shards } = await status();
    const ranges = parseRanges(shards ?? []);
    if ('error' in ranges) throw new Error(ranges.error);
    const onVersion = samples.slice(from).filter((s) => s.version === version || (failedSample(s) && s.status === 503));
    const inShard = (s: Sample) => shardIndexOf(ranges, parseIp(s.address) as IpAddress) === damaged;
    const count = (list: Sample[]) =>
      `${list.length} requests, ${list.filter(failedSample).length} failed (${[...new Set(list.filter(failedSample).map((s) => s.status))].join(', ') || 'none'})`;
    console.log(
      `  while ${version} is current: shard ${damaged}'s addresses ${count(onVersion.filter(inShard))}; the other shards' ${count(onVersion.filter((s) => !inShard(s)))}; ` +
        `status: ${(shards ?? []).map((shard, index) => `shard ${index} ${shard.version ?? 'unavailable'}`).join(', ')}`,
    );
    await phase('recovery', ['run', 'data:publish', '--', '--env', 'free'], version);
  }
} finally {
  running = false;
  await Promise.all(workers);
  stopSampling();
}
const failed = samples.filter(failedSample).length;
console.log(`Whole run: ${samples.length} requests in ${((Date.now() - started) / 1000).toFixed(0)} s, ${failed} failed (neither 200 nor 404).`);
