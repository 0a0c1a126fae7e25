/**
 * @module What the browser tests run against, started once, in Node: `wrangler dev` of the free
 * deployment and of the paid `de` deployment, on local state in a temporary directory (the compiled
 * database published in each local R2 bucket; accounts made with the operator tool), and a server of plain test
 * pages that answers for every hostname. Chromium reaches them through hostnames that it maps to
 * 127.0.0.1 (`--host-resolver-rules`). Ports 8741-8745 (`BROWSER_TEST_PORT` moves them).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { build, DATABASE_FILE } from '../../data/build.ts';
import { bodiesAsPaths, readBuildFile } from '../../data/publish/build-file.ts';
import { bucketOf } from '../../data/publish/cli.ts';
import { publishTo } from '../../data/publish/record.ts';
import { wranglerBucket } from '../../data/publish/wrangler-bucket.ts';
import { run as accounts } from '../../operator/accounts.ts';
import { copyDocsAssets } from '../../scripts/docs-assets.ts';
import { prepareHomeAssets } from '../../scripts/home-assets.ts';

/** The first of the five ports the servers listen on (`BROWSER_TEST_PORT` moves them, so that two checkouts can run at once). */
const BASE_PORT = Number(process.env.BROWSER_TEST_PORT ?? 8741);

/** Where each server listens. */
export const PORTS = { free: BASE_PORT, de: BASE_PORT + 1, pages: BASE_PORT + 2, freeInspector: BASE_PORT + 3, deInspector: BASE_PORT + 4 } as const;

/** The accounts the tests rely on: hostname whitelisted by an active account, and by a cancelled one. */
export const ACCOUNTS = {
  active: { id: 'browser-app', hostname: 'app.example.test' },
  cancelled: { id: 'browser-gone', hostname: 'cancelled.example.test' },
} as const;

declare module 'vitest' {
  export interface ProvidedContext {
    ports: typeof PORTS;
  }
}

const children: ChildProcess[] = [];
let pages: Server | undefined;
let state: string | undefined;

async function operator(...argv: string[]): Promise<void> {
  const errors: string[] = [];
  const status = await accounts([...argv, '--persist-to', state ?? ''], { out: () => {}, err: (line) => errors.push(line) });
  if (status !== 0) throw new Error(`accounts ${argv.join(' ')}: ${errors.join('\n')}`);
}

/** `wrangler dev` of one environment, in its own process group so that teardown ends all of it. */
function serve(environment: 'free' | 'de', port: number, inspectorPort: number): void {
  const child = spawn(
    'npx',
    [
      'wrangler',
      'dev',
      '--env',
      environment,
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspectorPort),
      '--persist-to',
      state ?? '',
      // Whitelisted hostnames match http:// pages with a port too (the test pages are such).
      '--var',
      'ALLOW_HTTP_ORIGINS:true',
      '--show-interactive-dev-session=false',
      '--log-level',
      'warn',
    ],
    { detached: true, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } },
  );
  children.push(child);
}

async function waitForHealth(port: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`wrangler dev on port ${port} did not answer /health within 120 s`);
}

/** A plain page for any hostname and path: the scripts under test run in it through `page.evaluate`. */
function startPages(): Promise<Server> {
  const server = createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${request.headers.host}</title></head><body>test page</body></html>`);
  });
  return new Promise((done) => server.listen(PORTS.pages, '127.0.0.1', () => done(server)));
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync(DATABASE_FILE)) build({ proxyLists: [] }, () => {});
  copyDocsAssets();
  prepareHomeAssets();
  state = mkdtempSync(join(tmpdir(), 'ipgeo-browser-'));
  // Published as `npm run data:publish` does: the version's object, then the bucket's current record.
  const local = bodiesAsPaths(readBuildFile(DATABASE_FILE));
  for (const environment of ['free', 'de'] as const) {
    const bucket = wranglerBucket({ environment, bucket: bucketOf(environment), remote: false, persistTo: state });
    try {
      await publishTo(bucket, local, new Date(), () => {});
    } finally {
      await bucket.dispose();
    }
  }
  await operator('create', ACCOUNTS.active.id);
  await operator('allow-domain', ACCOUNTS.active.id, ACCOUNTS.active.hostname);
  await operator('create', ACCOUNTS.cancelled.id);
  await operator('allow-domain', ACCOUNTS.cancelled.id, ACCOUNTS.cancelled.hostname);
  await operator('cancel', ACCOUNTS.cancelled.id);

  const teardown = async () => {
    for (const child of children) {
      if (child.pid !== undefined && child.exitCode === null) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // ended already
        }
      }
    }
    await new Promise<void>((done) => (pages ? pages.close(() => done()) : done()));
    if (state) rmSync(state, { recursive: true, force: true });
  };
  try {
    // One at a time: two workerd processes opening the same persisted state at once can find its SQLite
    // files locked ("database is locked: SQLITE_BUSY"), and the second then never starts.
    serve('free', PORTS.free, PORTS.freeInspector);
    await waitForHealth(PORTS.free);
    serve('de', PORTS.de, PORTS.deInspector);
    pages = await startPages();
    await waitForHealth(PORTS.de);
  } catch (error) {
    await teardown();
    throw error;
  }
  project.provide('ports', PORTS);
  return teardown;
}
