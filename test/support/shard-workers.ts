/**
 * @module The shard Workers of the sharded test project (`vitest.config.ts`), run in Node when the
 * project starts: the shard entry (`src/shard.ts`) bundled as `wrangler deploy` bundles it, from the
 * configuration `npm run deploy` would write (`scripts/deploy/shards.ts`), and the Miniflare options of
 * one auxiliary Worker per shard, bound to the app under test as `SHARD_0` … with the `Shard` entrypoint.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LegacyWorkerOptions } from 'miniflare';
import { readWranglerToml } from '../../scripts/deploy/config.ts';
import { SHARD_ENTRYPOINT, shardBinding, shardConfig } from '../../scripts/deploy/shards.ts';
import { bundleWorker, ROOT } from './bundle.ts';

/** One shard Worker as Miniflare runs it, and the app's binding to it. */
export interface ShardWorkers {
  /** Auxiliary Workers (`miniflare.workers`). */
  readonly workers: LegacyWorkerOptions[];
  /** The app's service bindings to them (`miniflare.serviceBindings`). */
  readonly bindings: Record<string, { name: string; entrypoint: string }>;
}

/**
 * Bundles the shard entry and describes `count` shard Workers of `environment` of `wrangler.toml`.
 *
 * @param dir where the configuration and the bundle are written (under `.wrangler/`): one per
 *   environment, since each project's Miniflare reads its bundle from there while the next is made.
 */
export function shardWorkers(environment: string, count: number, dir = join(ROOT, '.wrangler', 'test-shards', environment)): ShardWorkers {
  const toml = readWranglerToml(join(ROOT, 'wrangler.toml'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, 'shard.json');
  writeFileSync(configPath, JSON.stringify(shardConfig(toml, environment, 0, count, ROOT)));
  const scriptPath = bundleWorker(configPath, environment, join(dir, 'bundle'));
  const workers = Array.from({ length: count }, (_, index): LegacyWorkerOptions & { name: string } => {
    const config = shardConfig(toml, environment, index, count, ROOT) as {
      name: string;
      compatibility_date: string;
      compatibility_flags: string[];
      vars: Record<string, string>;
      r2_buckets: { binding: string; bucket_name: string }[];
    };
    return {
      name: config.name,
      modules: true,
      scriptPath,
      compatibilityDate: config.compatibility_date,
      compatibilityFlags: config.compatibility_flags,
      bindings: config.vars,
      r2Buckets: Object.fromEntries(config.r2_buckets.map(({ binding, bucket_name }) => [binding, bucket_name])),
    };
  });
  const bindings = Object.fromEntries(workers.map((worker, index) => [shardBinding(index), { name: worker.name, entrypoint: SHARD_ENTRYPOINT }]));
  return { workers, bindings };
}
