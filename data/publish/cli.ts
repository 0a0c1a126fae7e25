/**
 * @module `npm run data:publish` and `npm run data:rollback`: put the build into each deployment's R2
 * bucket (`ipgeo-{version}.mmdb`, or one object per shard) and make it current, or make the version before current again.
 * Running Workers switch within a minute (`src/geo/current-database.ts`). Local R2 of `wrangler dev` unless `--remote`.
 *
 *     npm run data:publish -- --env free                 the local bucket of the free deployment
 *     npm run data:publish -- --all --remote             every deployment's bucket on Cloudflare
 *     npm run data:rollback -- --env de --remote
 *     npm run data:publish -- --all --remote --check     what publishing would change, changing nothing
 *
 * Both refuse a database whose load would not fit the isolate budget (`data/budget.ts`); a publish
 * first passes the diff gate against what each bucket serves (`data/diff/gate.ts`).
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { experimental_readRawConfig, unstable_readConfig } from 'wrangler';
import { budgetFit, DEFAULT_BUDGET_BYTES } from '../../src/geo/budget.ts';
import type { CurrentRecord } from '../../src/geo/published.ts';
import { BUDGET_HELP, BUDGET_OPTION, BudgetError, budgetFromOption, checkBudget, mib, switchLine } from '../budget.ts';
import { commandLineError, parseCommandLine } from '../command-line.ts';
import { DiffError } from '../diff/builds.ts';
import { diffGate, OVER_THRESHOLDS } from '../diff/gate.ts';
import { verifyAsnObject } from './asn-check.ts';
import { lacksAsnObject } from './asn-object.ts';
import { type BuildFile, bodiesAsPaths, productionDataNotice, readBuildFile } from './build-file.ts';
import {
  expireVersions,
  type PublicationStep,
  PublishError,
  publicationStep,
  publishTo,
  RETENTION_DAYS,
  readRecord,
  rollBack,
  shardCountRefusal,
  type VersionBucket,
  withoutExpired,
} from './record.ts';
import { verifyDatabase } from './verify.ts';
import { type WranglerBucket, wranglerBucket } from './wrangler-bucket.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CONFIG = join(ROOT, 'wrangler.toml');
const DEFAULT_FILE = join(ROOT, 'data', 'out', 'ipgeo.manifest.json');

/**
 * The exit code of `data:publish --check` when publishing would change a bucket (0: it would change
 * none; 1: an error; `OVER_THRESHOLDS`, 4, of `data/diff/gate.ts`: the diff gate stops the build).
 */
export const CHANGES_PENDING = 3;

