/**
 * @module Runs a built Worker bundle in workerd through Miniflare, the way the benchmarks need it:
 * bindings from `wrangler.toml` (R2, KV, the rate limiter's Durable Object; beside a paid app, the usage
 * Worker whose Durable Objects count its usage), local storage in a
 * directory of its own, and the Worker served on a loopback socket of its own
 * (`unsafeDirectSockets`), so that requests reach it without Miniflare's entry worker or wrangler's
 * proxy in front.
 *
 * Plain `workerd serve` has no local R2 or KV; Miniflare generates the workerd configuration with
 * those simulated (inside the same workerd process) and spawns the `workerd` binary installed with it.
 */
import { execFileSync } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { convertV4MiniflareOptions, Miniflare, type MiniflareOptions } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { publishBuildFile } from '../../data/publish/build-file.ts';
import type { R2Like } from '../../data/publish/r2-bucket.ts';
import { readWranglerToml } from '../../scripts/deploy/config.ts';
import { writeShardConfigs } from '../../scripts/deploy/shards.ts';
import { USAGE_WORKER, writeUsageConfig } from '../../scripts/deploy/usage.ts';
import { CURRENT_RECORD_KEY } from '../../src/geo/published.ts';

/** The project root (where `wrangler.toml` is). */
export const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * The next port to listen on: from `BENCH_PORT_BASE` up, one per socket, where a shared machine gives
 * each checkout its own ports; 0 (any free port) when it is not set.
 */
function nextPort(): number {
  const base = Number(process.env.BENCH_PORT_BASE);
  return Number.isInteger(base) && base > 0 ? base + portsTaken++ : 0;
}
let portsTaken = 0;

/** A wrangler environment of `wrangler.toml`: the free deployment and one paid one stand for all. */
export type Environment = 'free' | 'de';

/** A Worker running in a workerd process of its own. */
export interface RunningWorker {
  readonly environment: Environment;
  /** The Worker's own socket, e.g. `http://127.0.0.1:40123/`. */
  readonly url: URL;
  /** Process id of the workerd process that runs it. */
  readonly pid: number;
  /** `performance.now()` when the workerd process was spawned, and when it was accepting requests. */
  readonly spawnedAt: number;
  readonly readyAt: number;
  dispose(): Promise<void>;
}

/** A Worker run through Miniflare, which can also reach its bindings from Node (to seed R2 and KV). */
export interface Deployment extends RunningWorker {
  readonly miniflare: Miniflare;
}

/**
 * Bundles the Worker as `wrangler deploy` would (esbuild, `nodejs_compat`), without deploying.
 *
 * @param entry another entry module than `main` of `wrangler.toml` (relative to the root), if any.
 * @param options.checkout the project checkout to bundle (`bench:ab` builds another one), by default this one;
 *   `options.wranglerArgs` extra arguments of `wrangler deploy` (e.g. `--minify`).
 * @returns the bundle's path (one ES module).
 */
