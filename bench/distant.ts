/**
 * @module The cold start and the switch when R2 is far: the production free Worker run through
 * `worker/distant.js`, whose R2 answers each read after a first-byte delay and streams at a chosen
 * throughput, with the Workers cache off (as on `*.workers.dev`) or on.
 *
 * Under a steady load of `connections` clients (each request after the previous one, 5 ms apart, from
 * client addresses that stay far below the free plan's limit), it measures: the cold start (first lookup
 * of a fresh workerd process answered), the CPU of that load (busy time of the isolate's V8 profile,
 * since a Worker's clock stands still while it computes: the samples under reading, hashing and
 * parsing), the isolate's peak memory during it (heap in use plus ArrayBuffers, sampled every 25 ms, no
 * collection forced), and, after another build is published, the slowest request and the failed ones
 * until every answer names the new version, with the data events the Worker logged meanwhile (one
 * `load` and one `switch` when all is well). The isolate's clock is moved a minute ahead once the build
 * is published, so that its minute's check is due at once rather than up to a minute later.
 *
 * {@link benchDistant} measures one distance (what `npm run bench` runs); {@link benchSweep} a row of
 * them, cache off and on (`npm run bench:cold -- --sweep`).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DATABASE_FILE } from '../data/build.ts';
import { readBuildFile } from '../data/publish/build-file.ts';
import { type R2Like, r2Bucket } from '../data/publish/r2-bucket.ts';
import { type Publication, publishTo, wholeFilePublication } from '../data/publish/record.ts';
import { mib } from './stats.ts';
import { buildBundle, type Deployment, startDeployment, workerName } from './worker/deployment.ts';
import { HeapPeak, Inspector } from './worker/inspector.ts';

/** How far R2 is. */
export interface Distance {
  readonly latencyMs: number;
  readonly megabytesPerSecond: number;
}

/** A data event the Worker logged (`src/geo/data-events.ts`), with the fields the benchmark reads. */
interface LoggedEvent {
  readonly event: string;
  readonly source?: string;
  readonly waits?: boolean;
  readonly verifyMs?: number;
  readonly waitMs?: number;
  readonly ms?: number;
}

/** One cold start. */
export interface ColdFigures {
  /** The first lookup sent to a fresh process until its answer, ms. */
  readonly coldMs: number;
  /** CPU of the load's own work (reading, hashing, parsing: {@link LOAD_WORK}) in the isolate's V8 profile, ms. */
  readonly cpuMs: number;
  /** The slowest of the requests sent before the first answer, and how many of them failed. */
  readonly slowestMs: number;
  readonly failed: number;
  /** Peak of the isolate's heap in use plus ArrayBuffers during the load, bytes. */
  readonly peakBytes: number;
  /** The ArrayBuffers in {@link peakBytes} (the database, stream buffers); the rest is V8's heap. */
  readonly peakArrayBufferBytes: number;
  /** The most ArrayBuffers at any moment of the load, bytes. */
  readonly arrayBuffersPeakBytes: number;
  /** Where the `load` event says the bytes came from (`cache` or `r2`), if one was logged. */
  readonly source: string | undefined;
}

/** One switch. */
export interface SwitchFigures {
  /** Requests from the publication until 2 s after the first answer from the new version. */
  readonly requests: number;
  readonly failed: number;
  readonly slowestMs: number;
  /** The publication until the first answer from the new version, ms (the minute's wait is skipped). */
  readonly seenAfterMs: number;
  readonly peakBytes: number;
  readonly peakArrayBufferBytes: number;
  readonly arrayBuffersPeakBytes: number;
  /** `load` events logged meanwhile: 1 when the new version was loaded once. */
  readonly loads: number;
  /** The `switch` event, when one was logged. */
  readonly logged: { readonly waits: boolean; readonly source: string; readonly verifyMs?: number; readonly waitMs: number } | undefined;
}

/** Everything the distant benchmark measured at one distance. */
export interface DistantReport {
  readonly distance: Distance;
  readonly connections: number;
  readonly databaseBytes: number;
  /** The cache off: every load reads R2. */
  readonly noCache: { readonly cold: ColdFigures; readonly switch: SwitchFigures };
  /** The cache on: a first isolate finds it empty, a second one finds the copy the first left. */
  readonly cache: { readonly coldEmpty: ColdFigures; readonly coldFilled: ColdFigures; readonly switch: SwitchFigures };
}

