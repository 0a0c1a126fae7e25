/**
 * @module `npm run deploy -- --env de|--all [--dry-run] [--settings FILE]`: from a clone to live
 * deployments in one command (docs/deploying.md). For each chosen deployment, idempotently:
 *
 * 1. finds or creates the `ACCOUNTS` KV namespace shared by all five (titled `ipgeo-accounts`, unless
 *    the settings name its id), and the deployment's R2 bucket with its location hint;
 * 2. where the build in `data/out/` is sharded (`docs/sharding.md`), deploys its shard Workers, with no
 *    route, no `workers.dev` address and no preview URL (`deploy/shards.ts`);
 * 3. reads the bucket's current record (`ipgeo-current.json`, `src/geo/published.ts`); when there is
 *    none, or its version has another number of shards than the build (changing N is a redeploy),
 *    publishes the build (built if missing) exactly as `npm run data:publish -- --env X --remote` does:
 *    checked whole and against the isolate budget, passed through the diff gate against the version a
 *    bucket serves (`data/diff/gate.ts`; a bucket that serves none yet has nothing to compare with),
 *    every object uploaded, then named by a new current record (`data/publish/`), saying when its data
 *    came from the npm packages. A bucket whose current version has the build's number of shards is
 *    left as it is (`data:publish` replaces it, `data:rollback` goes back), and the deploy stops when
 *    that version would not fit the isolate budget (`data/budget.ts`, `--budget-mib`);
 * 4. before the first paid app, deploys the usage Worker `ipgeo-usage` (`deploy/usage.ts`), which
 *    defines the Durable Object class that the paid apps count their usage into;
 * 5. deploys the app from `wrangler.toml` with the operator's values put in (`deploy/config.ts`),
 *    bound to its shard Workers where there are any, prints its URLs, and checks `/health` and the
 *    status endpoint of its origin.
 *
 * For every Worker it deploys, it prints whether it writes invocation logs (off unless the settings'
 * `invocationLogs` turns them on for it, `deploy/logs.ts`).
 *
 * With `--dry-run`, nothing on Cloudflare is read or changed: every configuration is built and checked
 * by `wrangler deploy --dry-run` (CI runs this for all five with the example settings).
 *
 * Every bucket is read, and the diff gate passed, before any Worker is deployed.
 *
 * Exit status: 0 done; 1 a setting is missing or a step failed (the message says which); 2 bad usage;
 * 4 the diff gate stops the build (`--accept-diff VERSION` publishes it all the same).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUDGET_HELP, BUDGET_OPTION, BudgetError, budgetFromOption, checkBudget } from '../data/budget.ts';
import { build, MANIFEST_FILE } from '../data/build.ts';
import { commandLineError, parseCommandLine } from '../data/command-line.ts';
import { DiffError } from '../data/diff/builds.ts';
import { diffGate, OVER_THRESHOLDS } from '../data/diff/gate.ts';
import { manifestShards, SHARDS_OPTION, shardsFromOption } from '../data/output.ts';
import { type BuildFile, productionDataNotice } from '../data/publish/build-file.ts';
import { readBuild } from '../data/publish/cli.ts';
import { PublishError, publishTo, readRecord } from '../data/publish/record.ts';
import type { WranglerBucket } from '../data/publish/wrangler-bucket.ts';
import { DEFAULT_BUDGET_BYTES } from '../src/geo/budget.ts';
import type { CurrentRecord } from '../src/geo/published.ts';
import { STATUS_PATHS } from '../src/http/paths.ts';
import { type Cloudflare, WranglerCloudflare } from './deploy/cloudflare.ts';
import { DEPLOY_CONFIG, deployConfig, environmentFacts, readWranglerToml, writeDeployConfig } from './deploy/config.ts';
import { logsSummary } from './deploy/logs.ts';
import {
  ACCOUNTS_NAMESPACE_TITLE,
  type DeploySettings,
  ENVIRONMENTS,
  type Environment,
  INVOCATION_LOGS_SETTING,
  loadSettings,
  SETTINGS_FILE,
  SettingsError,
  settingsFile,
} from './deploy/settings.ts';
import { shardBinding, shardWorkerName, withShardBindings, writeShardConfigs } from './deploy/shards.ts';
import { USAGE_WORKER, writeUsageConfig } from './deploy/usage.ts';
import { copyDocsAssets } from './docs-assets.ts';
import { prepareHomeAssets } from './home-assets.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * R2 location hints (the values `wrangler r2 bucket create --location` takes): each paid deployment's
 * data near its region; none for the worldwide free deployment.
 */
