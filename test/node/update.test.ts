/**
 * @module `data:update` against a local server that imitates MaxMind's download API (Basic
 * authentication, a redirect to the archive as MaxMind's goes to its storage, `.sha256` files) with
 * archives made here from MaxMind's test databases; and the flag lists from an imitation of their
 * publishers (`test/support/flag-list-publishers.ts`). Each failure must leave the previous build and
 * the cache as they were, byte for byte; a flag list's publisher that fails only keeps its cached version.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { Reader } from '@maxmind/geoip2-node';
import { create } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLAG_LIST_IDS } from '../../data/sources/flag-lists/lists.ts';
import { DownloadCache } from '../../data/update/cache.ts';
import { UpdateError } from '../../data/update/download.ts';
import { fetchGeofeed } from '../../data/update/geofeeds.ts';
import { update } from '../../data/update/update.ts';
import { identifyDatabase } from '../../src/geo/identity.ts';
import { compiledFacts } from '../support/compiled-record.ts';
import { FIXTURES } from '../support/fixtures.ts';
import { edgesOf, PublisherImitation, SAMPLES } from '../support/flag-list-publishers.ts';
import { orNull } from '../support/geoip2.ts';

const ACCOUNT = { accountId: '123456', licenseKey: 'test-licence-key' };
const CITY_TEST = readFileSync(`${FIXTURES}/test-data/GeoLite2-City-Test.mmdb`);
const ASN_TEST = readFileSync(`${FIXTURES}/test-data/GeoLite2-ASN-Test.mmdb`);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A `.tar.gz` as MaxMind publishes it: `{edition}_{date}/` holding the database and its licence. */
async function archiveOf(edition: string, mmdb: Uint8Array): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'ipgeo-archive-'));
  const folder = `${edition}_20261117`;
  mkdirSync(join(dir, folder));
  writeFileSync(join(dir, folder, `${edition}.mmdb`), mmdb);
  writeFileSync(join(dir, folder, 'LICENSE.txt'), 'test licence\n');
  await create({ gzip: true, cwd: dir, file: join(dir, 'out.tar.gz') }, [folder]);
  return readFileSync(join(dir, 'out.tar.gz'));
}

/** A copy of a MaxMind DB whose metadata says it was built `days` days earlier. */
function builtEarlier(mmdb: Buffer, days: number): Buffer {
  const bytes = Buffer.from(mmdb);
  const at = bytes.lastIndexOf('build_epoch') + 'build_epoch'.length;
  const control = bytes[at] as number;
  const size = control & 0x1f;
  const start = at + (control >> 5 === 0 ? 2 : 1);
  const epoch = bytes.readUIntBE(start, size) - days * 86_400;
  bytes.writeUIntBE(epoch, start, size);
  return bytes;
}

/** How the imitation answers an edition: its archive and checksum, or a failure. */
type Behaviour =
  | { kind: 'serve'; archive: Buffer; checksum?: string }
  | { kind: 'status'; status: number; headers?: Record<string, string> }
  | { kind: 'stall' };

class MaxMindImitation {
  readonly behaviours = new Map<string, Behaviour>();
  /** Archive downloads (not checksum requests) per edition. */
  readonly downloads = new Map<string, number>();
  private servers: Server[] = [];
  url = '';
  /** Another origin, as MaxMind's storage is: fetch must not send the credentials there. */
  storageUrl = '';

  async start(): Promise<void> {
    const handler = (request: IncomingMessage, response: ServerResponse) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const stored = /^\/storage\/(.+)\.tar\.gz$/.exec(url.pathname);
      const behaviourOf = (edition: string) => this.behaviours.get(edition);
      if (stored) {
        // The redirect target, like MaxMind's presigned storage URL: no credentials asked or accepted.
        const behaviour = behaviourOf(decodeURIComponent(stored[1] as string));
        if (request.headers.authorization) return void response.writeHead(400).end('credentials sent to storage');
        if (behaviour?.kind !== 'serve') return void response.writeHead(404).end();
        return void response.end(behaviour.archive);
      }
      const api = /^\/geoip\/databases\/([^/]+)\/download$/.exec(url.pathname);
      if (!api) return void response.writeHead(404).end();
      const expected = `Basic ${Buffer.from(`${ACCOUNT.accountId}:${ACCOUNT.licenseKey}`).toString('base64')}`;
      if (request.headers.authorization !== expected) return void response.writeHead(401).end('Invalid license key\n');
      const edition = decodeURIComponent(api[1] as string);
      const behaviour = behaviourOf(edition);
      if (!behaviour) return void response.writeHead(404).end('Database edition not found\n');
      if (behaviour.kind === 'stall') return; // never answers
      if (behaviour.kind === 'status') return void response.writeHead(behaviour.status, behaviour.headers).end();
      const suffix = url.searchParams.get('suffix');
      if (suffix === 'tar.gz.sha256') {
        return void response.end(`${behaviour.checksum ?? sha256(behaviour.archive)}  ${edition}_20261117.tar.gz\n`);
      }
      if (suffix !== 'tar.gz') return void response.writeHead(400).end();
      this.downloads.set(edition, (this.downloads.get(edition) ?? 0) + 1);
      response.writeHead(302, { Location: `${this.storageUrl}/storage/${encodeURIComponent(edition)}.tar.gz` }).end();
    };
    const listen = async () => {
      const server = createServer(handler);
      this.servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    this.url = await listen();
    this.storageUrl = await listen();
  }

