/**
 * @module A paid deployment as `npm run dev:paid` runs it, for Node tests that stop and start the
 * runtime: the `de` app and the usage Worker (bundled as `wrangler deploy` bundles them), with local
 * storage in a state directory laid out as wrangler dev's `--persist-to` (so that the operator tool
 * reads it with `--persist-to`), in a workerd process of their own through Miniflare. A tail Worker
 * reports each of the app's invocations when it has ended, its `waitUntil` work included: the moment
 * Workers may end an isolate.
 */
import { basename, dirname, join } from 'node:path';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { DATABASE_FILE } from '../../data/build.ts';
import { publishBuildFile } from '../../data/publish/build-file.ts';
import type { R2Like } from '../../data/publish/r2-bucket.ts';
import { readWranglerToml } from '../../scripts/deploy/config.ts';
import { USAGE_WORKER, writeUsageConfig } from '../../scripts/deploy/usage.ts';
import { bundleWorker, ROOT } from './bundle.ts';

const APP = 'ipgeo-de';
const TAIL = 'invocations';

/** Reports every ended invocation that had a request (the app's fetches) to Node, with its URL. */
const TAIL_SCRIPT = `export default {
  async tail(events, env) {
    for (const event of events) {
      const url = event.event && event.event.request && event.event.request.url;
      if (url) await env.REPORT.fetch('http://report/', { method: 'POST', body: url });
    }
  },
};`;

/** The bundles of the app and the usage Worker. */
export interface PaidBundles {
  readonly app: string;
  readonly usage: string;
  /** The usage Worker's configuration (`scripts/deploy/usage.ts`). */
  readonly usageConfig: string;
}

/** Bundles the `de` app and the usage Worker into `dir`. */
export function paidBundles(dir: string): PaidBundles {
  const usageConfig = writeUsageConfig(readWranglerToml(join(ROOT, 'wrangler.toml')), ROOT, join(dir, 'config'));
  return { app: bundleWorker('wrangler.toml', 'de', join(dir, 'app')), usage: bundleWorker(usageConfig, 'de', join(dir, 'usage')), usageConfig };
}

/** A running paid deployment. */
export interface PaidRuntime {
  /** Sends a request to the app. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** The usage Worker's own address on loopback. */
  readonly usageUrl: URL;
  /** The URLs of the app's invocations that have ended, waitUntil included, in the order they ended. */
  readonly ended: readonly string[];
  /** Publishes the compiled database into the app's bucket as current. */
  seedDatabase(): Promise<void>;
  /** Stops the runtime at once (workerd is killed), as a machine that stops would. */
  dispose(): Promise<void>;
}

/**
 * Starts the app and the usage Worker on the state directory `state` (wrangler dev's `--persist-to`).
 */
export async function startPaidRuntime(state: string, bundles: PaidBundles, options: { usageReadToken?: string } = {}): Promise<PaidRuntime> {
  const workerOptions = (configPath: string) => {
    const w = unstable_getMiniflareWorkerOptions(configPath, 'de').workerOptions;
    const { compatibilityDate, compatibilityFlags, bindings, kvNamespaces, r2Buckets, durableObjects } = w;
    return { modules: true, compatibilityDate, compatibilityFlags, bindings, kvNamespaces, r2Buckets, durableObjects };
  };
  const ended: string[] = [];
  const miniflare = new Miniflare(
    convertV4MiniflareOptions({
      resourcePersistencePath: join(state, 'v3'),
      workers: [
        // Module names are relative to rootPath, and workerd refuses `..` in them.
        { name: APP, rootPath: dirname(bundles.app), scriptPath: basename(bundles.app), ...workerOptions(join(ROOT, 'wrangler.toml')), tails: [TAIL] },
        {
          name: USAGE_WORKER,
          rootPath: dirname(bundles.usage),
          scriptPath: basename(bundles.usage),
          ...workerOptions(bundles.usageConfig),
          bindings: options.usageReadToken === undefined ? {} : { USAGE_READ_TOKEN: options.usageReadToken },
          // Its own socket, as its workers.dev address: the operator's reads.
          unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
        },
        {
          name: TAIL,
          modules: true,
          script: TAIL_SCRIPT,
          compatibilityDate: '2026-11-01',
          serviceBindings: {
            REPORT: async (request: Request) => {
              ended.push(await request.text());
              return new Response(null, { status: 204 });
            },
          },
        },
      ],
    } as Parameters<typeof convertV4MiniflareOptions>[0]),
  );
  await miniflare.ready;
  const usageUrl = await miniflare.unsafeGetDirectURL(USAGE_WORKER);
  return {
    usageUrl,
    fetch: (path, init) => miniflare.dispatchFetch(`http://de.paid.test${path}`, init as never) as unknown as Promise<Response>,
    ended,
    async seedDatabase() {
      await publishBuildFile((await miniflare.getR2Bucket('GEO_DATA', APP)) as unknown as R2Like, DATABASE_FILE);
    },
    dispose: () => miniflare.dispose(),
  };
}
