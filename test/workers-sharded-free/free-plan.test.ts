/**
 * @module The free deployment whose database is three shards (`data/out/small-3/`, MaxMind's test data),
 * each served by a shard Worker: its home page and single lookups answer as the free app of the same
 * data as one file does (`data/out/small/`, published into `ONE_FILE_DATA`) and as the test databases
 * say (`TestDataOracle`); a shard that cannot answer fails only its own visitors' pages, given back to
 * their allowance; the page names the sharded set's version. Client addresses: 100.64.32.0/22.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import type { Language } from '../../src/geo/languages.ts';
import { parseRanges, shardIndexOf } from '../../src/geo/shard-ranges.ts';
import { parseIp } from '../../src/ip/address.ts';
import { resetShardSetForTests } from '../../src/lookup/sharded.ts';
import type { RateLimiter } from '../../src/ratelimit/rate-limiter.ts';
import type { ExpectedRecord } from '../support/expected-record.ts';
import { attributesOf, textIn, textsOf, visibleText } from '../support/html.ts';
import { type ExpectedExtras, TestDataOracle } from '../support/oracle.ts';
import { compiledBuild, publish, publishSharded, publishWithDamagedShard, type ShardedBuild, shardedBuild } from '../support/publish.ts';
import { repoFile } from '../support/repo.ts';
import { SMALL_SHARDED_DIR } from '../support/sharded-build.ts';
import { appFetch, workerFetch } from '../support/worker-fetch.ts';

/**
 * Visitors of the test data on every shard, IPv4 and IPv6: Linköping (shard 0); Milton, with its ASN
 * and postal code, San Diego, and an address that only the ASN data covers (shard 1); Gibraltar (shard 2).
 */
const VISITORS = ['89.160.20.112', '216.160.83.56', '2001:480:10::1', '2a02:a200::1', '2a02:ffc0::1'];

const ORIGIN = 'http://free.test';

interface Manifest {
  version: string;
  builtAt: string;
  flags: string[];
  shards: { first: string; last: string }[];
  sources: { name: string; version: string; licence: string; attribution: string }[];
}

let oracle: TestDataOracle;
let manifest: Manifest;
let build: ShardedBuild;
let oneFileVersion: string;
beforeAll(async () => {
  oracle = await TestDataOracle.load();
  manifest = JSON.parse(new TextDecoder().decode(await repoFile(`${SMALL_SHARDED_DIR}/ipgeo.manifest.json`))) as Manifest;
  build = await shardedBuild(SMALL_SHARDED_DIR);
  const oneFile = await compiledBuild('data/out/small');
  oneFileVersion = oneFile.version;
  await publish(oneFile.bytes, oneFile.version, new Date(), { bucket: oneFileBucket(), name: 'ONE_FILE_DATA' });
});

function oneFileBucket(): R2Bucket {
  return (env as unknown as { ONE_FILE_DATA: R2Bucket }).ONE_FILE_DATA;
}

/** The free app of the same data as one file: the same code, its own bucket, no shard Workers. */
const oneFileApp = createApp('free');

function oneFileBindings(): Env {
  const unsharded = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('SHARD_')));
  return { ...unsharded, GEO_DATA: oneFileBucket() } as Env;
}

let client = 0;
/** A client address of this file's range (1,024 addresses) that no other request of it has used. */
function freshClient(): string {
  client++;
  if (client >= 1024) throw new Error('this file has used every client address of 100.64.32.0/22');
  return `100.64.${32 + (client >> 8)}.${client & 0xff}`;
}

/** GET `path` of the sharded deployment, from `clientIp`. */
function sharded(path: string, clientIp = freshClient()): Promise<Response> {
  return workerFetch(`${ORIGIN}${path}`, { headers: { 'CF-Connecting-IP': clientIp } });
}

/** GET `path` of the free app of one file, from `clientIp`. */
function oneFile(path: string, clientIp = freshClient()): Promise<Response> {
  return appFetch(oneFileApp, new Request(`${ORIGIN}${path}`, { headers: { 'CF-Connecting-IP': clientIp } }), oneFileBindings());
}

/** The requests that the client's rate-limit object has admitted. */
function admitted(clientIp: string): Promise<number[]> {
  return runInDurableObject(env.RATE_LIMITER.getByName(clientIp), (instance: RateLimiter) => instance.admittedTimes());
}

/**
 * The page's record and code (`#result` and the request as code): their text, the local time left out
 * (the clock moves between two pages), and the attributes of every element in them.
 */