  async stop(): Promise<void> {
    for (const server of this.servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
}

/** Every file under `dir` with its bytes' digest: what "left as it was, byte for byte" compares. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(dir, path)] = sha256(readFileSync(path));
    }
  };
  if (existsSync(dir)) walk(dir);
  return files;
}

/** Runs `fail`, which must throw an UpdateError matching `message`, and leave the build and the cache as they were. */
async function expectFailsReplacingNothing(fail: () => Promise<unknown>, message: RegExp): Promise<void> {
  const before = { out: snapshot(outDir), cache: snapshot(cacheDir) };
  const error = await fail().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpdateError);
  expect((error as Error).message).toMatch(message);
  expect(snapshot(outDir)).toEqual(before.out);
  expect(snapshot(cacheDir)).toEqual(before.cache);
}

const server = new MaxMindImitation();
const work = mkdtempSync(join(tmpdir(), 'ipgeo-update-'));
const cacheDir = join(work, 'cache');
const outDir = join(work, 'out');
const lines: string[] = [];
const run = (options: { account?: typeof ACCOUNT; editions?: string[]; timeoutMs?: number; flagLists?: boolean; budgetBytes?: number; shards?: number } = {}) =>
  update({
    cacheDir,
    outDir,
    maxmind: { ...(options.account ?? ACCOUNT), baseUrl: server.url },
    ...(options.editions ? { editions: options.editions } : {}),
    flagLists: options.flagLists ?? false,
    timeoutMs: options.timeoutMs ?? 10_000,
    ...(options.budgetBytes ? { budgetBytes: options.budgetBytes } : {}),
    ...(options.shards ? { shards: options.shards } : {}),
    log: (line) => lines.push(line),
  });

let cityArchive: Buffer;
let asnArchive: Buffer;
beforeAll(async () => {
  await server.start();
  cityArchive = await archiveOf('GeoLite2-City', CITY_TEST);
  asnArchive = await archiveOf('GeoLite2-ASN', ASN_TEST);
  server.behaviours.set('GeoLite2-City', { kind: 'serve', archive: cityArchive });
  server.behaviours.set('GeoLite2-ASN', { kind: 'serve', archive: asnArchive });
});
afterAll(() => server.stop());

describe('data:update from MaxMind', () => {
  it('downloads the default editions with Basic authentication, checks them and builds from them', async () => {
    const { manifest, downloaded } = await run();
    expect(downloaded).toEqual(['maxmind/GeoLite2-City', 'maxmind/GeoLite2-ASN']);
    expect(server.downloads.get('GeoLite2-City')).toBe(1);
    // The build answers what MaxMind's test databases hold, read independently with MaxMind's own reader.
    const built = readFileSync(join(outDir, 'ipgeo.mmdb'));
    const city = Reader.openBuffer(CITY_TEST);
    const asn = Reader.openBuffer(ASN_TEST);
    for (const address of ['81.2.69.142', '2.125.160.216', '89.160.20.112']) {
      const facts = compiledFacts(built, address);
      expect(facts?.cityName, address).toBe(orNull(() => city.city(address))?.city?.names.en ?? '');
      expect(facts?.countryCode, address).toBe(orNull(() => city.city(address))?.country?.isoCode ?? '');
      expect(facts?.asn, address).toBe(orNull(() => asn.asn(address))?.autonomousSystemNumber ?? 0);
    }
    expect(manifest.shards.map((shard) => shard.sha256)).toEqual([sha256(readFileSync(join(outDir, 'ipgeo.mmdb')))]);
    // The manifest names the sources where they are kept, in the cache.
    const written = JSON.parse(readFileSync(join(outDir, 'ipgeo.manifest.json'), 'utf8')) as typeof manifest;
    expect(
      written.sources.flatMap((s) => s.files.map((f) => f.path)).every((path) => path.includes('cache/maxmind/') && existsSync(join(process.cwd(), path))),
    ).toBe(true);
  });

  it('does not download an edition again while its checksum is unchanged, and builds the same file: nothing to publish', async () => {
    const before = readFileSync(join(outDir, 'ipgeo.mmdb'));
    const { downloaded, unchanged, manifest } = await run();
    expect(downloaded).toEqual([]);
    expect(server.downloads.get('GeoLite2-City')).toBe(1);
    expect(lines.some((line) => /GeoLite2-City: unchanged/.test(line))).toBe(true);
    expect(unchanged).toBe(true);
    expect(Buffer.compare(readFileSync(join(outDir, 'ipgeo.mmdb')), before)).toBe(0);
    expect(manifest.shards.map((shard) => shard.sha256)).toEqual([sha256(before)]);
  });

  it('downloads an edition again when its cached copy was altered after download, and says so', async () => {
    const cached = join(cacheDir, 'maxmind', 'GeoLite2-City', 'GeoLite2-City.mmdb');
    const altered = readFileSync(cached);
    altered[64] = (altered[64] as number) ^ 0xff;
    writeFileSync(cached, altered);
    const before = server.downloads.get('GeoLite2-City') ?? 0;
    const { downloaded, unchanged } = await run();
    expect(downloaded).toEqual(['maxmind/GeoLite2-City']);
    expect(server.downloads.get('GeoLite2-City')).toBe(before + 1);
    expect(lines).toContain(
      'maxmind/GeoLite2-City: the cached copy was altered after download (its GeoLite2-City.mmdb is not the file whose SHA-256 was recorded when it was written); fetching it again',
    );
    // The copy downloaded again is MaxMind's, so the build is the one before.
    expect(unchanged).toBe(true);
    expect(Buffer.compare(readFileSync(cached), CITY_TEST)).toBe(0);
  });

  it('keeps the archive and checks it again: a database rewritten with its digest in source.json is extracted again from it', async () => {
    const folder = join(cacheDir, 'maxmind', 'GeoLite2-City');
    expect(readFileSync(join(folder, 'source.tar.gz')).equals(cityArchive)).toBe(true);
    /** Rewrites a cached file and the digest source.json records for it, as one who can write the cache would. */
    const rewrite = (name: string, bytes: Buffer) => {
      writeFileSync(join(folder, name), bytes);
      const source = JSON.parse(readFileSync(join(folder, 'source.json'), 'utf8'));
      source.files[name] = sha256(bytes);
      writeFileSync(join(folder, 'source.json'), JSON.stringify(source));
    };
    rewrite('GeoLite2-City.mmdb', builtEarlier(CITY_TEST, 1));
    const before = server.downloads.get('GeoLite2-City') ?? 0;
    expect((await run()).unchanged).toBe(true);
    expect(server.downloads.get('GeoLite2-City')).toBe(before);
    expect(lines).toContain("maxmind/GeoLite2-City: the cached files are not those of its archive, which is the publisher's; extracted again from the archive");
    expect(readFileSync(join(folder, 'GeoLite2-City.mmdb')).equals(CITY_TEST)).toBe(true);

    // The archive too, and the checksum it records: MaxMind's .sha256 is not its.
    const forged = await archiveOf('GeoLite2-City', builtEarlier(CITY_TEST, 1));
    rewrite('source.tar.gz', forged);
    rewrite('GeoLite2-City.mmdb', builtEarlier(CITY_TEST, 1));
    expect((await run()).unchanged).toBe(true);
    expect(server.downloads.get('GeoLite2-City')).toBe(before + 1);
    expect(lines).toContain('maxmind/GeoLite2-City: the cached archive does not match the SHA-256 MaxMind publishes for it; fetching it again');
    expect(readFileSync(join(folder, 'source.tar.gz')).equals(cityArchive)).toBe(true);
  });

  describe('fails clearly and replaces nothing', () => {
    const failures: Array<[string, () => Promise<unknown>, RegExp]> = [
      ['a wrong account or key (401)', () => run({ account: { ...ACCOUNT, licenseKey: 'wrong' } }), /401.*MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY/],
      [
        'a download limit (403)',
        async () => {
          server.behaviours.set('GeoLite2-City', { kind: 'status', status: 403 });
          return run();
        },
        /GeoLite2-City checksum: refused \(403 Forbidden\).*download limit/,
      ],
      [
        'too many downloads (429)',
        async () => {
          server.behaviours.set('GeoLite2-City', { kind: 'status', status: 429, headers: { 'Retry-After': '3600' } });
          return run();
        },
        /429.*try again after 3600 s/,
      ],
      [
        'a checksum mismatch',
        async () => {
          server.behaviours.set('GeoLite2-City', {
            kind: 'serve',
            archive: await archiveOf('GeoLite2-City', builtEarlier(CITY_TEST, -1)),
            checksum: 'ab'.repeat(32),
          });
          return run();
        },
        /GeoLite2-City archive: SHA-256 [0-9a-f]{64} does not match the published abab/,
      ],
      [
        'a truncated archive',
        async () => {
          const archive = await archiveOf('GeoLite2-City', builtEarlier(CITY_TEST, -1));
          server.behaviours.set('GeoLite2-City', { kind: 'serve', archive: archive.subarray(0, archive.length >> 1) });
          return run();
        },
        /GeoLite2-City archive is not a complete \.tar\.gz archive/,
      ],
      [
        'an archive without a MaxMind DB',
        async () => {
          server.behaviours.set('GeoLite2-City', { kind: 'serve', archive: await archiveOf('GeoLite2-City', Buffer.from('<html>not a database</html>')) });
          return run();
        },
        /GeoLite2-City\.mmdb of the GeoLite2-City archive is not a MaxMind DB/,
      ],
      [
        'a database of a type the build does not read, the type never repeated',
        async () => {
          const mmdb = Buffer.from(CITY_TEST);
          // The metadata's database_type, "GeoLite2-City", rewritten in place (same length) to a text of the publisher's.
          mmdb.write('SECRET-TOKEN1', mmdb.lastIndexOf('GeoLite2-City'));
          server.behaviours.set('GeoLite2-City', { kind: 'serve', archive: await archiveOf('GeoLite2-City', mmdb) });
          return run();
        },
        /^GeoLite2-City is not a type the build reads \(City, Country, ASN, Anonymous-IP\), by its database_type$/,
      ],
      [
        'no answer within the timeout',
        async () => {
          server.behaviours.set('GeoLite2-City', { kind: 'stall' });
          return run({ timeoutMs: 300 });
        },
        /GeoLite2-City checksum: no complete answer from http:\/\/127\.0\.0\.1:\d+ within 0\.3 s/,
      ],
      [
        'a database older than the cached one',
        async () => {
          server.behaviours.set('GeoLite2-City', { kind: 'serve', archive: await archiveOf('GeoLite2-City', builtEarlier(CITY_TEST, 3)) });
          return run();
        },
        /GeoLite2-City: the download was built on .*, before the cached one/,
      ],
      [
        'a database over the isolate budget',
        async () => {
          server.behaviours.set('GeoLite2-City', { kind: 'serve', archive: await archiveOf('GeoLite2-City', builtEarlier(CITY_TEST, -2)) });
          return run({ budgetBytes: 8 * 1_048_576 });
        },
        /the database was refused: .*ipgeo\.mmdb \(0\.0 MiB\) would need \d+\.\d MiB .* over the isolate budget of 8\.0 MiB/,
      ],
      [
        'a damaged second edition after a good first one',
        async () => {
          server.behaviours.set('GeoLite2-City', { kind: 'serve', archive: await archiveOf('GeoLite2-City', builtEarlier(CITY_TEST, -2)) });
          server.behaviours.set('GeoLite2-ASN', { kind: 'serve', archive: Buffer.from('not gzip') });
          return run();
        },
        /GeoLite2-ASN archive is not a complete \.tar\.gz archive/,
      ],
    ];
    it.each(failures)('on %s', async (_case, fail, message) => {
      expect(Object.keys(snapshot(outDir)).sort()).toEqual(['ipgeo.asn', 'ipgeo.manifest.json', 'ipgeo.mmdb']);
      try {
        await expectFailsReplacingNothing(fail, message);
      } finally {
        server.behaviours.set('GeoLite2-City', { kind: 'serve', archive: cityArchive });
        server.behaviours.set('GeoLite2-ASN', { kind: 'serve', archive: asnArchive });
      }
    });
  });

  it('takes other editions with --editions, and the flag lists from their publishers at overridable URLs', async () => {
    const anonymous = readFileSync(`${FIXTURES}/test-data/GeoIP2-Anonymous-IP-Test.mmdb`);
    server.behaviours.set('GeoIP2-Anonymous-IP', { kind: 'serve', archive: await archiveOf('GeoIP2-Anonymous-IP', anonymous) });
    const publishers = new PublisherImitation();
    await publishers.start();
    const variables = publishers.environment();
    Object.assign(process.env, variables);
    const editions = ['GeoLite2-City', 'GeoLite2-ASN', 'GeoIP2-Anonymous-IP'];
    try {
      const { manifest, downloaded, problems } = await run({ editions, flagLists: true });
      expect(downloaded).toEqual(['maxmind/GeoIP2-Anonymous-IP', ...FLAG_LIST_IDS.map((id) => `lists/${id}`)]);
      expect(problems).toEqual([]);
      expect(manifest.isProxyConfigured).toBe(true);
      const built = readFileSync(join(outDir, 'ipgeo.mmdb'));
      // Each list is a source of the manifest, with its version, and of the database's own metadata, which
      // the status endpoint lists (`src/routes/status.ts` answers `identifyDatabase`'s sources).
      const identity = await identifyDatabase(new Uint8Array(built).buffer);
      for (const id of FLAG_LIST_IDS) {
        const source = manifest.sources.find((s) => s.name === id);
        expect(source?.version, id).toMatch(
          new RegExp(`^${(SAMPLES[id].stated ?? 'sha256 [0-9a-f]{12}').replace(/[.]/g, '\\.')}, ${SAMPLES[id].prefixes.length} networks$`),
        );
        expect(
          source?.files.every((file) => file.path.includes(`cache/lists/${id}/`)),
          id,
        ).toBe(true);
        expect(
          identity.sources.find((s) => s.name === id),
          id,
        ).toMatchObject({ version: source?.version, builtAt: source?.builtAt, attribution: source?.attribution });
        expect(source?.flags, id).toEqual([SAMPLES[id].flag]);
      }
      // What the data can set, for the status and the home page: the lists' flags and the Anonymous-IP
      // edition's (vpn, tor, hosting, proxy), in the order docs/api.md gives them.
      const canSet = ['vpn', 'tor', 'relay', 'hosting', 'proxy'];
      expect(manifest.flags).toEqual(canSet);
      expect(identity.flags).toEqual(canSet);
      // Each list sets its own flag (and provider) on every listed prefix, first and last address, and not
      // on its neighbours; isProxy follows every flag but hosting (docs/api.md, "Privacy and hosting flags").
      const FLAG_FIELD = { vpn: 'isVpn', tor: 'isTor', relay: 'isRelay', hosting: 'isHosting', proxy: 'isProxy' } as const;
      const unflagged = { isVpn: false, isTor: false, isRelay: false, isHosting: false, isProxy: false, hostingProvider: '' };
      const flagsOf = (bytes: Buffer, address: string) => {
        const facts = compiledFacts(bytes, address);
        return facts ? Object.fromEntries(Object.keys(unflagged).map((key) => [key, facts[key as keyof typeof unflagged]])) : unflagged;
      };
      for (const id of FLAG_LIST_IDS) {
        const sample = SAMPLES[id];
        const flagged = {
          ...unflagged,
          [FLAG_FIELD[sample.flag]]: true,
          isProxy: sample.flag !== 'hosting',
          hostingProvider: sample.hostingProvider ?? '',
        };
        for (const prefix of sample.prefixes) {
          const { first, last, before, after } = edgesOf(prefix);
          expect(
            [first, last, before, after].map((address) => flagsOf(built, address)),
            `${id} ${prefix}`,
          ).toEqual([flagged, flagged, unflagged, unflagged]);
        }
      }
      const proxy = (bytes: Buffer, address: string) => compiledFacts(bytes, address)?.isProxy ?? false;
      expect(Reader.openBuffer(anonymous).anonymousIP('1.2.0.1').isAnonymous).toBe(true); // the fixture's anonymous network…
      expect(proxy(built, '1.2.0.1')).toBe(true); // …is a proxy in the build
      // Lists that come back the same keep their cached files (and dates): the same build, nothing to publish.
      const again = await run({ editions, flagLists: true });
      expect(again.downloaded).toEqual([]);
      expect(again.unchanged).toBe(true);
      expect(Buffer.compare(readFileSync(join(outDir, 'ipgeo.mmdb')), built)).toBe(0);
      // A publisher that fails leaves its cached list to the build, which is the same, and the update says so.
      publishers.answers.set('/aws/ip-ranges.json', { kind: 'status', status: 503 });
      const failing = await run({ editions, flagLists: true });
      expect(failing.problems).toEqual([
        expect.stringMatching(
          /^aws: aws ip-ranges\.json \(AWS_IP_RANGES_URL\): answered 503; the build uses the cached version, syncToken 1763420000, 2 networks, fetched /,
        ),
      ]);
      expect(failing.unchanged).toBe(true);
      // A list that changed is new, and so is the build; AWS's, back the same, is as cached.
      publishers.publishAll();
      publishers.answers.set('/tor-exits/torbulkexitlist', { kind: 'serve', body: '185.220.101.1\n185.220.101.3\n' });
      const changed = await run({ editions, flagLists: true });
      expect(changed.downloaded).toEqual(['lists/tor-exits']);
      expect(changed.problems).toEqual([]);
      expect(changed.unchanged).toBe(false);
      expect(proxy(built, '185.220.101.34')).toBe(true); // `built` is the earlier build's bytes
      expect(proxy(readFileSync(join(outDir, 'ipgeo.mmdb')), '185.220.101.34')).toBe(false);
      expect(proxy(readFileSync(join(outDir, 'ipgeo.mmdb')), '185.220.101.3')).toBe(true);
    } finally {
      for (const variable of Object.keys(variables)) delete process.env[variable];
      await publishers.stop();
    }
  });

  it('builds the shards --shards asks for in place of the one file, and the same shards again are nothing to publish', async () => {
    const { manifest, unchanged } = await run({ shards: 3 });
    expect(unchanged).toBe(false);
    expect(readdirSync(outDir).sort()).toEqual([
      'ipgeo.asn',
      'ipgeo.manifest.json',
      'ipgeo.shard-0-of-3.mmdb',
      'ipgeo.shard-1-of-3.mmdb',
      'ipgeo.shard-2-of-3.mmdb',
    ]);
    expect(manifest.shards.map((shard) => shard.sha256)).toEqual(manifest.shards.map((shard) => sha256(readFileSync(join(outDir, shard.file)))));
    const again = await run({ shards: 3 });
    expect(again.unchanged).toBe(true);
    expect(again.manifest.version).toBe(manifest.version);
  });
});

describe('data:update --geofeed and --corrections', () => {
  /** How the feed server answers a path: a body with its media type, a stream without end or length, or no answer. */
  type Feed = { kind: 'serve'; body: string; type?: string; length?: number } | { kind: 'endless' } | { kind: 'stall' };
  const feeds = new Map<string, Feed>();
  let feedServer: Server;
  let feedUrl = '';
  beforeAll(async () => {
    feedServer = createServer((request, response) => {
      const feed = feeds.get(new URL(request.url ?? '/', 'http://localhost').pathname);
      if (feed === undefined) return void response.writeHead(404).end();
      if (feed.kind === 'stall') return;
      if (feed.kind === 'endless') {
        // Good lines without end, as a misconfigured server might stream: written until the client goes.
        response.writeHead(200, { 'Content-Type': 'text/csv' });
        let line = 0;
        const chunk = () => Array.from({ length: 4096 }, () => `2a00:${(++line >>> 16).toString(16)}:${(line & 0xffff).toString(16)}::/48,DE\n`).join('');
        const write = () => {
          while (!response.destroyed && response.write(chunk()));
          if (!response.destroyed) response.once('drain', write);
        };
        return write();
      }
      response.writeHead(200, { 'Content-Type': feed.type ?? 'text/csv; charset=utf-8', ...(feed.length ? { 'Content-Length': String(feed.length) } : {}) });
      if (feed.length) return void response.write(feed.body);
      response.end(feed.body);
    });
    await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
    feedUrl = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    feedServer.closeAllConnections();
    await new Promise((resolve) => feedServer.close(resolve));
  });

  // The geofeed moves Linköping's 89.160.20.128/25 (test databases) to Melbourne; the operator's own
  // file sets one of its /27s to Japan, and the same /25 too: the operator's file comes after the feed.
  const FEED = '# The published geofeed of a network\n89.160.20.128/25,AU,AU-VIC,Melbourne,\n89.160.21.0/24,SG,,Singapore,\n';
  const ours = join(work, 'ours.csv');
  writeFileSync(ours, '89.160.20.160/27,JP,,,\n89.160.21.0/24,SE,,,\n');
  const updateWith = (geofeeds: string[], timeoutMs = 10_000) =>
    update({ cacheDir, outDir, maxmind: { ...ACCOUNT, baseUrl: server.url }, geofeeds, corrections: [ours], timeoutMs, log: (line) => lines.push(line) });

  it('fetches the feed, keeps it in the cache with its SHA-256 and date, and builds with it and the files after it', async () => {
    feeds.set('/geofeed.csv', { kind: 'serve', body: FEED });
    const started = Date.now();
    const { manifest, downloaded } = await updateWith([`${feedUrl}/geofeed.csv`]);
    expect(downloaded).toContain(`geofeeds/${sha256(Buffer.from(`${feedUrl}/geofeed.csv`)).slice(0, 16)}`);
    const [feed, own] = manifest.corrections ?? [];
    expect(feed).toMatchObject({
      name: `${feedUrl}/geofeed.csv`,
      origin: 'url',
      sha256: sha256(Buffer.from(FEED)),
      bytes: Buffer.byteLength(FEED),
      lines: 3,
      prefixes: 2,
    });
    expect(Date.parse(feed?.fetchedAt ?? '')).toBeGreaterThanOrEqual(started - 1000);
    expect(feed?.path).toMatch(/cache\/geofeeds\/[0-9a-f]{16}\/geofeed\.csv$/);
    expect(readFileSync(join(process.cwd(), feed?.path ?? '')).toString()).toBe(FEED);
    expect(own).toMatchObject({ name: 'ours.csv', origin: 'file', prefixes: 2 });
    const built = readFileSync(join(outDir, 'ipgeo.mmdb'));
    expect(compiledFacts(built, '89.160.20.130')).toMatchObject({ countryCode: 'AU', cityName: 'Melbourne', asn: 29518 });
    expect(compiledFacts(built, '89.160.20.170')).toMatchObject({ countryCode: 'JP', cityName: '' });
    expect(compiledFacts(built, '89.160.21.1')).toMatchObject({ countryCode: 'SE' });
  });

  it('keeps the date of a feed that comes back the same, and builds the same file', async () => {
    const before = JSON.parse(readFileSync(join(outDir, 'ipgeo.manifest.json'), 'utf8')) as { corrections: { fetchedAt?: string }[] };
    const { manifest, unchanged } = await updateWith([`${feedUrl}/geofeed.csv`]);
    expect(unchanged).toBe(true);
    expect(manifest.corrections?.[0]?.fetchedAt).toBe(before.corrections[0]?.fetchedAt);
  });

  it('takes the feeds and files of the scheduled refresh from GEOFEED_URLS and CORRECTIONS_FILES', async () => {
    const env = {
      ...process.env,
      MAXMIND_ACCOUNT_ID: ACCOUNT.accountId,
      MAXMIND_LICENSE_KEY: ACCOUNT.licenseKey,
      MAXMIND_BASE_URL: server.url,
      GEOFEED_URLS: `${feedUrl}/geofeed.csv`,
      CORRECTIONS_FILES: ours,
    };
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'data/update/cli.ts', '--cache', cacheDir, '--out', outDir], { env, encoding: 'utf8' });
    expect(stdout).toContain(`Corrections from ${feedUrl}/geofeed.csv, ours.csv: 3 of 4 correction lines apply`);
    const written = JSON.parse(readFileSync(join(outDir, 'ipgeo.manifest.json'), 'utf8')) as { corrections: { name: string }[] };
    expect(written.corrections.map((file) => file.name)).toEqual([`${feedUrl}/geofeed.csv`, 'ours.csv']);
  });