/** The usage of `data:publish` or of `data:rollback`. */
function usageOf(command: 'publish' | 'rollback'): string {
  const publish = command === 'publish';
  return `usage: npm run data:${command} -- (--env NAME... | --all) [--remote]${publish ? ' [--file FILE]' : ''} [--persist-to DIR] [--budget-mib N]${publish ? '\n                              [--check] [--accept-diff VERSION] [--summary FILE]' : ''}

${publish ? 'Uploads the build into the R2 bucket of each deployment and makes it the current version.' : 'Makes the version before the current one current again, in the R2 bucket of each deployment.'}
Running Workers switch within a minute.
  --env NAME        a deployment of wrangler.toml (free, de, us, sg, au); repeatable
  --all             every deployment
  --remote          Cloudflare's R2 (wrangler login, or CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID);
                    without it, the local R2 of \`wrangler dev\`${publish ? '\n  --file FILE       the build to publish: its manifest, or a database file with its manifest beside it\n                    (default data/out/ipgeo.manifest.json: every file it names, one or one per shard)' : ''}
  --persist-to DIR  the local state directory, when not .wrangler/state
  --budget-mib N    ${BUDGET_HELP}${
    publish
      ? `\n  --check           change nothing: say what publishing would do in each bucket, and exit 0 when it
                    would change none (the build is current everywhere, no version to expire),
                    ${CHANGES_PENDING} when it would change one, ${OVER_THRESHOLDS} when the diff gate stops the build
  --accept-diff VERSION  publish VERSION (the build's) though its diff from what a bucket serves
                    crosses a threshold: after reading that diff (npm run data:diff -- bucket:ENV data/out);
                    never a broken build (its ASN object disagreeing with its database)
  --summary FILE    append the diff tables to FILE (the workflow's $GITHUB_STEP_SUMMARY)

Before publishing, the build is compared with the version each bucket serves (npm run data:diff); a
measure over its threshold, or a broken build, publishes nothing, deletes only the versions expired (over
${RETENTION_DAYS} days), and exits ${OVER_THRESHOLDS} (docs/operations.md, "The diff gate").`
      : ''
  }`;
}

/** The deployments of wrangler.toml, by environment name. */
export function deployments(): string[] {
  const { rawConfig } = experimental_readRawConfig({ config: CONFIG });
  return Object.keys(rawConfig.env ?? {});
}

/** The name of the R2 bucket bound as `GEO_DATA` in an environment of wrangler.toml. */
export function bucketOf(environment: string): string {
  const binding = unstable_readConfig({ config: CONFIG, env: environment }).r2_buckets.find((b: { binding: string }) => b.binding === 'GEO_DATA');
  if (!binding?.bucket_name) throw new PublishError(`wrangler.toml: the ${environment} environment binds no GEO_DATA bucket`);
  return binding.bucket_name;
}

/**
 * The build of `file` (its manifest or one of its database files), every file checked against the
 * manifest, against the isolate budget, and read whole with the Worker's reader (`verify.ts`), its
 * shard metadata matching the manifest's range, its ASN object read piece by piece (`asn-check.ts`):
 * ready to publish, each body the file's path.
 *
 * @param log receives one line per file: its memory against the budget, and whether two versions of it fit side by side.
 * @throws PublishError for a missing, mismatched or damaged file; BudgetError when a file's load would not fit `budgetBytes`.
 */
export function readBuild(file: string, budgetBytes = DEFAULT_BUDGET_BYTES, log: (line: string) => void = () => {}): BuildFile<string> {
  const build = readBuildFile(file);
  const count = build.shards.length;
  build.shards.forEach((shard, index) => {
    const what = count === 1 ? `Version ${build.version}` : `Version ${build.version}, shard ${index} (${shard.first} to ${shard.last})`;
    log(`${checkBudget(what, shard.bytes, budgetBytes)} ${switchLine(shard.bytes, budgetBytes)}.`);
    const range = verifyDatabase(shard.body, shard.file).shard;
    const expected = count === 1 ? undefined : { index, count, first: shard.first, last: shard.last };
    if (count > 1 && JSON.stringify(range) !== JSON.stringify(expected)) {
      throw new PublishError(`${shard.file} says it is shard ${JSON.stringify(range ?? null)}, not the manifest's ${JSON.stringify(expected)}`);
    }
  });
  if (build.asn) {
    const read = verifyAsnObject(build.asn, build.asn.file);
    log(`Its ASN object (${mib(build.asn.bytes)}): ${read.asns} ASNs in ${read.pages} pages of ${build.asn.blocks} blocks, each checked against its SHA-256.`);
  } else {
    log('It has no ASN object (a build made before builds had one): the routes by ASN answer 503 DATA_UNAVAILABLE with it.');
  }
  return bodiesAsPaths(build);
}

/** `publish` or `rollback` (the npm scripts put it first), then the options. */
function main(argv: string[]): Promise<number> | number {
  const [command, ...args] = argv;
  if (command !== 'publish' && command !== 'rollback') {
    console.error(`data/publish/cli.ts: the first argument must be publish or rollback, not ${JSON.stringify(command ?? '')}`);
    return 2;
  }
  const name = `npm run data:${command}`;
  const line = parseCommandLine(args, {
    command: name,
    usage: usageOf(command),
    options: {
      env: { type: 'string', multiple: true },
      all: { type: 'boolean' },
      remote: { type: 'boolean' },
      file: { type: 'string' },
      'persist-to': { type: 'string' },
      ...BUDGET_OPTION,
      check: { type: 'boolean' },
      'accept-diff': { type: 'string' },
      summary: { type: 'string' },
    },
  });
  if (typeof line === 'number') return line;
  const { values } = line;
  if (!values.all && !values.env?.length) return commandLineError(name, 'name the deployments: --env NAME (repeatable) or --all');
  if (values.all && values.env?.length) return commandLineError(name, '--env and --all exclude each other');
  if (command === 'rollback' && values.file) return commandLineError(name, '--file is for data:publish only');
  if (command === 'rollback' && values.check) return commandLineError(name, '--check is for data:publish only');
  if (command === 'rollback' && (values['accept-diff'] || values.summary))
    return commandLineError(name, '--accept-diff and --summary are for data:publish only');
  const budgetBytes = budgetFromOption(values['budget-mib']);
  if (typeof budgetBytes !== 'number') return commandLineError(name, budgetBytes.error);
  return runCommand(command, { ...values, budgetBytes });
}

/** The options of {@link runCommand}, as parsed from its command line. */
export interface CommandOptions {
  env?: string[];
  all?: boolean;
  remote?: boolean;
  file?: string;
  'persist-to'?: string;
  /** The isolate budget in bytes (`data/budget.ts`; default 96 MiB). */
  budgetBytes?: number;
  /** `data:publish --check`: read the buckets, change nothing. */
  check?: boolean;
  /** `data:publish --accept-diff VERSION`: the build's version, published though the diff gate would stop it. */
  'accept-diff'?: string;
  /** Where the diff tables are appended (the workflow's summary). */
  summary?: string;
}

/**
 * Runs `data:publish` or `data:rollback` with parsed options. A publish reads every bucket's record
 * before it changes any: the build, and with it the version each bucket will serve, must fit the isolate
 * budget; a bucket whose current version would not fit is named (publishing replaces it).
 *
 * @returns the exit code: 0; 1 after printing why nothing (more) was done; with `check`,
 *   {@link CHANGES_PENDING} when publishing would change a bucket.
 */
export async function runCommand(command: 'publish' | 'rollback', values: CommandOptions): Promise<number> {
  const started = Date.now();
  const budgetBytes = values.budgetBytes ?? DEFAULT_BUDGET_BYTES;
  const buckets: WranglerBucket[] = [];
  try {
    const known = deployments();
    const environments = values.all ? known : (values.env ?? []);
    for (const environment of environments) {
      if (!known.includes(environment)) throw new PublishError(`unknown deployment ${environment}; one of ${known.join(', ')}`);
    }
    for (const environment of environments) {
      const target = { environment, bucket: bucketOf(environment), remote: values.remote ?? false };
      buckets.push(wranglerBucket(values['persist-to'] ? { ...target, persistTo: resolve(values['persist-to']) } : target));
    }
    if (command === 'rollback') {
      for (const [i, bucket] of buckets.entries())
        await rollBack(bucket, new Date(), console.log, budgetBytes, environments[i] ? { deployment: environments[i] } : {});
    } else {
      const lines: string[] = [];
      const build = readBuild(resolve(values.file ?? DEFAULT_FILE), budgetBytes, (text) => lines.push(text));
      const files = build.shards.length === 1 ? '' : ` in ${build.shards.length} shards`;
      console.log(`${values.check ? 'Checking' : 'Publishing'} version ${build.version}${files} (checked: every network and record of every file reads).`);
      for (const text of lines) console.log(text);
      const notice = values.remote ? productionDataNotice(build) : undefined;
      if (notice) console.log(notice);
      const accepted = values['accept-diff'];
      if (accepted !== undefined && accepted !== build.version) {
        throw new PublishError(`--accept-diff ${accepted} names another version than the build's, ${build.version}: read its diff, then name it`);
      }
      if (accepted !== undefined) console.log(`The diff gate is overridden for version ${build.version} (--accept-diff).`);
      // With --accept-diff the build is compared with no bucket's version, only with itself: a broken build never goes out.
      const verdict = await diffGate(resolve(values.file ?? DEFAULT_FILE), accepted === undefined ? buckets : [], console.log, values.summary);
      if (verdict.stopped) return await stopAtGate(buckets, build.version, values.check ?? false, verdict.broken);
      const changes = await publishEverywhere(buckets, environments, build, budgetBytes, values.check ?? false);
      if (values.check) {
        console.log(
          changes === 0
            ? `Nothing to publish: version ${build.version} is current in every bucket.`
            : `Publishing would change ${changes} of ${buckets.length} buckets.`,
        );
        return changes === 0 ? 0 : CHANGES_PENDING;
      }
      if (changes === 0) console.log(`Nothing published: version ${build.version} was current in every bucket already.`);
    }
    console.log(
      `Done in ${((Date.now() - started) / 1000).toFixed(1)} s. Running Workers switch within a minute; GET /api/v1/status (free) or /api/status (paid) names the version.`,
    );
    return 0;
  } catch (error) {
    if (error instanceof PublishError || error instanceof BudgetError || error instanceof DiffError) {
      console.error(`data:${command} ${error instanceof BudgetError ? 'refused' : 'failed'}: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    for (const bucket of buckets) await bucket.dispose();
  }
}

/**
 * What a publish does when the diff gate stops the build: publishes nothing, still deletes the versions
 * the licence wants gone (unless `check`), and says how to go on.
 *
 * @param broken the build's ASN object disagrees with its database: no `--accept-diff` publishes it.
 * @returns {@link OVER_THRESHOLDS}.
 */
async function stopAtGate(buckets: readonly VersionBucket<string>[], version: string, check: boolean, broken: boolean): Promise<number> {
  const nothing = check ? 'Publishing would publish nothing' : 'Nothing was published';
  console.error(
    broken
      ? `The diff gate stops version ${version}: its ASN object disagrees with its database (the table above), a broken build that no --accept-diff publishes. ${nothing}. Build it again: npm run data:build`
      : `The diff gate stops version ${version}: a measure is over its threshold (the table above). ${nothing}. ` +
          `Read the diff; to publish this build all the same: npm run data:publish -- … --accept-diff ${version}`,
  );
  if (!check) for (const bucket of buckets) await expireVersions(bucket, new Date(), console.log);
  return OVER_THRESHOLDS;
}

/**
 * Publishes `build` into every bucket, or with `check` says what that would do; reads every bucket's
 * record before it changes any.
 *
 * @returns how many buckets publishing changes (or would change): a new current version, or expired versions deleted.
 */
async function publishEverywhere(
  buckets: readonly VersionBucket<string>[],
  environments: readonly string[],
  build: BuildFile<string>,
  budgetBytes: number,
  check: boolean,
): Promise<number> {
  const records: (CurrentRecord | null)[] = [];
  for (const bucket of buckets) records.push(await readRecord(bucket));
  // A build of another number of shards than a bucket's current version is refused before any bucket changes.
  for (const [i, bucket] of buckets.entries()) {
    const record = records[i];
    const refusal =
      record && publicationStep(record, build) !== 'current'
        ? shardCountRefusal(bucket.name, record.current, build.version, build.shards.length, environments[i])
        : undefined;
    if (refusal) throw new PublishError(refusal);
  }
  let changes = 0;
  for (const [i, bucket] of buckets.entries()) {
    const record = records[i] ?? null;
    const step = publicationStep(record, build);
    const largest = Math.max(...(record?.current.shards.map((shard) => shard.bytes) ?? [0]));
    if (record && step !== 'current' && !budgetFit(largest, budgetBytes).fits) {
      console.log(
        `${bucket.name}: its current version ${record.current.version} (${mib(largest)}${record.current.shards.length > 1 ? ' its largest shard' : ''}) would not fit the budget; this publish replaces it.`,
      );
    }
    // Expired versions go at any publish, one that uploads nothing included (GeoLite2 EULA, 6c).
    const expired = record ? withoutExpired(record, new Date()).expired.length : 0;
    const addsAsn = lacksAsnObject(record, build.version, build.asn);
    if (step !== 'current' || expired > 0 || addsAsn) changes++;
    if (!check) {
      await publishTo(bucket, build, new Date(), console.log, record);
      continue;
    }
    console.log(`${bucket.name}: ${CHECK_WORDS[step](build.version, record?.current.version)}`);
    if (addsAsn) console.log(`${bucket.name}: version ${build.version} has no ASN object there; publishing would add the build's`);
    if (expired > 0) console.log(`${bucket.name}: publishing would delete ${expired} version(s) not current for over ${RETENTION_DAYS} days`);
  }
  return changes;
}

/** What `--check` says of a bucket, by {@link PublicationStep}. */
const CHECK_WORDS: Readonly<Record<PublicationStep, (version: string, current: string | undefined) => string>> = {
  current: (version) => `version ${version} is current; publishing would change nothing`,
  reuse: (version, current) => `version ${version} is there already; publishing would make it current again (current: ${current})`,
  upload: (version, current) => `publishing would upload version ${version} and make it current (current: ${current ?? 'none'})`,
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  Promise.resolve(main(process.argv.slice(2))).then((code) => {
    process.exitCode = code;
  });
}
