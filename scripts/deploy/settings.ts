/**
 * @module The operator's own values for `npm run deploy`: the shared `ACCOUNTS` KV namespace's id
 * (optional: the deploy finds or creates the namespace), each deployment's public origin, optional
 * custom domains, where users report a wrong location (optional), and which Workers write invocation
 * logs (none by default). They come from `deploy.settings.json` (not committed; `deploy.settings.example.json`
 * beside it shows the shape) and from environment variables, which win over the file, so that CI can
 * deploy without a file. `wrangler.toml` holds none of them.
 *
 *     IPGEO_ACCOUNTS_KV_ID                   accountsKvId
 *     IPGEO_ORIGIN_<ENV>                     origins.<env>          e.g. IPGEO_ORIGIN_DE=https://de.geo.example.com
 *     IPGEO_CUSTOM_DOMAINS_<ENV>             customDomains.<env>    comma-separated hostnames
 *     IPGEO_CORRECTIONS_URL                  correctionsUrl         https URL of the operator's report page
 *     IPGEO_INVOCATION_LOGS_<ENV>            invocationLogs.<env>   true or false: the app of that deployment
 *     IPGEO_INVOCATION_LOGS_USAGE            invocationLogs.usage   the usage Worker
 *     IPGEO_INVOCATION_LOGS_SHARDS_<ENV>     invocationLogs.shards.<env>   that deployment's shard Workers
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

/** The five deployments of `wrangler.toml` (docs/architecture.md, "Deployments"), in deploy order: the free one last, so that it names live paid servers. */
export const ENVIRONMENTS = ['de', 'us', 'sg', 'au', 'free'] as const;
/** One deployment's wrangler environment name. */
export type Environment = (typeof ENVIRONMENTS)[number];
/** The paid deployments, in the order the free server lists them in `PAID_SERVERS`. */
export const PAID_ENVIRONMENTS = ['de', 'us', 'sg', 'au'] as const satisfies readonly Environment[];

/** The title of the `ACCOUNTS` namespace that the deploy finds or creates when the settings name no id. */
export const ACCOUNTS_NAMESPACE_TITLE = 'ipgeo-accounts';

/** The settings file, relative to the repository root. */
export const SETTINGS_FILE = 'deploy.settings.json';

/**
 * The settings file of a run: `given` (`--settings`) as the operator wrote it, a relative path from the
 * folder the command was started in (`startedIn`: npm's `INIT_CWD`, since npm runs scripts in the
 * repository's root); without it, {@link SETTINGS_FILE} in `root`, which may be missing (variables only).
 *
 * @throws {SettingsError} when `given` names no file.
 */
export function settingsFile(given: string | undefined, root: string, startedIn: string): string {
  if (given === undefined) return join(root, SETTINGS_FILE);
  const file = resolve(startedIn, given);
  if (!existsSync(file)) throw new SettingsError(`--settings names ${file}, which does not exist.`);
  return file;
}

const OriginSchema = z
  .url({ protocol: /^https$/ })
  .refine((text) => new URL(text).origin === text, 'an origin: https://host, without a path or a trailing slash');
/** Where users report a wrong location: an https page of the operator's, which may have a query of its own. */
const CorrectionsUrlSchema = z.url({ protocol: /^https$/ });
const HostnameSchema = z.string().regex(/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/, 'a lower-case hostname');

/** Per Worker, whether it writes an invocation log per invocation: each deployment's app, the usage Worker, each deployment's shard Workers. */
const InvocationLogsSchema = z
  .object({
    free: z.boolean().optional(),
    de: z.boolean().optional(),
    us: z.boolean().optional(),
    sg: z.boolean().optional(),
    au: z.boolean().optional(),
    usage: z.boolean().optional(),
    shards: z.partialRecord(z.enum(ENVIRONMENTS), z.boolean()).optional(),
  })
  .strict();

const SettingsFileSchema = z
  .object({
    $comment: z.string().optional(),
    accountsKvId: z.union([z.literal(''), z.string().regex(/^[0-9a-f]{32}$/, 'a KV namespace id: 32 hex digits')]).optional(),
    origins: z.partialRecord(z.enum(ENVIRONMENTS), z.union([z.literal(''), OriginSchema])).optional(),
    customDomains: z.partialRecord(z.enum(ENVIRONMENTS), z.array(HostnameSchema)).optional(),
    correctionsUrl: z.union([z.literal(''), CorrectionsUrlSchema]).optional(),
    invocationLogs: InvocationLogsSchema.optional(),
  })
  .strict();