  it('names a feed by its origin and path: a token in its query is neither published nor logged', async () => {
    feeds.set('/private.csv', { kind: 'serve', body: FEED });
    const before = lines.length;
    const { manifest } = await updateWith([`${feedUrl}/private.csv?token=SECRET-TOKEN`]);
    expect(manifest.corrections?.[0]?.name).toBe(`${feedUrl}/private.csv`);
    const published = [
      readFileSync(join(outDir, 'ipgeo.manifest.json'), 'utf8'),
      readFileSync(join(outDir, 'ipgeo.mmdb')).toString('latin1'),
      ...lines.slice(before),
      ...Object.keys(snapshot(cacheDir))
        .filter((file) => file.endsWith('source.json'))
        .map((file) => readFileSync(join(cacheDir, file), 'utf8')),
    ].join('\n');
    expect(published).toContain(`${feedUrl}/private.csv`);
    expect(published).not.toContain('SECRET-TOKEN');
  });

  it('holds a feed to the prefixes the operator lists for it, whatever their width', async () => {
    feeds.set('/scoped.csv', { kind: 'serve', body: '89.160.0.0/16,AU,,,\n' });
    const { manifest } = await updateWith([`${feedUrl}/scoped.csv#prefixes=89.160.0.0/15,2001:db8::/32`]);
    expect(manifest.corrections?.[0]).toMatchObject({ name: `${feedUrl}/scoped.csv`, prefixes: 1 });
    expect(compiledFacts(readFileSync(join(outDir, 'ipgeo.mmdb')), '89.160.20.130')).toMatchObject({ countryCode: 'AU' });
    await expectFailsReplacingNothing(
      () => updateWith([`${feedUrl}/scoped.csv#prefixes=81.2.69.0/24`]),
      /--geofeed http:\/\/127\.0\.0\.1:\d+\/scoped\.csv: a line is refused:\n {2}line 1: 89\.160\.0\.0\/16 is outside the prefixes this feed may correct \(81\.2\.69\.0\/24; RFC 8805, section 3\.2\)/,
    );
  });