export function buildBundle(
  environment: Environment,
  outDir: string,
  entry?: string,
  options: { checkout?: string; wranglerArgs?: readonly string[] } = {},
): string {
  rmSync(outDir, { recursive: true, force: true });
  const args = ['wrangler', 'deploy', ...(entry ? [entry] : []), '--dry-run', '--outdir', outDir, '--env', environment, ...(options.wranglerArgs ?? [])];
  execFileSync('npx', args, { cwd: options.checkout ?? ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const script = readdirSync(outDir).find((name) => name.endsWith('.js'));
  if (!script) throw new Error(`wrangler wrote no bundle into ${outDir}`);
  return join(outDir, script);
}

/** Child processes as Node creates them (the channel fires just before the spawn, pid not yet known). */
const spawned: { at: number; process: { spawnfile?: string | null; pid?: number | undefined } }[] = [];
subscribe('child_process', (message) => {
  spawned.push({ at: performance.now(), process: (message as { process: (typeof spawned)[number]['process'] }).process });
});

/** The workerd process spawned last (by Miniflare), and when; forgets the spawns seen so far. */
export function lastWorkerd(): { at: number; pid: number } {
  const found = spawned.findLast((s) => s.process.spawnfile?.includes('workerd') && s.process.pid !== undefined);
  if (!found) throw new Error('no workerd process was spawned');
  spawned.length = 0;
  return { at: found.at, pid: found.process.pid as number };
}

/** The usage Worker's bundle (`src/usage-store.ts`), built once per process, removed at its exit. */
let usageBundle: string | undefined;

/**
 * The usage Worker that a paid deployment's `USAGE` binding names (`scripts/deploy/usage.ts`), bundled
 * from this checkout: it runs beside every paid app, whichever checkout the app is of.
 */
function usageWorkerBundle(): string {
  if (usageBundle === undefined) {
    const dir = join(ROOT, '.wrangler', 'bench', `usage-${process.pid}`);
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    const config = writeUsageConfig(readWranglerToml(join(ROOT, 'wrangler.toml')), ROOT, dir);
    usageBundle = buildBundle('de', join(dir, 'bundle'), undefined, { wranglerArgs: ['--config', config] });
  }
  return usageBundle;
}

/**
 * Miniflare's options for running `bundle` as `environment` of `wrangler.toml` (its bindings, compatibility
 * date and flags), in the shape Miniflare takes them (`convertV4MiniflareOptions`). Shared by
 * {@link startDeployment} and `serve.ts`, so that both run the Worker with the same bindings.
 *
 * @param persistDir local storage (R2, KV, Durable Objects, the Workers cache) of this deployment; reused across starts.
 */
export function miniflareOptions(environment: Environment, bundle: string, persistDir: string, options: StartOptions = {}): MiniflareOptions {
  const { workerOptions: w } = unstable_getMiniflareWorkerOptions(join(ROOT, 'wrangler.toml'), environment);
  const vars = w.bindings as Record<string, string> | undefined;
  // A sharded build: its shard Workers beside the app, on the same bucket, bound as SHARD_0 … (src/shard.ts).
  const shards = Array.from({ length: options.shards?.count ?? 0 }, (_, index) => ({
    name: shardWorkerName(environment, index),
    rootPath: dirname(options.shards?.bundle ?? ''),
    modules: true,
    scriptPath: basename(options.shards?.bundle ?? ''),
    compatibilityDate: w.compatibilityDate,
    compatibilityFlags: w.compatibilityFlags,
    bindings: { PLAN: vars?.PLAN, REGION: vars?.REGION, SHARD_INDEX: String(index), SHARD_COUNT: String(options.shards?.count) },
    cacheAPI: options.cache ?? true,
    r2Buckets: w.r2Buckets,
  }));
  // The paid deployment counts usage into the usage Worker's Durable Objects, kept on disk as wrangler dev keeps them.
  const usage =
    environment === 'de'
      ? [
          {
            name: USAGE_WORKER,
            rootPath: dirname(usageWorkerBundle()),
            modules: true,
            scriptPath: basename(usageWorkerBundle()),
            compatibilityDate: w.compatibilityDate,
            compatibilityFlags: w.compatibilityFlags,
            durableObjects: { USAGE: { className: 'UsageLedger', useSQLite: true } },
          },
        ]
      : [];
  return convertV4MiniflareOptions({
    host: '127.0.0.1',
    port: nextPort(),
    resourcePersistencePath: persistDir,
    logRequests: false,
    ...(options.inspectorPort ? { inspectorPort: options.inspectorPort } : {}),
    ...(options.onLog ? { handleStructuredLogs: ({ message }: { message: string }) => options.onLog?.(message) } : {}),
    workers: [
      {
        name: workerName(environment),
        // Module names are relative to rootPath and workerd refuses `..` in them.
        rootPath: dirname(bundle),
        modules: true,
        scriptPath: basename(bundle),
        compatibilityDate: w.compatibilityDate,
        compatibilityFlags: w.compatibilityFlags,
        bindings: { ...(w.bindings as Record<string, unknown> | undefined), ...options.vars },
        // On by default, as on a custom domain; off, the Workers cache does nothing, as on `*.workers.dev`.
        cacheAPI: options.cache ?? true,
        kvNamespaces: w.kvNamespaces,
        r2Buckets: w.r2Buckets,
        durableObjects: w.durableObjects,
        // Durable Object storage in memory: the rate limiter stores nothing (its log lives in the
        // object's memory, see src/ratelimit/rate-limiter.ts), but local workerd still creates SQLite
        // files on disk, synchronously, for every new object; that local artefact alone capped the
        // free row at about a fifth of the paid one. `npm run bench:http` with BENCH_DO_ON_DISK=1
        // measures with the files.
        unsafeEphemeralDurableObjects: process.env.BENCH_DO_ON_DISK !== '1',
        unsafeDirectSockets: [{ host: '127.0.0.1', port: nextPort() }],
        serviceBindings: Object.fromEntries(
          shards.map((shard, index) => [
            `${options.shards?.binding ?? 'SHARD'}_${index}`,
            { name: shard.name, entrypoint: options.shards?.entrypoint ?? 'Shard' },
          ]),
        ),
      },
      ...shards,
      ...usage,
    ],
  } as Parameters<typeof convertV4MiniflareOptions>[0]);
}

/** How a benchmark starts a Worker. */
export interface StartOptions {
  /** Serves the V8 inspector (DevTools protocol) on this port, for profiles and heap readings. */
  readonly inspectorPort?: number;
  /** Text variables added to those of `wrangler.toml` (a bench entry's settings). */
  readonly vars?: Readonly<Record<string, string>>;
  /** Whether the Workers cache (`caches`) keeps anything; true by default. */
  readonly cache?: boolean;
  /** Takes each line the Workers log (`console.log`, `console.error`) instead of Miniflare printing it. */
  readonly onLog?: (line: string) => void;
  /**
   * Shard Workers beside the app, for a sharded build: the bundle of `src/shard.ts` ({@link buildBundle})
   * and how many, bound as `SHARD_0` … to their `Shard` entrypoint; or other Workers bound in the same
   * way under another `binding` prefix and `entrypoint` (`bench:ab --b-hops`).
   */
  readonly shards?: { readonly bundle: string; readonly count: number; readonly binding?: string; readonly entrypoint?: string };
}

/** The Worker's name in the benchmarks' workerd configurations. */
export function workerName(environment: Environment): string {
  return `bench-${environment}`;
}

/** The name of shard Worker `index` beside the app of `environment`. */
export function shardWorkerName(environment: Environment, index: number): string {
  return `${workerName(environment)}-shard-${index}`;
}

/**
 * Starts a bundle in a fresh workerd process, through Miniflare.
 *
 * @param persistDir local storage (R2, KV, Durable Objects, the Workers cache) of this deployment; reused across starts.
 */
export async function startDeployment(environment: Environment, bundle: string, persistDir: string, options: StartOptions = {}): Promise<Deployment> {
  const name = workerName(environment);
  const miniflare = new Miniflare(miniflareOptions(environment, bundle, persistDir, options));
  await miniflare.ready;
  const readyAt = performance.now();
  const url = await miniflare.unsafeGetDirectURL(name);
  const { at: spawnedAt, pid } = lastWorkerd();
  return { environment, url, miniflare, pid, spawnedAt, readyAt, dispose: () => miniflare.dispose() };
}

/** Publishes the compiled database into the deployment's R2 bucket as current (uploaded once per version). */
export async function seedDatabase(deployment: Deployment, file: string): Promise<void> {
  const bucket = await deployment.miniflare.getR2Bucket('GEO_DATA', workerName(deployment.environment));
  await publishBuildFile(bucket as unknown as R2Like, file);
}

/**
 * Publishes the sharded build in `dir` (its manifest's `shards`, `data/output.ts`) into the deployment's
 * R2 bucket as current: every shard's object, then the record naming them (`src/geo/published.ts`).
 */
export async function seedShards(deployment: Deployment, dir: string, version?: string): Promise<string> {
  const bucket = await deployment.miniflare.getR2Bucket('GEO_DATA', workerName(deployment.environment));
  const manifest = JSON.parse(readFileSync(join(dir, 'ipgeo.manifest.json'), 'utf8')) as {
    version: string;
    shards: { file: string; first: string; last: string; bytes: number; sha256: string }[];
  };
  const name = version ?? manifest.version;
  const count = manifest.shards.length;
  const shards = [];
  for (const [index, { file, first, last, bytes, sha256 }] of manifest.shards.entries()) {
    const key = `ipgeo-${name}.shard-${index}-of-${count}.mmdb`;
    await bucket.put(key, readFileSync(join(dir, file)));
    shards.push({ key, first, last, bytes, sha256 });
  }
  const [head] = shards as [(typeof shards)[number]];
  const entry = { version: name, key: head.key, bytes: head.bytes, sha256: head.sha256, publishedAt: new Date().toISOString(), retiredAt: null, shards };
  await bucket.put(CURRENT_RECORD_KEY, JSON.stringify({ v: 1, current: entry, versions: [entry] }));
  return name;
}

/**
 * Bundles the shard Worker entry (`src/shard.ts`) of `checkout` as `npm run deploy` would, from the
 * configuration it writes for shard 0 of `count` of `environment` (`scripts/deploy/shards.ts`).
 */
export function buildShardBundle(environment: Environment, outDir: string, count: number, checkout = ROOT): string {
  const [config] = writeShardConfigs(readWranglerToml(join(checkout, 'wrangler.toml')), environment, count, checkout, join(outDir, 'config'));
  if (config === undefined) throw new Error('a shard bundle needs at least two shards');
  return buildBundle(environment, join(outDir, 'bundle'), undefined, { checkout, wranglerArgs: ['--config', config] });
}

/**
 * CPU time that process `pid` has used, user and system, all threads, in seconds (`utime` and
 * `stime` of /proc/<pid>/stat, in clock ticks of 1/100 s on Linux).
 */
export function cpuSeconds(pid: number): number {
  // The fields after the command name (in parentheses, and it may hold spaces): utime is the 12th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.split(' ') ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`no CPU times for process ${pid}`);
  return ticks / 100;
}

/** Resident set size of a process in bytes (`VmRSS` of /proc/<pid>/status). */
export function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}