export const LOCATION_HINTS: Readonly<Record<Environment, string | null>> = { free: null, de: 'weur', us: 'enam', sg: 'apac', au: 'oc' };

/** How often the check asks `/health` before it gives up (3 s apart: a new workers.dev name can take a minute to answer). */
const HEALTH_TRIES = 20;

/** What one run is asked to do. */
export interface DeployRequest {
  readonly environments: readonly Environment[];
  readonly dryRun: boolean;
  readonly settings: DeploySettings;
  /** The isolate budget a bucket's current version must fit once loaded, in bytes (default 96 MiB). */
  readonly budgetBytes?: number;
  /** The shards of the build the deployments serve (default 1: the app holds the whole database). */
  readonly shards?: number;
  /** The build's version, to publish it though the diff gate would stop it (`--accept-diff`). */
  readonly acceptDiff?: string;
}

/** What a deployment looked like after the run. */
export interface DeployOutcome {
  readonly environment: Environment;
  readonly urls: readonly string[];
  /** What `/health` and the status endpoint said; null for a dry run. */
  readonly check: string | null;
}

/** How the run reaches the world: Cloudflare, the database files, HTTP for the checks, and a log. */
export interface DeployTools {
  readonly cloudflare: Cloudflare;
  /**
   * The build to publish (`readBuild` of `data/publish/cli.ts`, which refuses one over the budget); called
   * at most once, and only when a bucket has no current version.
   */
  readonly database: () => BuildFile<string>;
  readonly fetch: (url: string) => Promise<Response>;
  readonly log: (line: string) => void;
  /** Milliseconds between the checks' tries (tests pass 0). */
  readonly retryDelayMs: number;
  /** Where the generated wrangler configuration is written ({@link DEPLOY_CONFIG} in the repository). */
  readonly configPath: string;
}

/** A step that cannot go on; the message says what to do. */
export class DeployError extends Error {
  override readonly name = 'DeployError';
}

/** The diff gate stops the build: it changes more than a real release does (`data/diff/thresholds.ts`). */
export class DiffGateStop extends DeployError {}

/**
 * Runs a deploy (see the module comment).
 *
 * @param wranglerToml the parsed `wrangler.toml`.
 * @throws {DeployError}, {@link WranglerError}, {@link PublishError} or {@link BudgetError} at the first step that fails; what was done before stays done.
 */
