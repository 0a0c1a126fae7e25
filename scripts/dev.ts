/**
 * @module `npm run dev` / `npm run dev:paid`: builds the database if it is missing, puts it into the
 * local R2 bucket of the chosen deployment (skipped when that exact file is already there), and runs
 * `wrangler dev` on loopback.
 *
 *     tsx scripts/dev.ts --env free --port 8787      (npm run dev)
 *     tsx scripts/dev.ts --env de --port 8788        (npm run dev:paid)
 */
import { spawn, spawnSync } from 'node:child_process';

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { build, DATABASE_FILE, MANIFEST_FILE } from '../data/build.ts';

const { values } = parseArgs({ options: { env: { type: 'string', default: 'free' }, port: { type: 'string', default: '8787' } } });
const environment = values.env as string;
const port = values.port as string;
const BUCKETS: Record<string, string> = { free: 'ipgeo-data', de: 'ipgeo-data-de', us: 'ipgeo-data-us', sg: 'ipgeo-data-sg', au: 'ipgeo-data-au' };
const bucket = BUCKETS[environment];
if (!bucket) {
  console.error(`unknown deployment ${environment}; one of ${Object.keys(BUCKETS).join(', ')}`);
  process.exit(2);
}

if (!existsSync(DATABASE_FILE) || !existsSync(MANIFEST_FILE)) {
  console.log('No database yet: building it from the default sources (about a minute)…');
  build({ proxyLists: [] });
}

const sha256 = (JSON.parse(readFileSync(MANIFEST_FILE, 'utf8')) as { output: { sha256: string } }).output.sha256;
const marker = join('.wrangler', `uploaded-${environment}.sha256`);
if (!existsSync(marker) || readFileSync(marker, 'utf8') !== sha256) {
  console.log(`Putting ${DATABASE_FILE} into the local R2 bucket ${bucket}…`);
  const put = spawnSync('npx', ['wrangler', 'r2', 'object', 'put', `${bucket}/ipgeo.mmdb`, '--local', '--env', environment, '--file', DATABASE_FILE], {
    stdio: 'inherit',
  });
  if (put.status !== 0) process.exit(put.status ?? 1);
  mkdirSync('.wrangler', { recursive: true });
  writeFileSync(marker, sha256);
} else {
  console.log(`The local R2 bucket ${bucket} already holds this database (sha256 ${sha256.slice(0, 12)}…).`);
}

console.log(
  `Serving the ${environment} deployment at http://localhost:${port} (try: curl http://localhost:${port}/api/${environment === 'free' ? 'v1/' : ''}json/8.8.8.8)`,
);
const child = spawn('npx', ['wrangler', 'dev', '--env', environment, '--port', port, '--ip', '127.0.0.1'], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
