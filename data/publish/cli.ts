/**
 * @module `npm run data:publish` and `npm run data:rollback`: put the build into each deployment's R2
 * bucket as `ipgeo-{version}.mmdb` and make it current, or make the version before current again.
 * Running Workers switch within a minute (`src/geo/load.ts`). Local R2 of `wrangler dev` unless `--remote`.
 *
 *     npm run data:publish -- --env free                 the local bucket of the free deployment
 *     npm run data:publish -- --all --remote             every deployment's bucket on Cloudflare
 *     npm run data:rollback -- --env de --remote
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { experimental_readRawConfig, unstable_readConfig } from 'wrangler';
import { commandLineError, parseCommandLine } from '../command-line.ts';
import { readBuildFile } from './build-file.ts';
import { type Publication, PublishError, publishTo, rollBack, type VersionBucket } from './record.ts';
import { verifyDatabase } from './verify.ts';
import { wranglerBucket } from './wrangler-bucket.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CONFIG = join(ROOT, 'wrangler.toml');
const DEFAULT_FILE = join(ROOT, 'data', 'out', 'ipgeo.mmdb');

/** The usage of `data:publish` or of `data:rollback`. */
function usageOf(command: 'publish' | 'rollback'): string {
  const publish = command === 'publish';
  return `usage: npm run data:${command} -- (--env NAME... | --all) [--remote]${publish ? ' [--file FILE]' : ''} [--persist-to DIR]

${publish ? 'Uploads the build into the R2 bucket of each deployment and makes it the current version.' : 'Makes the version before the current one current again, in the R2 bucket of each deployment.'}
Running Workers switch within a minute.
  --env NAME        a deployment of wrangler.toml (free, de, us, sg, au); repeatable
  --all             every deployment
  --remote          Cloudflare's R2 (wrangler login, or CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID);
                    without it, the local R2 of \`wrangler dev\`${publish ? '\n  --file FILE       the database to publish (default data/out/ipgeo.mmdb; its manifest beside it)' : ''}
  --persist-to DIR  the local state directory, when not .wrangler/state`;
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

/** The build in `file`, checked against its manifest and read whole (`verify.ts`), ready to publish. */
export function readBuild(file: string): Publication<string> {
  const build = readBuildFile(file);
  verifyDatabase(build.body, file);
  return { ...build, body: file };
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
    },
  });
  if (typeof line === 'number') return line;
  const { values } = line;
  if (!values.all && !values.env?.length) return commandLineError(name, 'name the deployments: --env NAME (repeatable) or --all');
  if (values.all && values.env?.length) return commandLineError(name, '--env and --all exclude each other');
  if (command === 'rollback' && values.file) return commandLineError(name, '--file is for data:publish only');
  return runCommand(command, values);
}

/**
 * Runs `data:publish` or `data:rollback` with parsed options.
 *
 * @returns the exit code: 0, or 1 after printing why nothing (more) was done.
 */
export async function runCommand(
  command: 'publish' | 'rollback',
  values: { env?: string[]; all?: boolean; remote?: boolean; file?: string; 'persist-to'?: string },
): Promise<number> {
  const started = Date.now();
  try {
    const known = deployments();
    const environments = values.all ? known : (values.env ?? []);
    for (const environment of environments) {
      if (!known.includes(environment)) throw new PublishError(`unknown deployment ${environment}; one of ${known.join(', ')}`);
    }
    const build = command === 'publish' ? readBuild(resolve(values.file ?? DEFAULT_FILE)) : undefined;
    if (build) console.log(`Publishing version ${build.version} (checked: every network and record reads)`);
    for (const environment of environments) {
      const target = { environment, bucket: bucketOf(environment), remote: values.remote ?? false };
      const bucket: VersionBucket<string> = wranglerBucket(values['persist-to'] ? { ...target, persistTo: resolve(values['persist-to']) } : target);
      if (build) await publishTo(bucket, build, new Date(), console.log);
      else await rollBack(bucket, new Date(), console.log);
    }
    console.log(
      `Done in ${((Date.now() - started) / 1000).toFixed(1)} s. Running Workers switch within a minute; GET /api/v1/status (free) or /api/status (paid) names the version.`,
    );
    return 0;
  } catch (error) {
    if (error instanceof PublishError) {
      console.error(`data:${command} failed: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  Promise.resolve(main(process.argv.slice(2))).then((code) => {
    process.exitCode = code;
  });
}