/** One distance of a sweep, or why it has no figures. */
type SweepRow =
  | {
      readonly distance: Distance;
      readonly noCache: { readonly cold: ColdFigures; readonly switch: SwitchFigures };
      /** The cache on: the cold start reads the copy an earlier isolate left (the first row's: R2). */
      readonly cache: { readonly cold: ColdFigures; readonly switch: SwitchFigures };
      /** How long the row took, s. */
      readonly seconds: number;
    }
  | { readonly distance: Distance; readonly error: string };

/** What a sweep measured. */
export interface SweepReport {
  readonly connections: number;
  readonly databaseBytes: number;
  readonly rows: readonly SweepRow[];
}

interface Sample {
  readonly sentAt: number;
  readonly ms: number;
  readonly status: number;
  readonly version: string | null;
}

/** The steady load: `connections` clients, each request after the previous one's answer. */
class SteadyLoad {
  readonly samples: Sample[] = [];
  private running = true;
  private client = 0;
  private readonly workers: Promise<void>[];
  constructor(
    private readonly url: URL,
    connections: number,
  ) {
    this.workers = Array.from({ length: connections }, () => this.run());
  }
  private async run(): Promise<void> {
    while (this.running) {
      const n = ++this.client % 4096;
      const sentAt = performance.now();
      try {
        const response = await fetch(new URL('/api/v1/json/81.2.69.142', this.url), {
          headers: { 'CF-Connecting-IP': `198.18.${(n >> 8) & 0xff}.${n & 0xff}` },
        });
        await response.arrayBuffer();
        this.samples.push({ sentAt, ms: performance.now() - sentAt, status: response.status, version: response.headers.get('x-database-version') });
      } catch {
        this.samples.push({ sentAt, ms: performance.now() - sentAt, status: 0, version: null });
      }
      await sleep(5);
    }
  }
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The functions of a load's CPU work (`src/geo/bucket.ts`, `identity.ts`, `database.ts`): reading the body
 * into the buffer, hashing it and reading its metadata, and setting up the reader. Other busy time of
 * the isolate (the other requests, the simulated bucket's pacing, Miniflare's cache stub) is not the load's.
 */
const LOAD_WORK = new Set(['readBody', 'identifyDatabase', 'GeoDatabase']);

/** CPU time of a profile's samples under any of {@link LOAD_WORK}, ms. */
function loadCpuMs(profile: CpuProfile): number {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inLoad = new Map<number, boolean>();
  const isLoadWork = (id: number): boolean => {
    const known = inLoad.get(id);
    if (known !== undefined) return known;
    const up = parent.get(id);
    const result = LOAD_WORK.has(byId.get(id)?.callFrame.functionName ?? '') || (up !== undefined && isLoadWork(up));
    inLoad.set(id, result);
    return result;
  };
  let micros = 0;
  profile.samples.forEach((id, i) => {
    // A sample lasts until the next one (as profile.ts counts them).
    if (isLoadWork(id)) micros += profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0;
  });
  return micros / 1000;
}

/** A running deployment with its inspector, heap sampler, steady load, and the data events it logged. */
interface Running {
  readonly deployment: Deployment;
  readonly inspector: Inspector;
  readonly heap: HeapPeak;
  readonly load: SteadyLoad;
  /** Each data event with when it arrived (`performance.now()`). */
  readonly events: { readonly at: number; readonly event: LoggedEvent }[];
  readonly cold: ColdFigures;
}

/** How long a cold start, or a switch, may take before the run is given up, ms. */
const PHASE_LIMIT_MS = 150_000;

/**
 * Starts a fresh process, makes `current` current in its bucket with no cached copy of `next` (a sweep's
 * earlier switch left one), and measures its cold start under the steady load, which keeps going.
 */
async function coldStart(
  bundle: string,
  state: string,
  options: BenchOptions,
  cache: boolean,
  current: Build,
  next: Build,
  log: (line: string) => void,
): Promise<Running> {
  const events: Running['events'] = [];
  const deployment = await startDeployment('free', bundle, state, {
    inspectorPort: options.inspectorPort,
    cache,
    vars: { BENCH_R2_LATENCY_MS: String(options.distance.latencyMs), BENCH_R2_MBPS: String(options.distance.megabytesPerSecond) },
    onLog: (line) => {
      const event = dataEvent(line);
      if (event) events.push({ at: performance.now(), event });
      log(`    ${line}`);
    },
  });
  try {
    await publishTo(
      r2Bucket((await deployment.miniflare.getR2Bucket('GEO_DATA', workerName('free'))) as unknown as R2Like, 'GEO_DATA'),
      current,
      new Date(),
      () => {},
    );
    const [shard] = next.shards;
    if (cache && shard) {
      const query = new URLSearchParams({ key: `ipgeo-${next.version}.mmdb`, sha256: shard.sha256 });
      await (await fetch(new URL(`/__bench/forget?${query}`, deployment.url), { method: 'POST' })).arrayBuffer();
    }
    const inspector = await Inspector.connect(options.inspectorPort, workerName('free'));
    await inspector.send('Profiler.enable');
    await inspector.send('Profiler.setSamplingInterval', { interval: 100 });
    const heap = new HeapPeak(inspector);
    await sleep(200);
    heap.reset();
    await inspector.send('Profiler.start');
    const started = performance.now();
    const load = new SteadyLoad(deployment.url, options.connections);
    let answered: Sample | undefined;
    while (!answered && performance.now() - started < PHASE_LIMIT_MS) {
      await sleep(2);
      answered = load.samples.find((s) => s.status === 200);
    }
    const { profile } = await inspector.send<{ profile: CpuProfile }>('Profiler.stop');
    if (!answered) {
      await load.stop();
      heap.stop();
      inspector.close();
      throw new Error(`no lookup was answered within ${PHASE_LIMIT_MS / 1000} s of the start`);
    }
    const answeredAt = answered.sentAt + answered.ms;
    // The cache is filled after the load, in its waitUntil: its memory counts too.
    await sleep(3000);
    const before = load.samples.filter((s) => s.sentAt < answeredAt);
    const first = load.samples.reduce((a, b) => (a.sentAt <= b.sentAt ? a : b));
    const cold = {
      coldMs: first.ms,
      cpuMs: loadCpuMs(profile),
      slowestMs: Math.max(...before.map((s) => s.ms)),
      failed: before.filter((s) => s.status !== 200).length,
      peakBytes: heap.peak,
      peakArrayBufferBytes: heap.arrayBuffersAtPeak,
      arrayBuffersPeakBytes: heap.arrayBuffersPeak,
      source: events.find((e) => e.event.event === 'load')?.event.source,
    };
    return { deployment, inspector, heap, load, events, cold };
  } catch (error) {
    await deployment.dispose();
    throw error;
  }
}

/** The data event a line of the Worker's log is, if it is one. */
function dataEvent(line: string): LoggedEvent | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(line) as Partial<LoggedEvent>;
    return typeof parsed.event === 'string' ? (parsed as LoggedEvent) : undefined;
  } catch {
    return undefined;
  }
}