/**
 * Which Workers write an invocation log per invocation (`observability.logs.invocation_logs`, `deploy/logs.ts`):
 * none unless the operator turns one on while debugging. The data and operational events are logged either way.
 */
interface InvocationLogs {
  /** Each deployment's app (`ipgeo-de` …). */
  readonly apps: Readonly<Record<Environment, boolean>>;
  /** The usage Worker `ipgeo-usage`. */
  readonly usage: boolean;
  /** Each deployment's shard Workers, all of them. */
  readonly shards: Readonly<Record<Environment, boolean>>;
}

/** The operator's values, complete and checked. */
export interface DeploySettings {
  /** The `ACCOUNTS` namespace's id; null: find it by its title, or create it. */
  readonly accountsKvId: string | null;
  /** Each deployment's public origin (`https://host`): printed, checked after the deploy, and the paid ones fill `PAID_SERVERS`. */
  readonly origins: Readonly<Record<Environment, string>>;
  /** Custom domains (Cloudflare zones of the account) that each deployment is served on as well. */
  readonly customDomains: Readonly<Record<Environment, readonly string[]>>;
  /**
   * Where users report a wrong location, the `CORRECTIONS_URL` of every deployment (docs/operations.md,
   * "Corrections"); '' when none: the home page then offers no report.
   */
  readonly correctionsUrl: string;
  /** Which Workers write invocation logs; by default none. */
  readonly invocationLogs: InvocationLogs;
}

/** A setting that is missing or malformed; the message names it as the file and the environment spell it. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

const variable = {
  accountsKvId: 'IPGEO_ACCOUNTS_KV_ID',
  origin: (environment: Environment) => `IPGEO_ORIGIN_${environment.toUpperCase()}`,
  customDomains: (environment: Environment) => `IPGEO_CUSTOM_DOMAINS_${environment.toUpperCase()}`,
  correctionsUrl: 'IPGEO_CORRECTIONS_URL',
  invocationLogs: (worker: Environment | 'usage') => `IPGEO_INVOCATION_LOGS_${worker.toUpperCase()}`,
  shardInvocationLogs: (environment: Environment) => `IPGEO_INVOCATION_LOGS_SHARDS_${environment.toUpperCase()}`,
};

/** The setting's name and variable of each Worker's invocation logs, as the deploy's dry run prints them. */
export const INVOCATION_LOGS_SETTING = {
  app: (environment: Environment) => `invocationLogs.${environment} (${variable.invocationLogs(environment)})`,
  usage: `invocationLogs.usage (${variable.invocationLogs('usage')})`,
  shards: (environment: Environment) => `invocationLogs.shards.${environment} (${variable.shardInvocationLogs(environment)})`,
};

/**
 * Reads the settings for `environments`: the file's values, overridden by the environment variables.
 * A deployment's origin may be left out when it has a custom domain: it is then `https://<first domain>`.
 *
 * @param file the settings file; a missing file is the same as an empty one.
 * @param variables the process environment.
 * @throws {SettingsError} naming the first setting that is missing or malformed (file key and variable).
 */
