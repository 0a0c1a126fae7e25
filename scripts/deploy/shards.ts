/**
 * @module The shard Workers of a deployment whose build is sharded (`docs/sharding.md`): their names,
 * their wrangler configurations, and the app's service bindings to them, made from `wrangler.toml` for
 * `npm run dev` and `npm run deploy` and written under `.wrangler/`, never over `wrangler.toml`. A shard
 * Worker has its deployment's bucket and names and the shard it serves; no route, no `workers.dev`
 * address, no preview URL: only the app's binding reaches it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { withInvocationLogs } from './logs.ts';

type Json = Record<string, unknown>;

/** The entry module of a shard Worker, relative to the repository root. */
const SHARD_MAIN = 'src/shard.ts';
/**
 * The entrypoint class of `src/shard.ts` that the app's bindings name.
 *
 * @internal Exported for the sharded test project, which binds the app to its shard Workers itself (`test/support/shard-workers.ts`).
 */
export const SHARD_ENTRYPOINT = 'Shard';

/** The app's binding to shard `index` (`src/lookup/shard-calls.ts`, `ShardBindings`). */
export function shardBinding(index: number): string {
  return `SHARD_${index}`;
}

/**
 * The Worker name of shard `index` of `count` of the app Worker `workerName`. The count is in the name,
 * so that a redeploy with another count makes new shard Workers while the old ones keep answering the
 * app that is still deployed.
 *
 * @example shardWorkerName('ipgeo-de', 0, 3) // 'ipgeo-de-shard-0-of-3'
 */
export function shardWorkerName(workerName: string, index: number, count: number): string {
  return `${workerName}-shard-${index}-of-${count}`;
}

function environmentOf(config: Json, environment: string): Json {
  const section = (config.env as Record<string, Json> | undefined)?.[environment];
  if (!section) throw new Error(`wrangler.toml has no [env.${environment}]`);
  return section;
}

/**
 * `config` (wrangler.toml as JSON, or the deploy's copy of it) with `environment`'s app bound to its
 * `count` shard Workers (`SHARD_0` … as `services` with the `Shard` entrypoint); `config` itself when
 * `count` is 1 (the app holds the whole database).
 */
export function withShardBindings(config: Json, environment: string, count: number): Json {
  if (count === 1) return config;
  const result = structuredClone(config);
  const section = environmentOf(result, environment);
  const others = ((section.services ?? []) as Json[]).filter((service) => !String(service.binding).startsWith('SHARD_'));
  section.services = [
    ...others,
    ...Array.from({ length: count }, (_, index) => ({
      binding: shardBinding(index),
      service: shardWorkerName(String(section.name), index, count),
      entrypoint: SHARD_ENTRYPOINT,
    })),
  ];
  return result;
}

/**
 * The configuration of shard `index` of `count` in `environment`: the app's compatibility settings,
 * limits and logs, its bucket and names, `SHARD_INDEX` and `SHARD_COUNT`; no route, `workers_dev` and
 * `preview_urls` off. Its one environment section (named like the app's, since wrangler applies
 * `--env` to every configuration of a multi-Worker `wrangler dev`) repeats it all, as environments
 * inherit no bindings.
 *
 * @param root the repository root (the entry's path is made absolute: the file is written elsewhere).
 * @param invocationLogs whether it writes invocation logs (the deploy's setting); as the app's
 *   `observability` says (off in `wrangler.toml`) when undefined.
 * @internal Exported for the sharded test project, which runs the shard Workers from it (`test/support/shard-workers.ts`).
 */
export function shardConfig(config: Json, environment: string, index: number, count: number, root: string, invocationLogs?: boolean): Json {
  const app = environmentOf(config, environment);
  const vars = app.vars as Record<string, string>;
  const bucket = ((app.r2_buckets ?? []) as { binding: string }[]).find((binding) => binding.binding === 'GEO_DATA');
  if (!bucket || !vars.PLAN || !vars.REGION) throw new Error(`[env.${environment}] of wrangler.toml lacks its GEO_DATA bucket, PLAN or REGION`);
  const worker = {
    name: shardWorkerName(String(app.name), index, count),
    workers_dev: false,
    preview_urls: false,
    limits: app.limits ?? config.limits,
    observability:
      invocationLogs === undefined
        ? (app.observability ?? config.observability)
        : withInvocationLogs(app.observability ?? config.observability, invocationLogs),
    vars: { PLAN: vars.PLAN, REGION: vars.REGION, SHARD_INDEX: String(index), SHARD_COUNT: String(count) },
    r2_buckets: [bucket],
  };
  return {
    ...worker,
    main: resolve(root, SHARD_MAIN),
    compatibility_date: config.compatibility_date,
    compatibility_flags: config.compatibility_flags,
    keep_names: config.keep_names,
    env: { [environment]: worker },
  };
}

/**
 * Writes the configuration of every shard Worker of `environment` into `dir`, one JSON file each.
 *
 * @param options.invocationLogs whether they write invocation logs; by default as `wrangler.toml` says (off).
 * @returns their paths, in shard order; none when `count` is 1.
 */
export function writeShardConfigs(
  config: Json,
  environment: string,
  count: number,
  root: string,
  dir: string,
  options: { invocationLogs?: boolean } = {},
): string[] {
  if (count === 1) return [];
  return Array.from({ length: count }, (_, index) => {
    const shard = shardConfig(config, environment, index, count, root, options.invocationLogs);
    const path = join(dir, `${String(shard.name)}.json`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(shard, null, 2)}\n`);
    return path;
  });
}