export async function deploy(request: DeployRequest, wranglerToml: Record<string, unknown>, tools: DeployTools): Promise<DeployOutcome[]> {
  const { cloudflare, log } = tools;
  const { dryRun, settings } = request;
  if (!dryRun) cloudflare.assertLoggedIn();

  const accountsKvId = dryRun ? settings.accountsKvId : accountsNamespace(cloudflare, settings.accountsKvId, log);
  const { configPath } = tools;
  const shards = request.shards ?? 1;
  const config = request.environments.reduce(
    (bound, environment) => withShardBindings(bound, environment, shards),
    deployConfig(wranglerToml, settings, accountsKvId, ROOT),
  );
  writeDeployConfig(configPath, config);

  const budgetBytes = request.budgetBytes ?? DEFAULT_BUDGET_BYTES;
  let database: BuildFile<string> | undefined;
  /** The build to publish, read once (the first time a bucket needs it), its files checked against the budget. */
  const theDatabase = (): BuildFile<string> => {
    if (database !== undefined) return database;
    database = tools.database();
    const files = database.shards;
    for (const [k, file] of files.entries()) log(checkBudget(`Version ${database.version}${files.length > 1 ? `, shard ${k}` : ''}`, file.bytes, budgetBytes));
    const notice = productionDataNotice(database);
    if (notice) log(notice);
    return database;
  };
  const buckets = dryRun ? new Map<Environment, ReadBucket>() : await readBuckets(request.environments, wranglerToml, cloudflare, log);
  // The buckets the build goes to (a first fill, or a served version replaced): through the diff gate, before any Worker is deployed.
  const filled = [...buckets.values()].filter(({ record }) => record === null || record.current.shards.length !== shards);
  const replaced = filled.flatMap(({ bucket, record }) => (record === null ? [] : [bucket]));
  if (filled.length > 0) await passDiffGate(theDatabase(), replaced, request.acceptDiff, log);
  const outcomes: DeployOutcome[] = [];
  let usageDeployed = false;
  for (const environment of request.environments) {
    const facts = environmentFacts(wranglerToml, environment);
    log(`\n== ${environment}: Worker ${facts.workerName}, bucket ${facts.bucket}${dryRun ? ' (dry run)' : ''}`);
    // The shard Workers first: a build of another number of shards is published only once they run.
    const shardOptions = { invocationLogs: settings.invocationLogs.shards[environment] };
    for (const [index, shardConfigPath] of writeShardConfigs(config, environment, shards, ROOT, dirname(configPath), shardOptions).entries()) {
      const name = shardWorkerName(facts.workerName, index, shards);
      const addresses = cloudflare.deploy(shardConfigPath, environment, dryRun, name);
      if (addresses.length > 0) throw new DeployError(`Shard Worker ${name} was given an address (${addresses.join(', ')}); it must have none.`);
      log(
        `Shard Worker ${name}${dryRun ? ' checked' : ' deployed'}: no route, no workers.dev address, no preview URL; bound to ${facts.workerName} as ${shardBinding(index)}.`,
      );
      log(`${name}: ${logsSummary(readJson(shardConfigPath), environment, INVOCATION_LOGS_SETTING.shards(environment))}`);
    }
    const read = buckets.get(environment);
    if (read !== undefined) {
      const { bucket, record } = read;
      const current = record?.current;
      if (current !== undefined && current.shards.length === shards) {
        log(`${bucket.name} has a current database version already: ${current.version}; not publishing.`);
        const many = current.shards.length > 1;
        for (const [k, shard] of current.shards.entries())
          log(checkBudget(`Version ${current.version}${many ? `, shard ${k}` : ''}`, shard.bytes, budgetBytes));
      } else {
        const publishing = theDatabase();
        log(
          current === undefined
            ? `${bucket.name} serves no version yet: publishing ${publishing.version}, a first fill (the diff gate had no served version to compare it with, only its ASN object with its database).`
            : `${bucket.name} serves ${current.version} in ${current.shards.length} shard(s); this deploy serves ${shards}: publishing ${publishing.version}.`,
        );
        // The app deployed before this one keeps answering from the version it holds until the new app replaces it.
        await publishTo(bucket, publishing, new Date(), log, record, { newShardCount: true });
      }
    }
    // The usage store's class, which the paid apps' USAGE bindings name: before the first paid app.
    if (facts.plan === 'paid' && !usageDeployed) {
      const usageConfigPath = writeUsageConfig(wranglerToml, ROOT, dirname(configPath), { invocationLogs: settings.invocationLogs.usage });
      deployUsageWorker(cloudflare, usageConfigPath, environment, dryRun, log);
      log(`${USAGE_WORKER}: ${logsSummary(readJson(usageConfigPath), environment, INVOCATION_LOGS_SETTING.usage)}`);
      usageDeployed = true;
    }
    const urls = cloudflare.deploy(configPath, environment, dryRun);
    log(`${facts.workerName}: ${logsSummary(readJson(configPath), environment, INVOCATION_LOGS_SETTING.app(environment))}`);
    const origin = settings.origins[environment];
    const domains = settings.customDomains[environment];
    log(
      domains.length > 0
        ? `Served on ${domains.join(', ')} only: workers_dev = false, preview_urls = false.`
        : 'Served on its workers.dev address, with preview URLs (no custom domain in the settings).',
    );
    if (dryRun) {
      log(`Dry run passed; it would serve ${origin}.`);
      outcomes.push({ environment, urls: [origin], check: null });
      continue;
    }
    const all = [...new Set([origin, ...urls])];
    log(`Deployed: ${all.join(', ')}`);
    outcomes.push({ environment, urls: all, check: await checkDeployment(origin, facts.plan, tools) });
  }
  return outcomes;
}

