/**
 * @module The configuration that `npm run deploy` hands to wrangler: `wrangler.toml` as committed
 * (which serves `wrangler dev`, the tests and `wrangler types`), with the operator's values put in for
 * every environment: the `ACCOUNTS` namespace id, `PAID_SERVERS`, `CORRECTIONS_URL`, custom domains
 * as routes (a deployment with custom domains is served on them only: no `workers.dev` address, no
 * preview URLs), and whether the app writes invocation logs (`deploy/logs.ts`). It is written to `.wrangler/deploy/wrangler.json`, never over `wrangler.toml`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'smol-toml';
import { withInvocationLogs } from './logs.ts';
import { type DeploySettings, ENVIRONMENTS, type Environment, PAID_ENVIRONMENTS } from './settings.ts';

/** Where the generated configuration is written, relative to the repository root. */
export const DEPLOY_CONFIG = '.wrangler/deploy/wrangler.json';

type Json = Record<string, unknown>;

/** What the deploy needs to know of one environment of `wrangler.toml`. */
export interface EnvironmentFacts {
  /** The Worker's name (`ipgeo-de`). */
  readonly workerName: string;
  /** The R2 bucket bound as `GEO_DATA`, where `data:publish` puts the database. */
  readonly bucket: string;
  /** `PLAN`: which status path the deployment answers. */
  readonly plan: 'free' | 'paid';
}

/** The raw `wrangler.toml` (a TOML document as JSON). */
export function readWranglerToml(path: string): Json {
  return parse(readFileSync(path, 'utf8')) as Json;
}

function environmentOf(config: Json, environment: Environment): Json {
  const section = (config.env as Record<string, Json> | undefined)?.[environment];
  if (!section) throw new Error(`wrangler.toml has no [env.${environment}]`);
  return section;
}

/**
 * The facts of `environment` as `wrangler.toml` declares them.
 *
 * @throws {Error} when the environment, its `GEO_DATA` bucket or its `PLAN` is missing.
 */
export function environmentFacts(config: Json, environment: Environment): EnvironmentFacts {
  const section = environmentOf(config, environment);
  const buckets = (section.r2_buckets ?? []) as { binding: string; bucket_name: string }[];
  const bucket = buckets.find((binding) => binding.binding === 'GEO_DATA')?.bucket_name;
  const vars = (section.vars ?? {}) as Record<string, string>;
  if (!bucket || !vars.PLAN) throw new Error(`[env.${environment}] of wrangler.toml lacks its GEO_DATA bucket or PLAN`);
  return { workerName: String(section.name), bucket, plan: vars.PLAN === 'paid' ? 'paid' : 'free' };
}

/**
 * `wrangler.toml` with the operator's values in every environment (and at the top level, which
 * `wrangler types` reads): the `ACCOUNTS` id (left out when `accountsKvId` is null, as a dry run may),
 * `PAID_SERVERS` from the paid origins, `CORRECTIONS_URL`, and each environment's custom domains as
 * `routes`, with `workers_dev` and `preview_urls` false there (`wrangler.toml`'s `workers_dev = true`
 * is for the others), and each environment's invocation logs as `settings.invocationLogs.apps` says.
 * Relative paths are made absolute, since the result is written elsewhere.
 *
 * @param root the repository root (where `wrangler.toml` is).
 */
export function deployConfig(config: Json, settings: DeploySettings, accountsKvId: string | null, root: string): Json {
  const result = structuredClone(config);
  result.main = resolve(root, String(config.main));
  const assets = config.assets as Json | undefined;
  if (assets) result.assets = { ...assets, directory: resolve(root, String(assets.directory)) };
  const paidServers = PAID_ENVIRONMENTS.map((environment) => settings.origins[environment]).join(',');
  const accounts = accountsKvId === null ? { binding: 'ACCOUNTS' } : { binding: 'ACCOUNTS', id: accountsKvId };
  const put = (section: Json, domains: readonly string[]) => {
    section.vars = { ...(section.vars as Json), PAID_SERVERS: paidServers, CORRECTIONS_URL: settings.correctionsUrl };
    section.kv_namespaces = [...((section.kv_namespaces ?? []) as Json[]).filter((binding) => binding.binding !== 'ACCOUNTS'), accounts];
    if (domains.length > 0)
      Object.assign(section, { routes: domains.map((pattern) => ({ pattern, custom_domain: true })), workers_dev: false, preview_urls: false });
  };
  put(result, []);
  for (const environment of ENVIRONMENTS) {
    const section = environmentOf(result, environment);
    put(section, settings.customDomains[environment]);
    section.observability = withInvocationLogs(section.observability ?? config.observability, settings.invocationLogs.apps[environment]);
  }
  return result;
}

/** Writes `config` as JSON to `path` (directories created). */
export function writeDeployConfig(path: string, config: Json): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
}