export function loadSettings(file: string, variables: Readonly<Record<string, string | undefined>>, environments: readonly Environment[]): DeploySettings {
  let raw: unknown = {};
  if (existsSync(file)) {
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new SettingsError(`${file} is not JSON: ${(error as Error).message}`);
    }
  }
  const parsed = SettingsFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SettingsError(`${file}: setting ${issue?.path.join('.') || '(top level)'} is not valid: ${issue?.message ?? ''}`);
  }
  const fromFile = parsed.data;

  const kvVariable = variables[variable.accountsKvId];
  const accountsKvId = check(z.string().regex(/^[0-9a-f]{32}$/), kvVariable ?? fromFile.accountsKvId ?? '', variable.accountsKvId, 'accountsKvId', true);

  const origins = {} as Record<Environment, string>;
  const customDomains = {} as Record<Environment, readonly string[]>;
  for (const environment of ENVIRONMENTS) {
    const domainsVariable = variables[variable.customDomains(environment)];
    const domains =
      domainsVariable === undefined
        ? (fromFile.customDomains?.[environment] ?? [])
        : domainsVariable
            .split(',')
            .map((part) => part.trim())
            .filter(Boolean)
            .map((domain) => check(HostnameSchema, domain, variable.customDomains(environment), `customDomains.${environment}`, false) ?? '');
    customDomains[environment] = domains;
    const given = variables[variable.origin(environment)] ?? fromFile.origins?.[environment] ?? '';
    const origin = given === '' && domains[0] !== undefined ? `https://${domains[0]}` : given;
    // A deployment with custom domains has no workers.dev address (deploy/config.ts): the check after the deploy would find nothing there.
    if (domains.length > 0 && /\.workers\.dev$/.test(URL.parse(origin)?.hostname ?? '')) {
      throw new SettingsError(
        `The setting origins.${environment} (${variable.origin(environment)}) is ${origin}, but with custom domains the deployment has no workers.dev address: leave it empty or name one of its domains.`,
      );
    }
    const needed = environments.includes(environment) || (PAID_ENVIRONMENTS as readonly string[]).includes(environment);
    origins[environment] = needed ? (check(OriginSchema, origin, variable.origin(environment), `origins.${environment}`, false) ?? '') : origin;
  }
  const correctionsUrl =
    check(CorrectionsUrlSchema, variables[variable.correctionsUrl] ?? fromFile.correctionsUrl ?? '', variable.correctionsUrl, 'correctionsUrl', true) ?? '';
  const fromFileLogs = fromFile.invocationLogs;
  const flag = (name: string, key: string, given: boolean | undefined) => booleanSetting(variables[name], name, key) ?? given ?? false;
  const invocationLogs: InvocationLogs = {
    apps: Object.fromEntries(
      ENVIRONMENTS.map((environment) => [
        environment,
        flag(variable.invocationLogs(environment), `invocationLogs.${environment}`, fromFileLogs?.[environment]),
      ]),
    ) as Record<Environment, boolean>,
    usage: flag(variable.invocationLogs('usage'), 'invocationLogs.usage', fromFileLogs?.usage),
    shards: Object.fromEntries(
      ENVIRONMENTS.map((environment) => [
        environment,
        flag(variable.shardInvocationLogs(environment), `invocationLogs.shards.${environment}`, fromFileLogs?.shards?.[environment]),
      ]),
    ) as Record<Environment, boolean>,
  };
  return { accountsKvId, origins, customDomains, correctionsUrl, invocationLogs };
}

/** An environment variable's `true` or `false`; undefined when it is not set. */
function booleanSetting(value: string | undefined, variableName: string, key: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new SettingsError(`The setting ${key} (${variableName}) is not valid: ${JSON.stringify(value)} is not true or false.`);
}

function check(schema: z.ZodType<string>, value: string, variableName: string, key: string, optional: true): string | null;
function check(schema: z.ZodType<string>, value: string, variableName: string, key: string, optional: false): string;
function check(schema: z.ZodType<string>, value: string, variableName: string, key: string, optional: boolean): string | null {
  if (value === '') {
    if (optional) return null;
    throw new SettingsError(`The setting ${key} is missing: put it into ${SETTINGS_FILE} (see deploy.settings.example.json) or set ${variableName}.`);
  }
  const result = schema.safeParse(value);
  if (!result.success)
    throw new SettingsError(
      `The setting ${key} (${variableName}) is not valid: ${JSON.stringify(value)} is not ${result.error.issues[0]?.message ?? 'valid'}.`,
    );
  return result.data;
}

/**
 * Only the `ACCOUNTS` namespace id of the settings (for `npm run accounts -- --remote`), or null when
 * none is set; other settings are not checked.
 *
 * @throws {SettingsError} when the id is set but malformed, or the file is not JSON.
 */
export function accountsKvIdSetting(file: string, variables: Readonly<Record<string, string | undefined>>): string | null {
  let fromFile: unknown;
  if (existsSync(file)) {
    try {
      fromFile = (JSON.parse(readFileSync(file, 'utf8')) as { accountsKvId?: unknown }).accountsKvId;
    } catch (error) {
      throw new SettingsError(`${file} is not JSON: ${(error as Error).message}`);
    }
  }
  const value = variables[variable.accountsKvId] ?? (typeof fromFile === 'string' ? fromFile : '');
  return check(z.string().regex(/^[0-9a-f]{32}$/, 'a KV namespace id: 32 hex digits'), value, variable.accountsKvId, 'accountsKvId', true);
}
