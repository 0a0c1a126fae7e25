/**
 * @module The usage Worker (`ipgeo-usage`, docs/storage.md, "Usage"): its wrangler configuration, made
 * from `wrangler.toml` for `npm run dev:paid`, `npm run deploy`, the operator tool and the tests, and
 * written under `.wrangler/`, never over `wrangler.toml`. It defines the `UsageLedger` Durable Object
 * class that the paid deployments bind by this Worker's name, and answers the operator's reads on its
 * `workers.dev` address (`src/usage/operator-reads.ts`).
 */
import { join, resolve } from 'node:path';
import { writeDeployConfig } from './config.ts';
import { withInvocationLogs } from './logs.ts';
import { PAID_ENVIRONMENTS } from './settings.ts';

type Json = Record<string, unknown>;

/** The usage Worker's name, which the paid deployments' `USAGE` bindings name as `script_name` in `wrangler.toml`. */
export const USAGE_WORKER = 'ipgeo-usage';

/** Its entry module, relative to the repository root. */
const USAGE_MAIN = 'src/usage-store.ts';

/**
 * The usage Worker's configuration: the app's compatibility settings, limits and logs, the class and
 * its migration, and the binding to it that its operator reads use. Its environment sections (one per
 * paid deployment, since wrangler applies `--env` to every configuration of a multi-Worker `wrangler
 * dev`) repeat it, as environments inherit no bindings; every one is the same Worker.
 *
 * @param root the repository root (the entry's path is made absolute: the file is written elsewhere).
 * @param invocationLogs whether it writes invocation logs (the deploy's setting); as `config`'s
 *   `observability` says (off in `wrangler.toml`) when undefined.
 */
function usageConfig(config: Json, root: string, invocationLogs?: boolean): Json {
  const worker = {
    name: USAGE_WORKER,
    workers_dev: true,
    preview_urls: false,
    limits: config.limits,
    observability: invocationLogs === undefined ? config.observability : withInvocationLogs(config.observability, invocationLogs),
    durable_objects: { bindings: [{ name: 'USAGE', class_name: 'UsageLedger' }] },
  };
  return {
    ...worker,
    main: resolve(root, USAGE_MAIN),
    compatibility_date: config.compatibility_date,
    compatibility_flags: config.compatibility_flags,
    keep_names: config.keep_names,
    migrations: [{ tag: 'v1', new_sqlite_classes: ['UsageLedger'] }],
    env: Object.fromEntries(PAID_ENVIRONMENTS.map((environment) => [environment, worker])),
  };
}

/**
 * Writes the usage Worker's configuration into `dir`.
 *
 * @param options.invocationLogs whether it writes invocation logs; by default as `wrangler.toml` says (off).
 * @returns its path.
 */
export function writeUsageConfig(config: Json, root: string, dir: string, options: { invocationLogs?: boolean } = {}): string {
  const path = join(dir, `${USAGE_WORKER}.json`);
  writeDeployConfig(path, usageConfig(config, root, options.invocationLogs));
  return path;
}
