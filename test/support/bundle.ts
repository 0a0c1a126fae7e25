/** @module Bundles a Worker as `wrangler deploy` would (`--dry-run --outdir`), for the auxiliary Workers of the test projects. */
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Bundles the Worker of `configPath` (relative to the root, or absolute) in `environment` into `outDir`.
 *
 * @returns the bundle's path (one ES module).
 */
export function bundleWorker(configPath: string, environment: string, outDir: string): string {
  rmSync(outDir, { recursive: true, force: true });
  execFileSync('npx', ['wrangler', 'deploy', '--dry-run', '--config', configPath, '--env', environment, '--outdir', outDir], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const script = readdirSync(outDir).find((name) => name.endsWith('.js'));
  if (!script) throw new Error(`wrangler wrote no bundle into ${outDir}`);
  return join(outDir, script);
}