/** A configuration file the deploy wrote, read back: what the dry run prints is what wrangler was given. */
function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

/** A deployment's bucket and its current record (null: nothing published there yet). */
interface ReadBucket {
  readonly bucket: WranglerBucket;
  readonly record: CurrentRecord | null;
}

/** Each deployment's bucket, created when missing (with its location hint), and its current record. */
async function readBuckets(
  environments: readonly Environment[],
  wranglerToml: Record<string, unknown>,
  cloudflare: Cloudflare,
  log: (line: string) => void,
): Promise<Map<Environment, ReadBucket>> {
  const existing = cloudflare.buckets();
  const read = new Map<Environment, ReadBucket>();
  for (const environment of environments) {
    const { bucket: name } = environmentFacts(wranglerToml, environment);
    if (existing.includes(name)) log(`R2 bucket ${name} exists.`);
    else cloudflare.createBucket(name, LOCATION_HINTS[environment]);
    const bucket = cloudflare.versionBucket(environment, name);
    read.set(environment, { bucket, record: await readRecord(bucket) });
  }
  return read;
}

/**
 * The diff gate of `data:publish` (`data/diff/gate.ts`) for a build that goes to buckets, replacing what
 * `buckets` serve: each distinct served version compared with it, its table printed; compared with none
 * (first fills only, or `acceptDiff`), the build is still checked against itself.
 *
 * @param acceptDiff the build's version, when the operator publishes it though the gate would stop it.
 * @throws DiffGateStop when a measure is over its threshold or the build is broken (its ASN object
 *   disagrees with its database; whatever `acceptDiff` says); DeployError when `acceptDiff` names another version.
 */
async function passDiffGate(database: BuildFile<string>, buckets: readonly WranglerBucket[], acceptDiff: string | undefined, log: (line: string) => void) {
  if (acceptDiff !== undefined) {
    if (acceptDiff !== database.version)
      throw new DeployError(`--accept-diff ${acceptDiff} names another version than the build's, ${database.version}: read its diff, then name it`);
    log(`The diff gate is overridden for version ${database.version} (--accept-diff).`);
  }
  const { stopped, broken } = await diffGate(database.shards[0]?.file ?? MANIFEST_FILE, acceptDiff === undefined ? buckets : [], log);
  if (broken) {
    throw new DiffGateStop(
      `the diff gate stops version ${database.version}: its ASN object disagrees with its database (the table above), a broken build that no --accept-diff publishes. ` +
        'Nothing was published or deployed. Build it again: npm run data:build',
    );
  }
  if (stopped) {
    throw new DiffGateStop(
      `the diff gate stops version ${database.version}: a share is over its threshold (the table above). Nothing was published or deployed. ` +
        `Read the diff; to publish this build all the same: npm run deploy -- … --accept-diff ${database.version}`,
    );
  }
}

/** Deploys (or with `dryRun` checks) the usage Worker from its configuration at `configPath`, and says how its operator reads are opened. */
function deployUsageWorker(cloudflare: Cloudflare, configPath: string, environment: Environment, dryRun: boolean, log: (line: string) => void): void {
  const urls = cloudflare.deploy(configPath, environment, dryRun, USAGE_WORKER);
  log(
    dryRun
      ? `Usage Worker ${USAGE_WORKER} checked: it defines the Durable Object class that the paid deployments count usage into.`
      : `Usage Worker ${USAGE_WORKER} deployed${urls.length > 0 ? ` at ${urls.join(', ')}` : ''}: the paid deployments count usage into it. For \`npm run accounts -- usage --remote\`, give it a read token once: npx wrangler secret put USAGE_READ_TOKEN --name ${USAGE_WORKER} (docs/accounts.md).`,
  );
}