/** The isolate's minute between checks for a new version (`CHECK_INTERVAL_MS` of `src/geo/bucket.ts`). */
const CHECK_INTERVAL_MS = 60_000;

/** Publishes `build` and waits until answers name it; then stops the deployment. */
async function switchTo(running: Running, build: Build, log: (line: string) => void): Promise<SwitchFigures> {
  const { deployment, load, heap, events } = running;
  try {
    const bucket = (await deployment.miniflare.getR2Bucket('GEO_DATA', workerName('free'))) as unknown as R2Like;
    heap.reset();
    const publishedAt = performance.now();
    // Its object is there already (see `seed`): only the current record is written.
    await publishTo(r2Bucket(bucket, 'GEO_DATA'), build, new Date(), () => {});
    await (await fetch(new URL(`/__bench/clock?ahead=${CHECK_INTERVAL_MS}`, deployment.url), { method: 'POST' })).arrayBuffer();
    let seen: Sample | undefined;
    while (!seen && performance.now() - publishedAt < PHASE_LIMIT_MS) {
      await sleep(100);
      seen = load.samples.find((s) => s.sentAt >= publishedAt && s.version === build.version);
    }
    if (!seen) throw new Error(`${build.version} was not answered within ${PHASE_LIMIT_MS / 1000} s of its publication`);
    const seenAt = seen.sentAt + seen.ms;
    await sleep(2000);
    await load.stop();
    const during = load.samples.filter((s) => s.sentAt >= publishedAt && s.sentAt <= seenAt + 2000);
    const logged = events.filter((e) => e.at >= publishedAt).map((e) => e.event);
    const switched = logged.find((event) => event.event === 'switch');
    const figures: SwitchFigures = {
      requests: during.length,
      failed: during.filter((s) => s.status !== 200).length,
      slowestMs: Math.max(...during.map((s) => s.ms)),
      seenAfterMs: seenAt - publishedAt,
      peakBytes: heap.peak,
      peakArrayBufferBytes: heap.arrayBuffersAtPeak,
      arrayBuffersPeakBytes: heap.arrayBuffersPeak,
      loads: logged.filter((event) => event.event === 'load').length,
      logged: switched && {
        waits: switched.waits === true,
        source: switched.source ?? '',
        ...(switched.verifyMs === undefined ? {} : { verifyMs: switched.verifyMs }),
        waitMs: switched.waitMs ?? Number.NaN,
      },
    };
    log(
      `  switch: ${figures.requests} requests, ${figures.failed} failed, slowest ${figures.slowestMs.toFixed(0)} ms; seen ${(figures.seenAfterMs / 1000).toFixed(1)} s after publishing; ` +
        `isolate peak ${mib(figures.peakBytes)} (ArrayBuffers ${mib(figures.peakArrayBufferBytes)}; at most ${mib(figures.arrayBuffersPeakBytes)}); ` +
        `${figures.loads} load${figures.loads === 1 ? '' : 's'}, ${figures.logged ? 'switch logged' : 'NO switch logged'}`,
    );
    return figures;
  } finally {
    await stop(running);
  }
}

