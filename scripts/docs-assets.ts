/**
 * @module Copies the standalone bundle of `@scalar/api-reference` (from the npm registry, pinned by
 * `package-lock.json`) into `assets/docs/vendor/`, the Worker's static assets, so that `/docs` renders
 * without a CDN. Run by `npm install` (`postinstall`) and again by the commands that serve or deploy
 * the Worker; the copy is not committed.
 *
 *     tsx scripts/docs-assets.ts
 */
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The bundle in the installed package: one script, no chunks loaded later. */
const SCALAR_BUNDLE = join(ROOT, 'node_modules/@scalar/api-reference/dist/browser/standalone.js');
/** Where the Worker serves it from: `/docs/vendor/scalar-api-reference.js`. */
const SERVED_BUNDLE = join(ROOT, 'assets/docs/vendor/scalar-api-reference.js');

/**
 * Copies the bundle unless the served copy has its size and modification time already.
 *
 * @throws {Error} naming the package when it is not installed.
 */
export function copyDocsAssets(): void {
  if (!existsSync(SCALAR_BUNDLE)) throw new Error(`${SCALAR_BUNDLE} is missing: run npm install (the package @scalar/api-reference provides it).`);
  const source = statSync(SCALAR_BUNDLE);
  if (existsSync(SERVED_BUNDLE)) {
    const served = statSync(SERVED_BUNDLE);
    if (served.size === source.size && served.mtimeMs >= source.mtimeMs) return;
  }
  mkdirSync(dirname(SERVED_BUNDLE), { recursive: true });
  copyFileSync(SCALAR_BUNDLE, SERVED_BUNDLE);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) copyDocsAssets();