/** The `ACCOUNTS` namespace's id: the configured one, checked to exist, or the one titled {@link ACCOUNTS_NAMESPACE_TITLE}, created if missing. */
function accountsNamespace(cloudflare: Cloudflare, configured: string | null, log: (line: string) => void): string {
  const find = () => cloudflare.kvNamespaces();
  if (configured !== null) {
    if (!find().some((namespace) => namespace.id === configured)) {
      throw new DeployError(`The setting accountsKvId names ${configured}, which is no KV namespace of this Cloudflare account.`);
    }
    log(`KV namespace ACCOUNTS: ${configured} (from the settings).`);
    return configured;
  }
  let namespace = find().find((candidate) => candidate.title === ACCOUNTS_NAMESPACE_TITLE);
  if (namespace) {
    log(`KV namespace ${ACCOUNTS_NAMESPACE_TITLE} exists: ${namespace.id}.`);
  } else {
    cloudflare.createKvNamespace(ACCOUNTS_NAMESPACE_TITLE);
    namespace = find().find((candidate) => candidate.title === ACCOUNTS_NAMESPACE_TITLE);
    if (!namespace) throw new DeployError(`wrangler created the KV namespace ${ACCOUNTS_NAMESPACE_TITLE}, but it is not listed.`);
    log(`Created the KV namespace ${ACCOUNTS_NAMESPACE_TITLE}: ${namespace.id} (you may put it into ${SETTINGS_FILE} as accountsKvId).`);
  }
  return namespace.id;
}

/**
 * `/health` until it answers `ok` (a new deployment can take some seconds to be reachable), then the
 * status endpoint when the deployment has one (`STATUS_PATHS` of `src/http/paths.ts`).
 *
 * @returns a one-line summary.
 * @throws {DeployError} when `/health` never answers, or the status endpoint answers an error.
 */