/** Ends a run: the steady load, the sampler, the process. */
async function stop(running: Running): Promise<void> {
  await running.load.stop();
  running.heap.stop();
  running.inspector.close();
  await running.deployment.dispose();
}

type Build = Publication<Uint8Array>;

/** The default build with one byte of its `build_epoch` changed: a valid database of the same size, another digest. */
function otherBuild(): Build {
  const body = new Uint8Array(readFileSync(DATABASE_FILE));
  const key = Buffer.from('build_epoch');
  const at = Buffer.from(body.buffer, body.byteOffset, body.byteLength).lastIndexOf(key);
  if (at < 0) throw new Error('build_epoch not found in the metadata');
  const control = body[at + key.length] as number;
  const last = at + key.length + (control >> 5 === 0 ? 2 : 1) + (control & 0x1f) - 1;
  body[last] = ((body[last] as number) + 1) & 0xff;
  const sha256 = createHash('sha256').update(body).digest('hex');
  const manifest = JSON.parse(readFileSync(DATABASE_FILE.replace(/\.mmdb$/, '.manifest.json'), 'utf8')) as { version: string };
  return wholeFilePublication(`${manifest.version.slice(0, 10)}.${sha256.slice(0, 8)}`, { bytes: body.byteLength, sha256, body });
}

/** What the distant benchmark takes. */
export interface BenchOptions {
  readonly distance: Distance;
  readonly connections: number;
  readonly inspectorPort: number;
  /** Holds the bundle and each run's local storage. */
  readonly work: string;
}

function describe(what: string, cold: ColdFigures): string {
  return `  ${what}: cold start ${cold.coldMs.toFixed(0)} ms (from ${cold.source ?? '?'}), load CPU ${cold.cpuMs.toFixed(0)} ms, slowest request ${cold.slowestMs.toFixed(0)} ms, ${cold.failed} failed, isolate peak ${mib(cold.peakBytes)} (ArrayBuffers ${mib(cold.peakArrayBufferBytes)}; at most ${mib(cold.arrayBuffersPeakBytes)})`;
}

/** The bundle, the two builds, and one local store holding both objects with `current` current. */
interface Stage {
  readonly bundle: string;
  readonly state: string;
  readonly current: Build;
  readonly next: Build;
}