async function recordPart(html: string) {
  const clock = await textIn(html, '#result time');
  const localTime = /"localTime": "[^"]*"|<localTime>[^<]*<\/localTime>/g;
  return {
    result: (await textIn(html, '#result')).replace(clock, '').replace(/\s+/g, ' '),
    code: (await textIn(html, '.as-code')).replace(localTime, '').replace(/\s+/g, ' '),
    attributes: (await attributesOf(html, '#result *, .as-code *')).map(({ datetime: _clock, ...attributes }) => attributes),
  };
}

/** The page's facts (`dl.facts`), term by term, the local time left out. */
async function factsOf(html: string): Promise<Record<string, string>> {
  const [terms, values] = await Promise.all([textsOf(html, 'dl.facts dt'), textsOf(html, 'dl.facts dd')]);
  return Object.fromEntries(terms.map((term, i) => [term, (values[i] ?? '').split(/\s*local time /)[0] ?? '']));
}

/** The facts the page must show for `record`, in the page's words (docs/home-page.md). The small builds' flags come from the Anonymous-IP test data. */
function expectedFacts(record: ExpectedRecord & ExpectedExtras): Record<string, string> {
  const absent = 'not in the data';
  const coded = (name: string, code: string, more = '') => `${name || absent}${code ? ` (${code}${more})` : ''}`;
  const degrees = (value: number, positive: string, negative: string) => `${Math.abs(value).toFixed(4)}° ${value < 0 ? negative : positive}`;
  const position = `${degrees(record.latitude, 'N', 'S')}, ${degrees(record.longitude, 'E', 'W')}`;
  const kinds = [record.isVpn ? 'a VPN' : '', record.isTor ? 'a Tor exit' : '', record.isRelay ? 'a relay (such as iCloud Private Relay)' : ''].filter(Boolean);
  expect(manifest.flags).toEqual(['vpn', 'tor', 'hosting', 'proxy']);
  return {
    City: record.cityName || absent,
    Region: coded(record.regionName, record.regionCode),
    Country: coded(record.countryName, record.countryCode, record.isEu ? ', in the EU' : ''),
    Continent: coded(record.continent, record.continentCode),
    Coordinates: `${record.latitude === 0 && record.longitude === 0 ? absent : position}${record.accuracyRadius ? ` (within ${record.accuracyRadius} km)` : ''}`,
    'Postal code': record.zipCode || absent,
    'Time zone': record.timeZones[0] || absent,
    Network: record.network,
    'Autonomous system': record.asn ? `AS${record.asn}${record.asnOrganization ? `, ${record.asnOrganization}` : ''}` : 'no ASN in the data',
    Proxy: `${record.isProxy ? `Yes: ${kinds.length > 0 ? kinds.join(', ') : 'a listed proxy'}` : 'No'} (this data lists: VPN, Tor exit, proxy)`,
    Hosting: `${record.isHosting ? `Yes${record.hostingProvider ? `: ${record.hostingProvider}` : ''}` : 'No'} (this data lists: hosting)`,
  };
}

function expected(address: string): ExpectedRecord {
  return oracle.expected(address) ?? expect.fail(`${address} is not in the test data`);
}

/** The record of every field (`fields=all`) that the page shows for `address`, the local time as any. */
function expectedAll(address: string) {
  return { ...expected(address), ...oracle.extras(address), utcOffset: expect.any(String), isDst: expect.any(Boolean), localTime: expect.any(String) };
}

