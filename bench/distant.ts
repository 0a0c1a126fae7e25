/**
 * @module The cold start and the switch when R2 is far: the production free Worker run through
 * `worker/distant.js`, whose R2 answers each read after a first-byte delay and streams at a chosen
 * throughput, with the Workers cache off (as on `*.workers.dev`), empty, or filled by an earlier isolate.
 *
 * Under a steady load of `connections` clients (each request after the previous one, 5 ms apart, from
 * client addresses that stay far below the free plan's limit), it measures: the cold start (first lookup
 * of a fresh workerd process answered), the CPU of that load (busy time of the isolate's V8 profile,
 * since a Worker's clock stands still while it computes: the samples under reading, hashing and parsing), the isolate's peak memory during it (heap in
 * use plus ArrayBuffers, sampled every 25 ms, no collection forced), and, after another build is
 * published, the slowest request and the failed ones until every answer names the new version (the
 * isolate checks at most once a minute, so each switch takes a minute to begin).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DATABASE_FILE } from '../data/build.ts';
import { type R2Like, r2Bucket } from '../data/publish/r2-bucket.ts';
import { type Publication, publishTo, wholeFilePublication } from '../data/publish/record.ts';
import { mib } from './stats.ts';
import { buildBundle, type Deployment, seedDatabase, startDeployment, workerName } from './worker/deployment.ts';
import { HeapPeak, Inspector } from './worker/inspector.ts';

/** How far R2 is. */
interface Distance {
  readonly latencyMs: number;
  readonly megabytesPerSecond: number;
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
}

/** One switch. */
export interface SwitchFigures {
  /** Requests from the publication until 2 s after the first answer from the new version. */
  readonly requests: number;
  readonly failed: number;
  readonly slowestMs: number;
  /** The publication until the first answer from the new version, ms (most of it the minute's wait). */
  readonly seenAfterMs: number;
  readonly peakBytes: number;
  readonly peakArrayBufferBytes: number;
}

/** Everything the distant benchmark measured. */
export interface DistantReport {
  readonly distance: Distance;
  readonly connections: number;
  readonly databaseBytes: number;
  /** The cache off: every load reads R2. */
  readonly noCache: { readonly cold: ColdFigures; readonly switch: SwitchFigures };
  /** The cache on: a first isolate finds it empty, a second one finds the copy the first left. */
  readonly cache: { readonly coldEmpty: ColdFigures; readonly coldFilled: ColdFigures; readonly switch: SwitchFigures };
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
 * The functions of a load's CPU work (`src/geo/stored.ts`, `identity.ts`, `database.ts`): reading the body
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

/** A running deployment with its inspector, heap sampler and steady load. */
interface Running {
  readonly deployment: Deployment;
  readonly inspector: Inspector;
  readonly heap: HeapPeak;
  readonly load: SteadyLoad;
  readonly cold: ColdFigures;
}

/** Starts a fresh process and measures its cold start under the steady load, which keeps going. */
async function coldStart(bundle: string, state: string, options: BenchOptions, cache: boolean): Promise<Running> {
  const deployment = await startDeployment('free', bundle, state, {
    inspectorPort: options.inspectorPort,
    cache,
    vars: { BENCH_R2_LATENCY_MS: String(options.distance.latencyMs), BENCH_R2_MBPS: String(options.distance.megabytesPerSecond) },
  });
  const inspector = await Inspector.connect(options.inspectorPort, workerName('free'));
  await inspector.send('Profiler.enable');
  await inspector.send('Profiler.setSamplingInterval', { interval: 100 });
  const heap = new HeapPeak(inspector);
  await sleep(200);
  heap.reset();
  await inspector.send('Profiler.start');
  const started = performance.now();
  const load = new SteadyLoad(deployment.url, options.connections);
  const deadline = started + 120_000;
  let answered: Sample | undefined;
  while (!answered && performance.now() < deadline) {
    await sleep(2);
    answered = load.samples.find((s) => s.status === 200);
  }
  const { profile } = await inspector.send<{ profile: CpuProfile }>('Profiler.stop');
  if (!answered) throw new Error('no lookup was answered within 120 s of the start');
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
  };
  return { deployment, inspector, heap, load, cold };
}