  const failures: Array<[string, () => Promise<unknown>, RegExp]> = [
    [
      'no answer within the timeout',
      () => {
        feeds.set('/stall.csv', { kind: 'stall' });
        return updateWith([`${feedUrl}/stall.csv`], 300);
      },
      /geofeed http:\/\/127\.0\.0\.1:\d+\/stall\.csv: no complete answer from http:\/\/127\.0\.0\.1:\d+ within 0\.3 s/,
    ],
    [
      'an HTML page in place of CSV',
      () => {
        feeds.set('/login', { kind: 'serve', body: '<!doctype html><title>Sign in</title>', type: 'text/html; charset=utf-8' });
        return updateWith([`${feedUrl}/login`]);
      },
      /geofeed http:\/\/127\.0\.0\.1:\d+\/login: the answer is text\/html, not what was asked for/,
    ],
    [
      'an answer that says it is larger than accepted',
      () => {
        feeds.set('/large.csv', { kind: 'serve', body: FEED, length: 32 * 1024 * 1024 + 1 });
        return updateWith([`${feedUrl}/large.csv`]);
      },
      /geofeed .*\/large\.csv: the answer is larger than 33554432 bytes, the most accepted/,
    ],
    [
      'a line the build refuses',
      () => {
        feeds.set('/bad.csv', { kind: 'serve', body: `${FEED}10.0.0.0/8,US,,,\n` });
        return updateWith([`${feedUrl}/bad.csv`]);
      },
      /--geofeed http:\/\/127\.0\.0\.1:\d+\/bad\.csv: a line is refused:\n {2}line 4: 10\.0\.0\.0\/8 is in 10\.0\.0\.0\/8, a private-use network/,
    ],
    [
      'a feed without any prefix',
      () => {
        feeds.set('/empty.csv', { kind: 'serve', body: '# nothing yet\n' });
        return updateWith([`${feedUrl}/empty.csv`]);
      },
      /holds no prefix/,
    ],
    [
      'a URL that is not https',
      () => updateWith(['http://geofeed.example.net/feed.csv']),
      /^geofeed http:\/\/geofeed\.example\.net\/feed\.csv: refused: http:\/\/geofeed\.example\.net is not https/,
    ],
  ];
  it.each(failures)('fails on %s, replacing nothing', (_case, fail, message) => expectFailsReplacingNothing(fail, message));