describe('the home page of a sharded free deployment', () => {
  it('has visitors on every shard, IPv4 and IPv6', () => {
    const ranges = parseRanges(manifest.shards);
    if ('error' in ranges) throw new Error(ranges.error);
    const shardOf = (address: string) => shardIndexOf(ranges, parseIp(address) ?? expect.fail(address));
    expect(new Set(VISITORS.map(shardOf))).toEqual(new Set([0, 1, 2]));
    expect(new Set(VISITORS.filter((address) => address.includes(':')).map(shardOf)).size).toBeGreaterThanOrEqual(2);
    expect(new Set(VISITORS.filter((address) => !address.includes(':')).map(shardOf)).size).toBeGreaterThanOrEqual(2);
  });

  it("shows each visitor's own record as the test data has it, as the app of one file does", async () => {
    for (const visitor of VISITORS) {
      const record = expected(visitor);
      const page = await sharded('/', visitor);
      expect(page.status, visitor).toBe(200);
      const html = await page.text();
      expect(await textIn(html, 'h1'), visitor).toBe(visitor);
      expect(await factsOf(html), visitor).toEqual(expectedFacts({ ...record, ...oracle.extras(visitor) }));
      expect(JSON.parse(await textIn(html, '#code-json')), visitor).toEqual(expectedAll(visitor));
      const flags = (await attributesOf(html, '#result img.flag')).map((image) => image.src);
      expect(new Set(flags), visitor).toEqual(new Set(record.countryCode ? [`/home/vendor/flags/${record.countryCode}.svg`] : []));

      const whole = await oneFile('/', visitor);
      expect(whole.status, visitor).toBe(200);
      expect(await recordPart(html), visitor).toEqual(await recordPart(await whole.text()));
    }
  });

  // The test data names a few places differently from record to record (the US in de, fr, ja and pt-BR,
  // North America in es), where a database keeps one name per place: these languages avoid them.
  it.each<[string, Language]>([
    ['89.160.20.112', 'zh-CN'],
    ['216.160.83.56', 'ru'],
    ['2001:480:10::1', 'zh-CN'],
    ['2a02:ffc0::1', 'ja'],
  ])('shows %s in ?lang=%s as the test data names it there, English where it has no name', async (address, language) => {
    const source = oracle.city.get(address);
    const named = (names: Partial<Record<Language, string>> | undefined) => names?.[language] ?? names?.en ?? '';
    const path = `/?ip=${encodeURIComponent(address)}&lang=${language}`;
    const page = await sharded(path);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(JSON.parse(await textIn(html, '#code-json'))).toEqual({
      ...expectedAll(address),
      cityName: named(source?.city?.names),
      regionName: named(source?.subdivisions?.[0]?.names),
      countryName: named(source?.country?.names),
      continent: named(source?.continent?.names),
    });
    expect(await attributesOf(html, 'option[selected]')).toEqual([expect.objectContaining({ value: language })]);
    expect(await textIn(html, '#code-curl')).toBe(`curl '${ORIGIN}/api/v1/json/${encodeURIComponent(address)}?fields=all&lang=${language}'`);
    expect(await recordPart(html)).toEqual(await recordPart(await (await oneFile(path)).text()));
  });

  it("names the sharded set's version, the sources' attribution, and the flags its data can set", async () => {
    const html = await (await sharded('/?ip=89.160.20.112')).text();
    const footer = await visibleText(html);
    expect(manifest.version).not.toBe(oneFileVersion);
    expect(footer).toContain(`Data version ${manifest.version}, built from sources dated ${manifest.builtAt.slice(0, 10)}`);
    const stale = Date.now() - Date.parse(manifest.builtAt) > 30 * 86_400_000;
    expect(footer.includes('It is more than 30 days old')).toBe(stale);
    for (const source of manifest.sources) expect(footer).toContain(`${source.attribution} (${source.name} ${source.version}; ${source.licence})`);
    expect(manifest.flags).toEqual(['vpn', 'tor', 'hosting', 'proxy']);
    expect(footer).toContain('this data lists: VPN, Tor exit, proxy');
    expect(footer).toContain('this data lists: hosting');
  });

  it('counts a view as one request, and over the limit answers the 429 page, which still names the data', async () => {
    const visitor = freshClient();
    for (let i = 0; i < 10; i++) expect((await sharded('/?ip=2a02:ffc0::1', visitor)).status).toBe(200);
    expect(await admitted(visitor)).toHaveLength(10);
    const refused = await sharded('/?ip=2a02:ffc0::1', visitor);
    expect(refused.status).toBe(429);
    const text = await visibleText(await refused.text());
    expect(text).toContain("Over the free plan's limit");
    expect(text).toContain(`Data version ${manifest.version}`);
    expect(await admitted(visitor)).toHaveLength(10);
  });
});