export async function checkDeployment(origin: string, plan: 'free' | 'paid', tools: Pick<DeployTools, 'fetch' | 'log' | 'retryDelayMs'>): Promise<string> {
  let last = '';
  let healthy = false;
  for (let attempt = 1; attempt <= HEALTH_TRIES && !healthy; attempt++) {
    try {
      const response = await tools.fetch(`${origin}/health`);
      const text = await response.text();
      healthy = response.status === 200 && text.trim() === 'ok';
      last = `${response.status} ${text.slice(0, 80)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    if (!healthy) await new Promise((done) => setTimeout(done, tools.retryDelayMs));
  }
  if (!healthy) throw new DeployError(`${origin}/health did not answer ok after ${HEALTH_TRIES} tries (last: ${last}).`);
  const statusPath = STATUS_PATHS[plan];
  const status = await tools.fetch(`${origin}${statusPath}`);
  if (status.status === 404) {
    tools.log(`${origin}/health: ok (this version has no ${statusPath}).`);
    return 'health ok';
  }
  const body = await status.text();
  if (status.status !== 200) throw new DeployError(`${origin}${statusPath} answered ${status.status}: ${body.slice(0, 300)}`);
  const version =
    (JSON.parse(body) as { version?: unknown; database?: { version?: unknown } }).database?.version ?? (JSON.parse(body) as { version?: unknown }).version;
  tools.log(`${origin}/health: ok; ${statusPath}: 200, database ${String(version ?? 'reported')}.`);
  return `health ok, status 200 (database ${String(version ?? 'reported')})`;
}

const COMMAND = 'npm run deploy';
const USAGE = `Usage: npm run deploy -- (--env <name> [--env <name>…] | --all) [--dry-run] [--settings <file>] [--budget-mib N]

  --env <name>        a deployment of wrangler.toml: ${ENVIRONMENTS.join(', ')} (repeatable)
  --all               all five (the paid ones first, the free one last)
  --dry-run           build and check each configuration with wrangler deploy --dry-run; nothing on Cloudflare is touched
  --settings <file>   the operator's values, a path from where the command was started (default: ${SETTINGS_FILE}
                      in the repository, if it exists; IPGEO_* variables override it)
  --budget-mib N      ${BUDGET_HELP}
  --shards N          with --dry-run: check the configurations of N shard Workers per deployment (default:
                      as many as the build in data/out/ has; a deploy always serves that build's)
  --accept-diff VERSION  publish VERSION (the build's) though its diff from what a bucket serves crosses a
                      threshold of the diff gate (exit ${OVER_THRESHOLDS}): after reading that diff

A bucket that serves a version is published to (a change of the number of shards) only through the diff
gate, as data:publish does (docs/operations.md, "The diff gate").`;

/**
 * The compiled build, as `data:publish` reads it (checked against its manifest and the budget, and read
 * whole); built from the default sources when missing.
 */
function compiledBuild(budgetBytes: number): BuildFile<string> {
  if (!existsSync(MANIFEST_FILE)) build({ proxyLists: [], budgetBytes });
  return readBuild(MANIFEST_FILE, budgetBytes);
}

/** The shards of the build in `data/out/` (1 when there is none yet: the deploy builds one file). */
function builtShards(): number {
  if (!existsSync(MANIFEST_FILE)) return 1;
  return Math.max(1, manifestShards(JSON.parse(readFileSync(MANIFEST_FILE, 'utf8')) as Parameters<typeof manifestShards>[0]).length);
}

async function main(argv: string[]): Promise<number> {
  const line = parseCommandLine(argv, {
    command: COMMAND,
    usage: USAGE,
    options: {
      env: { type: 'string', multiple: true },
      all: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      settings: { type: 'string' },
      ...BUDGET_OPTION,
      ...SHARDS_OPTION,
      'accept-diff': { type: 'string' },
    },
  });
  if (typeof line === 'number') return line;
  const values = line.values as {
    env?: string[];
    all: boolean;
    'dry-run': boolean;
    settings?: string;
    'budget-mib'?: string;
    shards?: string;
    'accept-diff'?: string;
  };
  const named = values.env ?? [];
  const unknown = named.find((name) => !(ENVIRONMENTS as readonly string[]).includes(name));
  if (unknown !== undefined) return commandLineError(COMMAND, `unknown deployment '${unknown}'; one of ${ENVIRONMENTS.join(', ')}`);
  if (values.all === named.length > 0)
    return commandLineError(COMMAND, values.all ? '--env and --all exclude each other' : 'name the deployments: --env NAME (repeatable) or --all');
  const budgetBytes = budgetFromOption(values['budget-mib']);
  if (typeof budgetBytes !== 'number') return commandLineError(COMMAND, budgetBytes.error);
  const asked = shardsFromOption(values.shards);
  if (typeof asked === 'object') return commandLineError(COMMAND, asked.error);
  if (asked !== undefined && !values['dry-run'])
    return commandLineError(COMMAND, '--shards goes with --dry-run only: a deploy serves the shards of the build in data/out/');
  const shards = asked ?? builtShards();
  const environments = values.all ? ENVIRONMENTS : ENVIRONMENTS.filter((environment) => named.includes(environment));
  const log = (line: string) => console.log(line);
  try {
    const settings = loadSettings(settingsFile(values.settings, ROOT, process.env.INIT_CWD ?? process.cwd()), process.env, environments);
    copyDocsAssets();
    prepareHomeAssets();
    const acceptDiff = values['accept-diff'];
    const request = { environments, dryRun: values['dry-run'], settings, budgetBytes, shards, ...(acceptDiff !== undefined ? { acceptDiff } : {}) };
    const outcomes = await deploy(request, readWranglerToml(join(ROOT, 'wrangler.toml')), {
      cloudflare: new WranglerCloudflare(ROOT, log),
      database: () => compiledBuild(budgetBytes),
      fetch: (url) => fetch(url, { redirect: 'manual' }),
      log,
      retryDelayMs: 3000,
      configPath: join(ROOT, DEPLOY_CONFIG),
    });
    log('\nSummary:');
    for (const outcome of outcomes) log(`  ${outcome.environment.padEnd(4)} ${outcome.urls.join(' ')}${outcome.check ? `  (${outcome.check})` : ''}`);
    return 0;
  } catch (error) {
    const expected =
      error instanceof SettingsError ||
      error instanceof DeployError ||
      error instanceof PublishError ||
      error instanceof BudgetError ||
      error instanceof DiffError ||
      (error as Error).name === 'WranglerError';
    console.error(`deploy: ${expected ? (error as Error).message : String((error as Error).stack ?? error)}`);
    return error instanceof DiffGateStop ? OVER_THRESHOLDS : 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exit(await main(process.argv.slice(2)));
}