  it('refuses a feed without #prefixes= whose narrow lines add up past its ceiling, naming its URL without the query', async () => {
    // 1,025 lines of a /20 each: every line within the widest accepted, together over a /10 of IPv4.
    const body = Array.from({ length: 1025 }, (_, n) => `${11 + (n >>> 4)}.${(n & 15) * 16}.0.0/20,KP\n`).join('');
    feeds.set('/many.csv', { kind: 'serve', body });
    const staged = fetchGeofeed({ url: `${feedUrl}/many.csv?token=SECRET` }, new DownloadCache(join(work, 'many-cache')), 10_000, () => {});
    await expect(staged).rejects.toThrow(
      /^--geofeed http:\/\/127\.0\.0\.1:\d+\/many\.csv: its lines cover 4198400 IPv4 addresses \(a \/10's worth\), over the ceiling/,
    );
    await expect(staged).rejects.not.toThrow(/SECRET|token/);
    const allowed = await fetchGeofeed(
      { url: `${feedUrl}/many.csv?token=SECRET`, allowed: ['0.0.0.0/1'] },
      new DownloadCache(join(work, 'many-cache')),
      10_000,
      () => {},
    );
    expect(allowed.source.version).toMatch(/^1025 prefixes/);
  });

  it('stops reading a feed that grows past its cap without saying its length', async () => {
    // The cap of 32 MiB, read line by line, takes seconds; the same check with a cap of 1 MiB.
    feeds.set('/endless.csv', { kind: 'endless' });
    const staged = fetchGeofeed({ url: `${feedUrl}/endless.csv` }, new DownloadCache(join(work, 'cap-cache')), 10_000, () => {}, 1 << 20);
    await expect(staged).rejects.toThrow(/^geofeed http:\/\/127\.0\.0\.1:\d+\/endless\.csv: the answer is larger than 1048576 bytes, the most accepted$/);
  });
});
