/**
 * @module Runs a built Worker bundle with `workerd serve` on a configuration written here, of only what
 * the Worker binds: the Worker, its Durable Object class (storage in memory), and the local R2 and KV
 * stores it binds, served by Miniflare's own simulators on the same directory as
 * {@link startDeployment} (so a database seeded there is read here).
 *
 * Miniflare's own configuration also starts its entry worker (what its Node API dispatches through),
 * its cache, e-mail and dev-control services, in the same process and before the Worker listens; a
 * deployed Worker has none of them, and they are most of what a fresh Miniflare costs before the
 * first request (`npm run bench:cold` measures both). The simulators of R2 and KV stay: the
 * database has to come from the local R2 store.
 *
 * The simulators' service definitions come from Miniflare's exported plugins (`R2_PLUGIN`,
 * `KV_PLUGIN`), and the configuration is encoded by its `serializeConfig`, so they follow the
 * installed Miniflare. A binding of another kind than these is refused, not dropped.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { getDurableObjectUniqueKey, KV_PLUGIN, kVoid, R2_PLUGIN, serializeConfig } from 'miniflare';
import { type Environment, miniflareOptions, type RunningWorker, workerName } from './deployment.ts';

const requireFromMiniflare = createRequire(createRequire(import.meta.url).resolve('miniflare'));
/** The workerd binary Miniflare runs (the `workerd` package's default export is its path). */
const WORKERD: string = requireFromMiniflare('workerd').default;
/** Miniflare's worker scripts; its simulators import `miniflare:shared` and `miniflare:zod` from here. */
const MINIFLARE_WORKERS = join(dirname(requireFromMiniflare.resolve('miniflare')), 'workers');

/** The socket the Worker is served on, in the configuration and in workerd's control messages. */
const SOCKET = 'http';

// The configuration's shapes are workerd's (workerd.capnp) as Miniflare types them; only what is
// written here is spelled out.
type Binding = Record<string, unknown> & { name: string };
type Config = Parameters<typeof serializeConfig>[0];
type PluginArguments = Parameters<typeof R2_PLUGIN.getServices>[0];
type WorkerOptions = Parameters<typeof R2_PLUGIN.getBindings>[0];
type SharedOptions = Parameters<typeof R2_PLUGIN.getBindings>[1];

/** One binding of the Worker's `env`, as Miniflare parses `wrangler.toml` (`config.env`). */
interface EnvEntry {
  readonly type: string;
  readonly value?: unknown;
  readonly worker?: string;
  readonly exportName?: string;
}

/**
 * The workerd configuration (Cap'n Proto, binary) that runs `bundle` as `environment`.
 *
 * @throws Error when the Worker binds something other than text or JSON variables, R2, KV or its own
 *   Durable Object classes.
 */
async function leanConfig(environment: Environment, bundle: string, persistDir: string, tmpPath: string): Promise<Uint8Array> {
  const options = miniflareOptions(environment, bundle, persistDir);
  const worker = options.workers?.[0] as unknown as WorkerOptions & {
    config: {
      env: Record<string, EnvEntry>;
      exports?: Record<string, { type: string; storage?: string }>;
      compatibilityDate: string;
      compatibilityFlags?: string[];
    };
  };
  const shared = options as unknown as SharedOptions;
  const name = workerName(environment);
  const bindings: Binding[] = [];
  for (const [binding, entry] of Object.entries(worker.config.env)) {
    if (entry.type === 'text') bindings.push({ name: binding, text: String(entry.value) });
    else if (entry.type === 'json') bindings.push({ name: binding, json: JSON.stringify(entry.value) });
    else if (entry.type === 'durable-object' && entry.worker === name)
      bindings.push({ name: binding, durableObjectNamespace: { className: entry.exportName } });
    else if (entry.type !== 'r2' && entry.type !== 'kv')
      throw new Error(`binding ${binding}: a ${entry.type} binding is not in the lean workerd configuration (bench/worker/serve.ts)`);
  }
  bindings.push(...((await R2_PLUGIN.getBindings(worker, shared, 0)) as Binding[]), ...((await KV_PLUGIN.getBindings(worker, shared, 0)) as Binding[]));
  const objects = Object.entries(worker.config.exports ?? {}).filter(([, entry]) => entry.type === 'durable-object');
  const simulators = { options: worker, sharedOptions: shared, tmpPath } as unknown as PluginArguments;
  const config = {
    services: [
      {
        name: `core:user:${name}`,
        worker: {
          modules: [{ name: basename(bundle), esModule: readFileSync(bundle, 'utf8') }],
          compatibilityDate: worker.config.compatibilityDate,
          compatibilityFlags: worker.config.compatibilityFlags,
          bindings,
          // Declared as Miniflare declares them, with their storage in memory as under
          // `unsafeEphemeralDurableObjects` (always here: BENCH_DO_ON_DISK applies to Miniflare starts only).
          durableObjectNamespaces: objects.map(([className, entry]) => ({
            className,
            enableSql: entry.storage === 'sqlite',
            uniqueKey: getDurableObjectUniqueKey(className, name, undefined),
          })),
          durableObjectStorage: objects.length > 0 ? { inMemory: kVoid } : undefined,
        },
      },
      ...((await R2_PLUGIN.getServices(simulators)) as Config['services'] & unknown[]),
      ...((await KV_PLUGIN.getServices(simulators)) as Config['services'] & unknown[]),
      // The simulators bind Miniflare's loopback service, through which they would call back into
      // Miniflare's Node process; there is none here, and reading and writing objects does not call it.
      { name: 'loopback', external: { address: '127.0.0.1:9', http: {} } },
    ],
    sockets: [{ name: SOCKET, address: '127.0.0.1:0', service: { name: `core:user:${name}` }, http: {} }],
    extensions: [
      {
        modules: [
          { name: 'miniflare:shared', esModule: readFileSync(join(MINIFLARE_WORKERS, 'shared', 'index.worker.js'), 'utf8') },
          { name: 'miniflare:zod', esModule: readFileSync(join(MINIFLARE_WORKERS, 'shared', 'zod.worker.js'), 'utf8') },
        ],
      },
    ],
  } as Config;
  return serializeConfig(config);
}

/**
 * Starts `bundle` in a fresh `workerd serve` process on {@link leanConfig}, and resolves once workerd
 * says (on its control pipe) that the Worker's socket is listening.
 *
 * @param persistDir the local R2 and KV stores, as {@link startDeployment} was given them.
 * @throws Error when workerd exits before listening (its standard error is in the message).
 */
export async function serveBundle(environment: Environment, bundle: string, persistDir: string): Promise<RunningWorker> {
  const tmpPath = mkdtempSync(join(tmpdir(), 'ipgeo-serve-'));
  const config = await leanConfig(environment, bundle, persistDir, tmpPath);
  const spawnedAt = performance.now();
  const child = spawn(WORKERD, ['serve', '--binary', '--experimental', '--control-fd=3', '-'], { stdio: ['pipe', 'ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(tmpPath, { recursive: true, force: true });
  };
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin?.end(config);
  let port = 0;
  for await (const line of createInterface(child.stdio[3] as Readable)) {
    const message = JSON.parse(line) as { event?: string; socket?: string; port?: number };
    if (message.event === 'listen' && message.socket === SOCKET) {
      port = message.port ?? 0;
      break;
    }
  }
  const readyAt = performance.now();
  if (!port || child.pid === undefined) {
    await stop();
    throw new Error(`workerd serve stopped before listening:\n${stderr}`);
  }
  return { environment, url: new URL(`http://127.0.0.1:${port}/`), pid: child.pid, spawnedAt, readyAt, dispose: stop };
}
