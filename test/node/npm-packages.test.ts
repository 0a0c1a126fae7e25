/**
 * @module The npm packages `data:update` fetches without a MaxMind account (`data/update/npm-packages.ts`),
 * their cache held to the registry's word: npm is answered as the registry would (`view`, `pack`), and
 * the cache is altered as whoever can write it would, the files and `source.json` together.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create } from 'tar';
import { beforeEach, describe, expect, it } from 'vitest';
import { DownloadCache } from '../../data/update/cache.ts';
import { fetchPackage, type NpmRun } from '../../data/update/npm-packages.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const sri = (bytes: Uint8Array) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`;

/** A tarball as `npm pack` writes one: the package's files under `package/`. */
async function tarballOf(files: Record<string, string>): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'ipgeo-npm-package-'));
  mkdirSync(join(dir, 'package'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, 'package', name), content);
  await create({ gzip: true, cwd: dir, file: join(dir, 'out.tgz'), portable: true }, ['package']);
  return readFileSync(join(dir, 'out.tgz'));
}

/** The registry as npm reports it: one version of one package, its tarball and integrity. */
class Registry {
  version = '1.0.0';
  tarball: Buffer = Buffer.alloc(0);
  integrity = '';
  readonly calls: string[] = [];
  readonly run: NpmRun = async (args) => {
    this.calls.push(args[0] ?? '');
    if (args[0] === 'view') return JSON.stringify({ version: this.version, 'dist.integrity': this.integrity });
    const folder = args[args.indexOf('--pack-destination') + 1] ?? '';
    writeFileSync(join(folder, `pkg-${this.version}.tgz`), this.tarball);
    return JSON.stringify([{ filename: `pkg-${this.version}.tgz` }]);
  };
  async publish(files: Record<string, string>): Promise<void> {
    this.tarball = await tarballOf(files);
    this.integrity = sri(this.tarball);
  }
}

const PACKAGE = { 'package.json': '{"name":"pkg","version":"1.0.0"}\n', 'data.csv': '1.0.0.0,1.0.0.255,13335\n' };

describe('a cached npm package', () => {
  let root = '';
  let registry: Registry;
  const lines: string[] = [];
  const folder = () => join(root, 'npm', 'pkg');
  /** One update's fetch of the package, committed to the cache as `data:update` does after its build. */
  const fetched = async () => {
    const cache = new DownloadCache(root, (line) => lines.push(line));
    const staged = await fetchPackage('pkg', cache, 10_000, (line) => lines.push(line), registry.run);
    cache.commit([staged]);
    return staged;
  };
  /** Rewrites a cached file and the digest `source.json` records for it, as one who can write the cache would. */
  const rewrite = (name: string, bytes: Buffer | string) => {
    writeFileSync(join(folder(), name), bytes);
    const source = JSON.parse(readFileSync(join(folder(), 'source.json'), 'utf8'));
    source.files[name] = sha256(Buffer.from(bytes));
    writeFileSync(join(folder(), 'source.json'), JSON.stringify(source));
  };

  beforeEach(async () => {
    if (root) rmSync(root, { recursive: true, force: true });
    root = mkdtempSync(join(tmpdir(), 'ipgeo-npm-cache-'));
    lines.length = 0;
    registry = new Registry();
    await registry.publish(PACKAGE);
    await fetched();
    registry.calls.length = 0;
  });

  it('keeps the tarball beside the files, and is reused while the registry states its integrity and the tarball matches it', async () => {
    expect(readFileSync(join(folder(), 'source.tgz')).equals(registry.tarball)).toBe(true);
    expect(JSON.parse(readFileSync(join(folder(), 'source.json'), 'utf8')).integrity).toBe(registry.integrity);
    const staged = await fetched();
    expect(staged.changed).toBe(false);
    expect(registry.calls).toEqual(['view']);
    expect(lines.at(-1)).toBe('pkg: 1.0.0 is the newest and cached, its tarball still the registry’s; not downloaded');
  });

  it('catches files rewritten with their digests in source.json: extracted again from the tarball', async () => {
    rewrite('data.csv', '0.0.0.0,255.255.255.255,666\n');
    const staged = await fetched();
    expect(staged.changed).toBe(true);
    expect(registry.calls).toEqual(['view']);
    expect(lines).toContain("npm/pkg: the cached files are not those of its archive, which is the publisher's; extracted again from the archive");
    expect(readFileSync(join(folder(), 'data.csv'), 'utf8')).toBe(PACKAGE['data.csv']);
  });

  it('catches a file added with its digest, as the tarball holds no such file', async () => {
    rewrite('extra.csv', 'anything\n');
    expect((await fetched()).changed).toBe(true);
    expect(lines.some((line) => line.includes('extracted again from the archive'))).toBe(true);
  });

  it('catches a tarball rewritten with its files and digests: fetched again from the registry', async () => {
    const forged = await tarballOf({ ...PACKAGE, 'data.csv': '0.0.0.0,255.255.255.255,666\n' });
    rewrite('source.tgz', forged);
    rewrite('data.csv', '0.0.0.0,255.255.255.255,666\n');
    const staged = await fetched();
    expect(staged.changed).toBe(true);
    expect(registry.calls).toEqual(['view', 'pack']);
    expect(lines).toContain(`npm/pkg: the cached archive has ${sri(forged)}, not the registry's integrity ${registry.integrity}; fetching it again`);
    expect(readFileSync(join(folder(), 'data.csv'), 'utf8')).toBe(PACKAGE['data.csv']);
  });

  it('is fetched again when the registry states another integrity for the same version than the one recorded', async () => {
    await registry.publish({ ...PACKAGE, 'data.csv': '2.0.0.0,2.0.0.255,64512\n' });
    const staged = await fetched();
    expect(staged.changed).toBe(true);
    expect(registry.calls).toEqual(['view', 'pack']);
    expect(lines).toContain("npm/pkg: the registry's integrity for 1.0.0 is not the one recorded when it was cached; fetching it again");
    expect(readFileSync(join(folder(), 'data.csv'), 'utf8')).toBe('2.0.0.0,2.0.0.255,64512\n');
  });

  it('is fetched again when it was cached before tarballs were kept', async () => {
    rmSync(join(folder(), 'source.tgz'));
    const source = JSON.parse(readFileSync(join(folder(), 'source.json'), 'utf8'));
    delete source.files['source.tgz'];
    writeFileSync(join(folder(), 'source.json'), JSON.stringify(source));
    expect((await fetched()).changed).toBe(true);
    expect(registry.calls).toEqual(['view', 'pack']);
    expect(lines).toContain('npm/pkg: the cached copy was written before the cache kept its archive; fetching it again');
  });

  it('refuses a package that holds a file the cache keeps for itself', async () => {
    await registry.publish({ ...PACKAGE, 'source.json': '{}' });
    registry.version = '1.0.1';
    await expect(fetched()).rejects.toThrow('pkg@1.0.1: the package holds a file named source.json, which the download cache keeps for itself');
  });
});
