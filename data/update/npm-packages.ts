/**
 * @module The npm fallback of `data:update`, used without MaxMind credentials: the newest published
 * version of each default source package, fetched with npm itself (`npm view`, `npm pack`) into the
 * download cache, without touching `package.json` or the lockfile. The tarball must match the
 * registry's `dist.integrity`, which the cache and the build's manifest record with its version; it is
 * kept in the cache beside its files, and a cached version is reused only when the registry still
 * states the integrity recorded, the tarball still matches it, and the files are the tarball's.
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

/** The tarball's name in the package's cache folder (a package holding a file of that name, or `source.json`, is refused). */
const TARBALL = 'source.tgz';

/** Runs `npm` with these arguments and gives its standard output; the real CLI unless a test gives another. */
export type NpmRun = (args: string[], timeoutMs: number, name: string) => Promise<string>;

/**
 * Fetches the newest version of `name` into the staging folder (the package's files, as installed under
 * `node_modules/<name>/`, and its tarball), or finds it unchanged in the cache: the same version, the
 * registry's integrity the one recorded, the cached tarball matching it, its files the tarball's
 * (extracted again when they are not; fetched again otherwise, each said in `log`).
 *
 * @param npmRun how npm is run (the CLI; tests answer as the registry would).
 * @throws UpdateError when npm cannot reach the registry, the package is unknown, the registry gives
 *   no sha512 integrity or the tarball does not match it, the tarball is truncated or holds a link or a
 *   path outside its folder (`archive.ts`) or a file the cache keeps for itself, or the newest version
 *   is older than the cached one.
 */
export async function fetchPackage(
  name: string,
  cache: DownloadCache,
  timeoutMs: number,
  log: (line: string) => void,
  npmRun: NpmRun = npm,
): Promise<StagedSource> {
  const id = `npm/${name}`;
  const { version, integrity } = newest(await npmRun(['view', name, 'version', 'dist.integrity', '--json'], timeoutMs, name), name);
  const cached = cache.cached(id);
  if (cached?.version === version) {
    let reused: StagedSource | undefined;
    if (cached.integrity !== integrity) log(`${id}: the registry's integrity for ${version} is not the one recorded when it was cached; fetching it again`);
    else
      reused = await cache.fromArchive(
        id,
        cached,
        TARBALL,
        (tarball) => integrityRefusal(tarball, integrity),
        (tarball) => packageFiles(tarball, name, version),
      );
    if (reused !== undefined) {
      log(`${name}: ${version} is the newest and cached${reused.changed ? '' : ', its tarball still the registry’s'}; not downloaded`);
      return reused;
    }
  }
  if (cached && compareVersions(version, cached.version) < 0) {
    throw new UpdateError(`${name}: the newest published version ${version} is older than the cached ${cached.version}; keeping the cached one`);
  }
  const folder = mkdtempSync(join(tmpdir(), 'ipgeo-npm-'));
  try {
    const packed = JSON.parse(await npmRun(['pack', `${name}@${version}`, '--pack-destination', folder, '--json'], timeoutMs, name)) as { filename: string }[];
    const tarball = readFileSync(join(folder, packed[0]?.filename ?? ''));
    const refused = integrityRefusal(tarball, integrity);
    if (refused !== undefined) throw new UpdateError(`${name}@${version}: the tarball ${refused}`);
    const files = await packageFiles(tarball, name, version);
    log(`${name}: fetched ${version} (${(tarball.length / 1048576).toFixed(1)} MiB, ${sha512Of(tarball).slice(0, 19)}…)`);
    return cache.stage(id, new Map([...files, [TARBALL, tarball]]), { version, integrity, fetchedAt: new Date().toISOString() });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The SRI of a tarball's SHA-512, as the registry writes it (`sha512-…`). */
function sha512Of(tarball: Buffer): string {
  return `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
}

/** Why `tarball` is not the one of the registry's `integrity`, or undefined when it is. */
function integrityRefusal(tarball: Buffer, integrity: string): string | undefined {
  const sha512 = sha512Of(tarball);
  return integrity.split(/\s+/).includes(sha512) ? undefined : `has ${sha512}, not the registry's integrity ${integrity}`;
}

/**
 * A package's files, as installed under `node_modules/<name>/`, by their path.
 *
 * @throws UpdateError as `filesOf` (`archive.ts`), or when the package holds a file the cache keeps for itself.
 */
async function packageFiles(tarball: Buffer, name: string, version: string): Promise<Map<string, Buffer>> {
  const files = await filesOf(tarball, (path) => path.startsWith('package/'), `${name}@${version} tarball`);
  const stripped = new Map([...files].map(([path, bytes]) => [path.slice('package/'.length), bytes]));
  for (const kept of [TARBALL, 'source.json']) {
    if (stripped.has(kept)) throw new UpdateError(`${name}@${version}: the package holds a file named ${kept}, which the download cache keeps for itself`);
  }
  return stripped;
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

/** The npm CLI. */
const npm: NpmRun = async (args, timeoutMs, name) => {
  try {
    const { stdout } = await run('npm', args, { timeout: timeoutMs, maxBuffer: 16 << 20, env: { ...process.env, npm_config_loglevel: 'error' } });
    return stdout;
  } catch (error) {
    const { stderr, killed } = error as { stderr?: string; killed?: boolean };
    if (killed) throw new UpdateError(`${name}: npm ${args[0]} did not finish within ${timeoutMs / 1000} s`);
    const reason = (stderr ?? (error as Error).message).split('\n').find((line) => /ERR!|error/i.test(line)) ?? (error as Error).message;
    throw new UpdateError(`${name}: npm ${args[0]} failed: ${reason.trim()}`);
  }
};

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