/**
 * Bundles the Worker, and uploads both builds into a local store. Uploading 61 MiB into Miniflare's R2
 * holds up its workerd process for seconds, so it is done here, once, not while anything is measured.
 */
async function stage(work: string, log: (line: string) => void): Promise<Stage> {
  const bundle = buildBundle('free', join(work, 'distant-bundle'), 'bench/worker/distant.js');
  const state = join(work, 'distant-state');
  const current = readBuildFile(DATABASE_FILE);
  const next = otherBuild();
  // Miniflare's proxy to R2 now and then drops a 61 MiB upload ("other side closed"): tried three times.
  for (let attempt = 1; ; attempt++) {
    const seeding = await startDeployment('free', bundle, state);
    try {
      const bucket = r2Bucket((await seeding.miniflare.getR2Bucket('GEO_DATA', workerName('free'))) as unknown as R2Like, 'GEO_DATA');
      await publishTo(bucket, next, new Date(), () => {});
      await publishTo(bucket, current, new Date(), () => {});
      return { bundle, state, current, next };
    } catch (error) {
      if (attempt === 3) throw error;
      log(`  seeding failed (${(error as Error).message}); again`);
    } finally {
      await seeding.dispose();
    }
  }
}

/** Runs the benchmark at one distance: the cache off, then on (empty, then filled), each with a switch. */
export async function benchDistant(options: BenchOptions, log: (line: string) => void = () => {}): Promise<DistantReport> {
  const { bundle, state, current, next } = await stage(options.work, log);
  log('the Workers cache off:');
  const off = await coldStart(bundle, state, options, false, current, next, log);
  log(describe('cold start', off.cold));
  const offSwitch = await switchTo(off, next, log);

  log('the Workers cache on:');
  const empty = await coldStart(bundle, state, options, true, current, next, log);
  log(describe('cold start, cache empty', empty.cold));
  await stop(empty);
  const filled = await coldStart(bundle, state, options, true, current, next, log);
  log(describe('cold start, cache filled', filled.cold));
  const onSwitch = await switchTo(filled, next, log);

  return {
    distance: options.distance,
    connections: options.connections,
    databaseBytes: next.shards[0]?.bytes ?? 0,
    noCache: { cold: off.cold, switch: offSwitch },
    cache: { coldEmpty: empty.cold, coldFilled: filled.cold, switch: onSwitch },
  };
}

/**
 * Runs the benchmark at each of `distances` in turn, each a cold start and a switch with the cache off,
 * then on: the first row's cached cold start reads R2 and fills the cache, the later rows' read that
 * copy (the switch to the other build always reads R2, whose cached copy each run deletes first). A row
 * that fails or overruns ({@link PHASE_LIMIT_MS} a phase) is reported as such, and the next one runs.
 */
export async function benchSweep(
  options: Omit<BenchOptions, 'distance'> & { readonly distances: readonly Distance[] },
  log: (line: string) => void = () => {},
): Promise<SweepReport> {
  const { bundle, state, current, next } = await stage(options.work, log);
  const rows: SweepRow[] = [];
  for (const distance of options.distances) {
    const started = performance.now();
    const at = { ...options, distance };
    log(`R2 ${distance.latencyMs} ms to the first byte, ${distance.megabytesPerSecond} MB/s:`);
    try {
      const off = await coldStart(bundle, state, at, false, current, next, log);
      log(describe('cache off, cold start', off.cold));
      const offSwitch = await switchTo(off, next, log);
      const on = await coldStart(bundle, state, at, true, current, next, log);
      log(describe('cache on, cold start', on.cold));
      const onSwitch = await switchTo(on, next, log);
      const seconds = (performance.now() - started) / 1000;
      rows.push({ distance, noCache: { cold: off.cold, switch: offSwitch }, cache: { cold: on.cold, switch: onSwitch }, seconds });
      log(`  (${seconds.toFixed(0)} s)`);
    } catch (error) {
      const message = (error as Error).message.split('\n')[0] ?? String(error);
      log(`  failed: ${message}`);
      rows.push({ distance, error: message });
    }
  }
  return { connections: options.connections, databaseBytes: next.shards[0]?.bytes ?? 0, rows };
}
