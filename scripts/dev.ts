/**
 * @module `npm run dev` / `npm run dev:paid`: builds the database if it is missing, publishes it into the
 * local R2 bucket of the chosen deployment as the current version (as `npm run data:publish` does;
 * skipped when it is current already), and runs `wrangler dev` on loopback; a paid deployment with the
 * usage Worker beside it, which counts its usage (`scripts/deploy/usage.ts`).
 *
 *     tsx scripts/dev.ts --env free --port 8787      (npm run dev)
 *     tsx scripts/dev.ts --env de --port 8788        (npm run dev:paid)
 *     npm run dev -- --port 8731 --inspector-port 8732
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, MANIFEST_FILE } from '../data/build.ts';
import { commandLineError, parseCommandLine } from '../data/command-line.ts';
import { manifestShards } from '../data/output.ts';
import { bodiesAsPaths, readBuildFile } from '../data/publish/build-file.ts';
import { bucketOf, deployments } from '../data/publish/cli.ts';
import { PublishError, publishTo, readRecord } from '../data/publish/record.ts';
import { wranglerBucket } from '../data/publish/wrangler-bucket.ts';
import { readWranglerToml, writeDeployConfig } from './deploy/config.ts';
import { PAID_ENVIRONMENTS } from './deploy/settings.ts';
import { withShardBindings, writeShardConfigs } from './deploy/shards.ts';
import { writeUsageConfig } from './deploy/usage.ts';
import { prepareHomeAssets } from './home-assets.ts';

const ROOT = resolve(import.meta.dirname, '..');

// One program serves both scripts; npm names the one that ran.
const COMMAND = process.env.npm_lifecycle_event === 'dev:paid' ? 'npm run dev:paid' : 'npm run dev';
const USAGE = `usage: ${COMMAND} -- [--port PORT] [--inspector-port PORT] [--env NAME]

Builds the database if data/out/ has none, makes it the current version in the local R2 bucket of the
deployment, and serves that deployment with wrangler dev on 127.0.0.1.
  --port PORT            where to listen (npm run dev: 8787, npm run dev:paid: 8788)
  --inspector-port PORT  where wrangler's inspector listens (wrangler's default when omitted)
  --env NAME             the deployment of wrangler.toml: free, or a paid one (de, us, sg, au);
                         npm run dev sets free, npm run dev:paid sets de`;

const line = parseCommandLine(process.argv.slice(2), {
  command: COMMAND,
  usage: USAGE,
  options: { env: { type: 'string', default: 'free' }, port: { type: 'string', default: '8787' }, 'inspector-port': { type: 'string' } },
});
if (typeof line === 'number') process.exit(line);
const { values } = line;
const environment = values.env as string;
const port = values.port as string;
if (!deployments().includes(environment)) {
  process.exit(commandLineError(COMMAND, `unknown deployment '${environment}'; wrangler.toml has ${deployments().join(', ')}`));
}

if (!existsSync(MANIFEST_FILE)) {
  console.log('No database yet: building it from the default sources (about a minute)…');
  build({ proxyLists: [] });
}

try {
  const local = readBuildFile(MANIFEST_FILE);
  const bucket = wranglerBucket({ environment, bucket: bucketOf(environment), remote: false });
  try {
    const current = (await readRecord(bucket))?.current;
    if (current?.version === local.version && current.asn?.sha256 === local.asn?.sha256) {
      console.log(`The local R2 bucket ${bucket.name} already has version ${local.version} as current.`);
    } else {
      await publishTo(bucket, bodiesAsPaths(local), new Date(), console.log, undefined, { newShardCount: true });
    }
  } finally {
    // Before wrangler dev serves the same state.
    await bucket.dispose();
  }
} catch (error) {
  if (!(error instanceof PublishError)) throw error;
  console.error(`Could not publish the local build: ${error.message}`);
  process.exit(1);
}

/**
 * The configurations `wrangler dev` runs, in one `wrangler dev` (the first is the app, which alone
 * listens), on the local state of `.wrangler/state` that the publish above wrote: `wrangler.toml` alone
 * for the free deployment with a build of one file; a paid one also runs the usage Worker that its
 * `USAGE` binding names (`scripts/deploy/usage.ts`); a sharded build (`docs/sharding.md`) runs the app
 * bound to its shard Workers, and one configuration per shard.
 */
function devConfigs(environment: string): string[] {
  const count = manifestShards(JSON.parse(readFileSync(MANIFEST_FILE, 'utf8')) as Parameters<typeof manifestShards>[0]).length;
  const paid = PAID_ENVIRONMENTS.includes(environment as (typeof PAID_ENVIRONMENTS)[number]);
  if (count <= 1 && !paid) return [];
  const dir = join(ROOT, '.wrangler', 'dev');
  const toml = readWranglerToml(join(ROOT, 'wrangler.toml'));
  let configs = [join(ROOT, 'wrangler.toml')];
  if (count > 1) {
    const app = withShardBindings(
      { ...toml, main: resolve(ROOT, String(toml.main)), assets: { ...(toml.assets as object), directory: join(ROOT, 'assets') } },
      environment,
      count,
    );
    writeDeployConfig(join(dir, 'wrangler.json'), app);
    configs = [join(dir, 'wrangler.json'), ...writeShardConfigs(toml, environment, count, ROOT, dir)];
    console.log(`The build has ${count} shards: serving them with ${count} shard Workers beside the app.`);
  }
  if (paid) configs.push(writeUsageConfig(toml, ROOT, dir));
  return configs.flatMap((config) => ['-c', config]).concat(['--persist-to', join(ROOT, '.wrangler', 'state')]);
}

// The page's map follows src/pages/world.ts: drawn again when it changed since `npm install`.
prepareHomeAssets();
console.log(
  `Serving the ${environment} deployment at http://localhost:${port} (try: curl http://localhost:${port}/api/${environment === 'free' ? 'v1/' : ''}json/8.8.8.8)`,
);
const inspector = values['inspector-port'] ? ['--inspector-port', values['inspector-port']] : [];
const child = spawn('npx', ['wrangler', 'dev', ...devConfigs(environment), '--env', environment, '--port', port, '--ip', '127.0.0.1', ...inspector], {
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
