/**
 * @module The downloads of `data:update --flag-lists` (`data/update/flag-lists.ts`) against a local
 * imitation of each publisher (`test/support/flag-list-publishers.ts`): each list fetched into the
 * cache with its own version, kept as cached when it comes back the same, and, when its publisher
 * fails (an error status, no answer in time, a malformed or oversized body, a page without its link),
 * the cached version kept or, with none, the list left out, saying so.
 */

import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FLAG_LIST_IDS, type FlagListId } from '../../data/sources/flag-lists/lists.ts';
import { DownloadCache } from '../../data/update/cache.ts';
import { download, UpdateError } from '../../data/update/download.ts';
import { fetchFlagList, MAX_LIST_CHANGE, newestLink, PUBLISHED_LISTS } from '../../data/update/flag-lists.ts';
import { PublisherImitation, SAMPLES } from '../support/flag-list-publishers.ts';

const publishers = new PublisherImitation();
const saved: Record<string, string | undefined> = {};
beforeAll(async () => {
  await publishers.start();
  for (const [variable, url] of Object.entries(publishers.environment())) {
    saved[variable] = process.env[variable];
    process.env[variable] = url;
  }
});
afterAll(async () => {
  for (const [variable, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[variable];
    else process.env[variable] = value;
  }
  await publishers.stop();
});
beforeEach(() => publishers.publishAll());

const listOf = (id: FlagListId) => PUBLISHED_LISTS.find((list) => list.id === id) as (typeof PUBLISHED_LISTS)[number];
/** What the caches of the tests said about their own content (altered, or written before digests were kept). */
const cacheLines: string[] = [];
const newCache = () => new DownloadCache(mkdtempSync(join(tmpdir(), 'ipgeo-flag-cache-')), (line) => cacheLines.push(line));

/** Fetches a list into `cache` and commits it, as an update whose build succeeded does. */
async function fetchInto(cache: DownloadCache, id: FlagListId, timeoutMs = 10_000, acceptChange = false) {
  const lines: string[] = [];
  const fetched = await fetchFlagList(listOf(id), cache, timeoutMs, (line) => lines.push(line), acceptChange);
  if (fetched.staged) cache.commit([fetched.staged]);
  return { fetched, lines, paths: fetched.paths.map((path) => path.replace(`${basename(cache.staging)}/`, '')) };
}

describe('fetching each list', () => {
  it.each(FLAG_LIST_IDS)('%s: downloads its files from its publisher into the cache, with its version', async (id) => {
    const cache = newCache();
    const { fetched, lines, paths } = await fetchInto(cache, id);
    const sample = SAMPLES[id];
    expect(fetched.problem).toBeUndefined();
    expect(fetched.staged?.changed).toBe(true);
    // The files are the publisher's, byte for byte, under their names.
    expect(paths.map((path) => basename(path))).toEqual(Object.keys(sample.files));
    expect(paths.map((path) => readFileSync(path, 'utf8'))).toEqual(Object.values(sample.files));
    const version = cache.cached(`lists/${id}`)?.version ?? '';
    expect(version).toMatch(new RegExp(`^${(sample.stated ?? 'sha256 [0-9a-f]{12}').replace(/[.]/g, '\\.')}, ${sample.prefixes.length} networks$`));
    expect(lines).toEqual([`${id}: ${version} from 127.0.0.1:${new URL(publishers.url).port}`]);
  });

  it('finds Azure’s weekly file by the newest link of its Download Center page, on download.microsoft.com only', () => {
    const { linkedAs } = listOf('azure').files[0] ?? {};
    const ours = 'https://download.microsoft.com/download/7/1/d/71d86715-5596-4529-9b13-da13a5de5b63';
    const page = [
      `<a href="${ours}/ServiceTags_Public_20261109.json">last week</a>`,
      `<a href="${ours}/ServiceTags_Public_20261116.json" class="mscom-link">Download</a>`,
      '<a href="https://download.microsoft.example/x/ServiceTags_Public_20991231.json">a look-alike</a>',
      '<a href="http://download.microsoft.com/x/ServiceTags_Public_20991231.json">plain http</a>',
      '<a href="https://evil.example/download.microsoft.com/ServiceTags_Public_20991231.json">another host</a>',
    ].join('\n');
    expect(newestLink(page, linkedAs as RegExp)).toBe(`${ours}/ServiceTags_Public_20261116.json`);
    expect(newestLink(page.split('\n').slice(2).join('\n'), linkedAs as RegExp)).toBeUndefined();
  });

  it('keeps the cached files of a list that comes back the same, so that the build is the same', async () => {
    const cache = newCache();
    const first = await fetchInto(cache, 'cloudflare');
    const again = await fetchInto(cache, 'cloudflare');
    expect(again.fetched.staged?.changed).toBe(false);
    expect(again.fetched.problem).toBeUndefined();
    expect(again.paths).toEqual(first.paths);
    expect(again.lines[0]).toMatch(/^cloudflare: sha256 [0-9a-f]{12}, 3 networks from .+, as cached$/);
    // A list that changed is new.
    publishers.answers.set('/cloudflare/ips-v4', { kind: 'serve', body: '173.245.48.0/20\n103.21.244.0/22\n103.22.200.0/22\n' });
    const changed = await fetchInto(cache, 'cloudflare');
    expect(changed.fetched.staged?.changed).toBe(true);
    expect(cache.cached('lists/cloudflare')?.version).toMatch(/, 4 networks$/);
  });
});

describe('a publisher that fails', () => {
  const failures: Array<[string, FlagListId, () => void, RegExp, number?]> = [
    [
      'an error status',
      'aws',
      () => publishers.answers.set('/aws/ip-ranges.json', { kind: 'status', status: 500 }),
      /aws ip-ranges\.json \(AWS_IP_RANGES_URL\): answered 500/,
    ],
    [
      'no answer in time',
      'google-cloud',
      () => publishers.answers.set('/google-cloud/cloud.json', { kind: 'stall' }),
      /google-cloud cloud\.json \(GOOGLE_CLOUD_RANGES_URL\): no complete answer from http:\/\/127\.0\.0\.1:\d+ within 0\.3 s/,
      300,
    ],
    [
      'a malformed body',
      'oracle-cloud',
      () =>
        publishers.answers.set('/oracle-cloud/public_ip_ranges.json', {
          kind: 'serve',
          body: JSON.stringify({ last_updated_timestamp: '2026-11-25T00:00:00', regions: [{ region: 'x', cidrs: [{ cidr: 'not-a-network' }] }] }),
        }),
      /oracle-cloud public_ip_ranges\.json from 127\.0\.0\.1:\d+: regions\[0\]\.cidrs\[0\]\.cidr: the entry is not an IP address/,
    ],
    [
      'a body that is not the list',
      'fastly',
      () => publishers.answers.set('/fastly/public-ip-list.json', { kind: 'serve', body: '<html>sign in</html>' }),
      /fastly public-ip-list\.json from .+ is not JSON/,
    ],
    [
      'one file of two missing',
      'x4bnet-vpn',
      () => publishers.answers.set('/x4bnet-vpn/ipv6.txt', { kind: 'status', status: 404 }),
      /x4bnet-vpn ipv6\.txt \(VPN_LIST_IPV6_URL\): not found \(404\)/,
    ],
    [
      'a page that links its file elsewhere than download.microsoft.com',
      'azure',
      () => {
        process.env.AZURE_SERVICE_TAGS_URL = `${publishers.url}/azure/details.aspx`;
      },
      /azure download page \(AZURE_SERVICE_TAGS_URL\): http:\/\/.+\/azure\/details\.aspx links to no file matching https:\\\/\\\/download\\\.microsoft\\\.com/,
    ],
    [
      'a list over its ceiling',
      'tor-exits',
      () => publishers.answers.set('/tor-exits/torbulkexitlist', { kind: 'serve', body: '185.220.0.0/15\n' }),
      /tor-exits torbulkexitlist from .+: covers 131072 IPv4 addresses .*over the list's ceiling of a \/16's worth/,
    ],
    [
      'a list that lost every entry',
      'x4bnet-datacenter',
      () => {
        publishers.answers.set('/x4bnet-datacenter/ipv4.txt', { kind: 'serve', body: '# regenerating\n' });
        publishers.answers.set('/x4bnet-datacenter/ipv6.txt', { kind: 'serve', body: '' });
      },
      /x4bnet-datacenter ipv4\.txt from .+ and x4bnet-datacenter ipv6\.txt from .+: no network/,
    ],
  ];
  afterEach(() => {
    process.env.AZURE_SERVICE_TAGS_URL = publishers.environment().AZURE_SERVICE_TAGS_URL;
  });

  it.each(failures)('keeps the cached version on %s, and says so', async (_case, id, fail, message, timeoutMs) => {
    const cache = newCache();
    const good = await fetchInto(cache, id);
    const cached = cache.cached(`lists/${id}`);
    fail();
    const { fetched, lines, paths } = await fetchInto(cache, id, timeoutMs);
    expect(fetched.staged?.changed).toBe(false);
    expect(paths).toEqual(good.paths);
    expect(paths.map((path) => readFileSync(path, 'utf8'))).toEqual(Object.values(SAMPLES[id].files));
    expect(fetched.problem).toMatch(message);
    expect(fetched.problem).toContain(`; the build uses the cached version, ${cached?.version}, fetched ${cached?.fetchedAt}`);
    expect(lines).toEqual([fetched.problem]);
  });

  it.each(failures)('leaves the list out on %s when none is cached, and says so', async (_case, id, fail, message, timeoutMs) => {
    const cache = newCache();
    fail();
    const { fetched } = await fetchInto(cache, id, timeoutMs);
    expect(fetched.staged).toBeUndefined();
    expect(fetched.paths).toEqual([]);
    expect(fetched.problem).toMatch(message);
    expect(fetched.problem).toMatch(/; no cached version, so the build goes on without this list$/);
    expect(existsSync(cache.dirOf(`lists/${id}`))).toBe(false);
  });
});

describe('a list that changed too much from its cached version', () => {
  const cloudflare = (v4: string) => publishers.answers.set('/cloudflare/ips-v4', { kind: 'serve', body: v4 });

  it(`takes a change within ${MAX_LIST_CHANGE * 100}% of its networks and addresses`, async () => {
    const cache = newCache();
    await fetchInto(cache, 'cloudflare');
    cloudflare('173.245.48.0/20\n'); // 3 networks to 2, 5,120 IPv4 addresses to 4,096
    const { fetched } = await fetchInto(cache, 'cloudflare');
    expect(fetched.problem).toBeUndefined();
    expect(fetched.staged?.changed).toBe(true);
  });

  it.each([
    [
      'networks',
      Array.from({ length: 9 }, (_, i) => `173.245.${48 + i * 16}.0/20`).join('\n'),
      /its networks went from 3 in the cached version to 10 \(\+233%\)/,
    ],
    ['addresses', '173.128.0.0/10\n103.21.244.0/22\n', /its IPv4 addresses went from 5120 in the cached version to 4195328 \(\+81840%\)/],
  ])('keeps the cached version when its %s changed more, and says so; --accept-list-change takes it', async (_what, v4, message) => {
    const cache = newCache();
    const good = await fetchInto(cache, 'cloudflare');
    cloudflare(v4);
    const kept = await fetchInto(cache, 'cloudflare');
    expect(kept.fetched.staged?.changed).toBe(false);
    expect(kept.paths).toEqual(good.paths);
    expect(kept.fetched.problem).toMatch(message);
    expect(kept.fetched.problem).toMatch(
      /, more than the 50% a refresh takes unasked \(--accept-list-change cloudflare takes it\); the build uses the cached version/,
    );
    const taken = await fetchInto(cache, 'cloudflare', 10_000, true);
    expect(taken.fetched.problem).toBeUndefined();
    expect(taken.fetched.staged?.changed).toBe(true);
    expect(taken.lines[0]).toMatch(message);
    expect(taken.lines[0]).toContain('taken, as --accept-list-change cloudflare asks');
  });
});

describe('a cached list', () => {
  it('altered after download is fetched again, and said; with its publisher down it is not used', async () => {
    const cache = newCache();
    const { paths } = await fetchInto(cache, 'cloudflare');
    writeFileSync(paths[0] as string, '0.0.0.0/8\n1.0.0.0/8\n');
    const again = await fetchInto(cache, 'cloudflare');
    expect(cacheLines.at(-1)).toBe(
      'lists/cloudflare: the cached copy was altered after download (its ips-v4 is not the file whose SHA-256 was recorded when it was written); fetching it again',
    );
    expect(again.fetched.staged?.changed).toBe(true);
    expect(readFileSync(again.paths[0] as string, 'utf8')).toBe(SAMPLES.cloudflare.files['ips-v4']);
    // Altered again, and the publisher down: the list is left out rather than the altered copy used.
    writeFileSync(again.paths[0] as string, '0.0.0.0/8\n');
    publishers.answers.set('/cloudflare/ips-v4', { kind: 'status', status: 503 });
    const offline = await fetchInto(cache, 'cloudflare');
    expect(offline.fetched.staged).toBeUndefined();
    expect(offline.fetched.problem).toMatch(/answered 503; no cached version, so the build goes on without this list$/);
  });

  it('with a file added, or written before the cache kept digests, is fetched again, and said', async () => {
    const cache = newCache();
    await fetchInto(cache, 'fastly');
    writeFileSync(join(cache.dirOf('lists/fastly'), 'extra.txt'), '8.8.8.0/24\n');
    await fetchInto(cache, 'fastly');
    expect(cacheLines.at(-1)).toMatch(/^lists\/fastly: the cached copy was altered after download \(its folder holds other files/);
    const record = join(cache.dirOf('lists/fastly'), 'source.json');
    const { files: _files, ...before } = JSON.parse(readFileSync(record, 'utf8')) as Record<string, unknown>;
    writeFileSync(record, JSON.stringify(before));
    const again = await fetchInto(cache, 'fastly');
    expect(cacheLines.at(-1)).toBe("lists/fastly: the cached copy was written before the cache kept its files' SHA-256; fetching it again");
    expect(again.fetched.staged?.changed).toBe(true);
  });
});

describe('a bounded download', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((request, response) => {
      const body = Buffer.alloc(4096, 'a');
      // Its length stated, then the body; or the body in chunks, its length unstated; or a length stated
      // and a body that never comes, which a bound must refuse at once.
      if (request.url === '/stated') return void response.writeHead(200, { 'Content-Length': body.length }).end(body);
      if (request.url === '/streamed') {
        response.write(body.subarray(0, 2048));
        return void setTimeout(() => response.end(body.subarray(2048)), 10);
      }
      response.writeHead(200, { 'Content-Length': 1 << 20 }).write(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each(['/stated', '/streamed'])('refuses an answer over its bound (%s)', async (path) => {
    const error = await download(`${url}${path}`, { what: 'a list', timeoutMs: 10_000, maxBytes: 4095 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpdateError);
    expect((error as Error).message).toBe('a list: the answer is larger than 4095 bytes, the most accepted');
    expect((await download(`${url}${path}`, { what: 'a list', timeoutMs: 10_000, maxBytes: 4096 })).length).toBe(4096);
  });

  it('refuses an answer whose stated length is over its bound without waiting for its body', async () => {
    const error = await download(`${url}/announced`, { what: 'a list', timeoutMs: 5_000, maxBytes: 65_536 }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('a list: the answer is larger than 65536 bytes, the most accepted');
  });
});