/** Publishes `build` and waits until answers name it; then stops the deployment. */
async function switchTo(running: Running, build: Build, log: (line: string) => void): Promise<SwitchFigures> {
  const { deployment, load, heap } = running;
  const bucket = (await deployment.miniflare.getR2Bucket('GEO_DATA', workerName('free'))) as unknown as R2Like;
  heap.reset();
  const publishedAt = performance.now();
  // Its object is there already (see `seed`): only the current record is written.
  await publishTo(r2Bucket(bucket, 'GEO_DATA'), build, new Date(), () => {});
  let seen: Sample | undefined;
  while (!seen && performance.now() - publishedAt < 120_000) {
    await sleep(100);
    seen = load.samples.find((s) => s.sentAt >= publishedAt && s.version === build.version);
  }
  if (!seen) throw new Error(`${build.version} was not answered within 120 s of its publication`);
  const seenAt = seen.sentAt + seen.ms;
  await sleep(2000);
  await load.stop();
  running.heap.stop();
  running.inspector.close();
  await deployment.dispose();
  const during = load.samples.filter((s) => s.sentAt >= publishedAt && s.sentAt <= seenAt + 2000);
  const figures = {
    requests: during.length,
    failed: during.filter((s) => s.status !== 200).length,
    slowestMs: Math.max(...during.map((s) => s.ms)),
    seenAfterMs: seenAt - publishedAt,
    peakBytes: heap.peak,
    peakArrayBufferBytes: heap.arrayBuffersAtPeak,
  };
  log(
    `  switch: ${figures.requests} requests, ${figures.failed} failed, slowest ${figures.slowestMs.toFixed(0)} ms; seen ${(figures.seenAfterMs / 1000).toFixed(1)} s after publishing; ` +
      `isolate peak ${mib(figures.peakBytes)} (ArrayBuffers ${mib(figures.peakArrayBufferBytes)})`,
  );
  return figures;
}

/** Ends a run that is not switched: the steady load, the sampler, the process. */
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
  return `  ${what}: cold start ${cold.coldMs.toFixed(0)} ms, load CPU ${cold.cpuMs.toFixed(0)} ms, slowest request ${cold.slowestMs.toFixed(0)} ms, ${cold.failed} failed, isolate peak ${mib(cold.peakBytes)} (ArrayBuffers ${mib(cold.peakArrayBufferBytes)})`;
}

/** Runs the benchmark: the cache off, then on (empty, then filled), each with a switch. */
export async function benchDistant(options: BenchOptions, log: (line: string) => void = () => {}): Promise<DistantReport> {
  const bundle = buildBundle('free', join(options.work, 'distant-bundle'), 'bench/worker/distant.js');
  const next = otherBuild();
  /**
   * Publishes the other build, then the default one again: both objects are in R2 and the default is
   * current. Uploading 61 MiB into Miniflare's R2 holds up its workerd process for seconds, so it is
   * done here, not while the switch is measured.
   */
  const seed = async (state: string) => {
    // Miniflare's proxy to R2 now and then drops a 61 MiB upload ("other side closed"): tried three times.
    for (let attempt = 1; ; attempt++) {
      const seeding = await startDeployment('free', bundle, state);
      try {
        const bucket = r2Bucket((await seeding.miniflare.getR2Bucket('GEO_DATA', workerName('free'))) as unknown as R2Like, 'GEO_DATA');
        await publishTo(bucket, next, new Date(), () => {});
        await seedDatabase(seeding, DATABASE_FILE);
        return;
      } catch (error) {
        if (attempt === 3) throw error;
        log(`  seeding failed (${(error as Error).message}); again`);
      } finally {
        await seeding.dispose();
      }
    }
  };

  log('the Workers cache off:');
  const offState = join(options.work, 'distant-off');
  await seed(offState);
  const off = await coldStart(bundle, offState, options, false);
  log(describe('cold start', off.cold));
  const offSwitch = await switchTo(off, next, log);

  log('the Workers cache on:');
  const onState = join(options.work, 'distant-on');
  await seed(onState);
  const empty = await coldStart(bundle, onState, options, true);
  log(describe('cold start, cache empty', empty.cold));
  await stop(empty);
  const filled = await coldStart(bundle, onState, options, true);
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