describe('the single lookups of a sharded free deployment', () => {
  /** The visitors, the 6to4 form of Milton's address, and problems: reserved, invalid, not in the data (shards 0 and 2). */
  const ADDRESSES = [...VISITORS, '2002:d8a0:5338::1', '10.0.0.1', 'nonsense', '1.1.1.1', '2a03::1'];
  const QUERIES = ['', '?lang=ja', '?lang=ru&fields=cityName,countryName,asn,asnOrganization'];

  it('answers JSON and XML, on the current and the legacy paths, as the app of one file does', async () => {
    for (const address of ADDRESSES) {
      // Every query on the current paths; the legacy ones are the same routes.
      const paths = [
        ...QUERIES.flatMap((query) => [`/api/v1/json/${address}${query}`, `/api/v1/xml/${address}${query}`]),
        `/api/json/${address}`,
        `/api/xml/${address}`,
      ];
      for (const path of paths) {
        const [answer, whole] = await Promise.all([sharded(path), oneFile(path)]);
        expect(answer.status, path).toBe(whole.status);
        expect(answer.headers.get('Content-Type'), path).toBe(whole.headers.get('Content-Type'));
        expect(await answer.text(), path).toBe(await whole.text());
        expect(answer.headers.get('X-Database-Version'), path).toBe(manifest.version);
        expect(whole.headers.get('X-Database-Version'), path).toBe(oneFileVersion);
      }
    }
  });

  it("answers JSON as the test data has it, the requester's own address included", async () => {
    for (const address of VISITORS) {
      const answer = await sharded(`/api/v1/json/${address}`);
      expect(await answer.json(), address).toEqual(expected(address));
      const own = await sharded('/api/v1/json', address);
      expect(await own.json(), address).toEqual(expected(address));
    }
  });

  it('answers every field (fields=all) as the app of one file does and as the test data has it, the local time aside', async () => {
    const withoutClock = (text: string) => text.replace(/"localTime":"[^"]*"|<localTime>[^<]*<\/localTime>/, '');
    for (const address of VISITORS) {
      for (const format of ['json', 'xml']) {
        const path = `/api/v1/${format}/${address}?fields=all`;
        const [answer, whole] = await Promise.all([sharded(path), oneFile(path)]);
        expect([answer.status, whole.status], path).toEqual([200, 200]);
        const text = await answer.text();
        expect(withoutClock(text), path).toBe(withoutClock(await whole.text()));
        if (format === 'json') expect(JSON.parse(text), address).toEqual(expectedAll(address));
      }
    }
  });

  it('refuses bulk, which the free plan does not have', async () => {
    const response = await workerFetch(`${ORIGIN}/api/v1/bulk/json`, {
      method: 'POST',
      headers: { 'CF-Connecting-IP': freshClient(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ ips: VISITORS }),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('PAID_PLAN_REQUIRED');
  });
});

/** Views the visitor's own page: 200, its record as the test data has it, and the data named `version`. */
async function expectRecordPage(visitor: string, version: string): Promise<void> {
  const page = await sharded('/', visitor);
  expect(page.status, visitor).toBe(200);
  const html = await page.text();
  expect(JSON.parse(await textIn(html, '#code-json')), visitor).toEqual(expectedAll(visitor));
  expect(await visibleText(html)).toContain(`Data version ${version}`);
}

describe('a shard that cannot answer', () => {
  // Leaves the build current again, and the app's view of it cold.
  afterAll(() => publishSharded(build).then(resetShardSetForTests));

  it("answers its visitors the 503 page without counting it, the others' their record, and recovers once a good build is published", async () => {
    const [damaged, repaired] = ['2026-11-26.dada0011', '2026-11-26.dada0012'];
    await publishWithDamagedShard(build, damaged, 1);
    resetShardSetForTests();
    const [onDamaged, others] = [
      ['216.160.83.57', '2001:480:10::2'],
      ['89.160.20.113', '2a02:ffc0::2'],
    ];

    for (const visitor of onDamaged) {
      const page = await sharded('/', visitor);
      const apiClient = freshClient();
      const api = await sharded(`/api/v1/json/${visitor}`, apiClient);
      expect(api.status, visitor).toBe(503);
      const problem = (await api.json()) as { code: string; title: string; detail: string };
      expect(problem.code).toBe('DATA_UNAVAILABLE');
      expect(page.status, visitor).toBe(503);
      expect(page.headers.get('Content-Type')).toBe('text/html; charset=UTF-8');
      expect(page.headers.get('Retry-After')).toBe(api.headers.get('Retry-After'));
      expect(Number(page.headers.get('Retry-After'))).toBeGreaterThan(0);
      const html = await page.text();
      const text = await visibleText(html);
      expect(text).toContain(problem.title);
      expect(text).toContain(problem.detail);
      expect(JSON.parse(await textIn(html, '#code-json'))).toMatchObject({ status: 503, code: 'DATA_UNAVAILABLE', detail: problem.detail });
      // A 5xx is given back: neither the view nor the API call used the allowance.
      expect(await admitted(visitor)).toHaveLength(0);
      expect(await admitted(apiClient)).toHaveLength(0);
    }
    for (const visitor of others) await expectRecordPage(visitor, damaged);

    await publishSharded(build, repaired);
    resetShardSetForTests();
    for (const visitor of onDamaged) await expectRecordPage(visitor, repaired);
  });
});
