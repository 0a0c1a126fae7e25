/**
 * @module `npm run dev` / `npm run dev:paid`: builds the database if it is missing, publishes it into the
 * local R2 bucket of the chosen deployment as the current version (as `npm run data:publish` does;
 * skipped when it is current already), and runs `wrangler dev` on loopback.
 *
 *     tsx scripts/dev.ts --env free --port 8787      (npm run dev)
 *     tsx scripts/dev.ts --env de --port 8788        (npm run dev:paid)
 *     npm run dev -- --port 8731 --inspector-port 8732
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { build, DATABASE_FILE, MANIFEST_FILE } from '../data/build.ts';
import { commandLineError, parseCommandLine } from '../data/command-line.ts';
import { readBuildFile } from '../data/publish/build-file.ts';
import { bucketOf, deployments } from '../data/publish/cli.ts';
import { PublishError, publishTo, readRecord } from '../data/publish/record.ts';
import { wranglerBucket } from '../data/publish/wrangler-bucket.ts';
import { prepareHomeAssets } from './home-assets.ts';

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

if (!existsSync(DATABASE_FILE) || !existsSync(MANIFEST_FILE)) {
  console.log('No database yet: building it from the default sources (about a minute)…');
  build({ proxyLists: [] });
}

try {
  const local = readBuildFile(MANIFEST_FILE);
  const bucket = wranglerBucket({ environment, bucket: bucketOf(environment), remote: false });
  if ((await readRecord(bucket))?.current.version === local.version) {
    console.log(`The local R2 bucket ${bucket.name} already has version ${local.version} as current.`);
  } else {
    const shards = local.shards.map((shard) => ({ ...shard, body: shard.file }));
    await publishTo(bucket, { ...local, shards }, new Date(), console.log, undefined, { newShardCount: true });
  }
} catch (error) {
  if (!(error instanceof PublishError)) throw error;
  console.error(`Could not publish the local build: ${error.message}`);
  process.exit(1);
}

// The page's map follows src/pages/world.ts: drawn again when it changed since `npm install`.
prepareHomeAssets();
console.log(
  `Serving the ${environment} deployment at http://localhost:${port} (try: curl http://localhost:${port}/api/${environment === 'free' ? 'v1/' : ''}json/8.8.8.8)`,
);
const inspector = values['inspector-port'] ? ['--inspector-port', values['inspector-port']] : [];
const child = spawn('npx', ['wrangler', 'dev', '--env', environment, '--port', port, '--ip', '127.0.0.1', ...inspector], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
