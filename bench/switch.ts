/**
 * @module `npm run bench:switch`: a steady, bounded load on a running `npm run dev` while a different
 * build is published, until `GET /api/v1/status` and `X-Database-Version` name it; then a rollback, until
 * they name the first again. Prints requests, failures, the slowest answer around each switch, how long
 * each switch took to be seen, and the workerd process's peak resident memory (VmHWM, reset before each
 * switch; a process figure, so an upper bound of the isolate's).
 *
 *     npm run dev -- --port 8731 --inspector-port 8732          (terminal 1)
 *     npm run bench:switch -- --url http://127.0.0.1:8731 --file /path/to/other/ipgeo.mmdb --pid <workerd pid>
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:8787' },
    file: { type: 'string' },
    pid: { type: 'string' },
    connections: { type: 'string', default: '8' },
    /** Bound of each phase, seconds. */
    limit: { type: 'string', default: '90' },
  },
});
if (!values.file) throw new Error('--file: the build to publish');
const base = values.url as string;
const connections = Number(values.connections);
const limitMs = Number(values.limit) * 1000;

interface Sample {
  at: number;
  ms: number;
  status: number;
  version: string | null;
}

const samples: Sample[] = [];
let running = true;
let client = 0;
/** Every request from another client address (198.18.0.0/15), so the free plan's limit never answers. */
async function worker(): Promise<void> {
  while (running) {
    const n = ++client;
    const started = performance.now();
    try {
      const response = await fetch(`${base}/api/v1/json/81.2.69.142`, { headers: { 'CF-Connecting-IP': `198.18.${(n >> 8) & 0xff}.${n & 0xff}` } });
      await response.arrayBuffer();
      samples.push({ at: Date.now(), ms: performance.now() - started, status: response.status, version: response.headers.get('x-database-version') });
    } catch {
      samples.push({ at: Date.now(), ms: performance.now() - started, status: 0, version: null });
    }
  }
}

async function statusVersion(): Promise<string | undefined> {
  const response = await fetch(`${base}/api/v1/status`, { headers: { 'CF-Connecting-IP': '198.19.0.1' } });
  const body = (await response.json()) as { database?: { version?: string } };
  return body.database?.version;
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

/** Runs `command`, then waits until status and answers name a version other than `from`. */
async function phase(name: string, command: string[], from: string): Promise<string> {
  resetPeak();
  const before = memory('VmRSS');
  const startedAt = Date.now();
  const firstSample = samples.length;
  const run = spawnSync('npm', command, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${command.join(' ')}: ${run.stderr}`);
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
  const failed = during.filter((s) => s.status !== 200);
  const switchAt = during.find((s) => s.version && s.version !== from)?.at ?? Number.NaN;
  const around = during.filter((s) => Math.abs(s.at - switchAt) < 3000);
  console.log(
    `${name}: ${command.slice(3).join(' ')} took ${((publishedAt - startedAt) / 1000).toFixed(1)} s; ` +
      `new version ${seen ?? 'NOT SEEN'} answered ${((switchAt - publishedAt) / 1000).toFixed(1)} s after it returned; ` +
      `${during.length} requests, ${failed.length} not 200 (${[...new Set(failed.map((s) => s.status))].join(', ') || 'none'}); ` +
      `slowest answer ${Math.max(...during.map((s) => s.ms)).toFixed(0)} ms overall, ${Math.max(0, ...around.map((s) => s.ms)).toFixed(0)} ms within 3 s of the switch ` +
      `(median ${median(during.map((s) => s.ms)).toFixed(1)} ms); workerd RSS ${before.toFixed(0)} MiB before, peak ${memory('VmHWM').toFixed(0)} MiB`,
  );
  if (!seen) throw new Error(`${name}: not switched within ${limitMs / 1000} s`);
  return seen;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
}

const first = await statusVersion();
if (!first) throw new Error(`${base}/api/v1/status names no version`);
console.log(`Serving ${first}; ${connections} connections of steady load on /api/v1/json/81.2.69.142`);
const workers = Array.from({ length: connections }, () => worker());
const started = Date.now();
try {
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const second = await phase('publish', ['run', 'data:publish', '--', '--env', 'free', '--file', values.file], first);
  await phase('rollback', ['run', 'data:rollback', '--', '--env', 'free'], second);
} finally {
  running = false;
  await Promise.all(workers);
}
const failed = samples.filter((s) => s.status !== 200).length;
console.log(`Whole run: ${samples.length} requests in ${((Date.now() - started) / 1000).toFixed(0)} s, ${failed} not 200.`);
