/**
 * @module Networks by ASN on the paid server (docs/api.md, "Networks by ASN"): `GET /api/asn/{asn}`,
 * `/api/asn/json/{asn}` and `/api/asn/xml/{asn}` against the `@ip-location-db/asn` CSV files read
 * directly (`test/support/asn-oracle.ts`), pages, the XML form, the problems, the answer's version,
 * counting and quotas, and a switch to another version and back with the database. Accounts `asn-*`:
 * this file only.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { r2Bucket } from '../../data/publish/r2-bucket.ts';
import { rollBack } from '../../data/publish/record.ts';
import { setQuotas } from '../../operator/lifecycle.ts';
import { asnObjectKey } from '../../src/geo/published.ts';
import { AsnSourceOracle, type ExpectedAsn } from '../support/asn-oracle.ts';
import { paidFetch } from '../support/paid-fetch.ts';
import { compiledAsnObject, compiledBuild, publish } from '../support/publish.ts';
import { repoFile } from '../support/repo.ts';
import { paidRequest, readUntil, storedRows, usageAccount } from '../support/usage.ts';
import { childNames, childTexts, parseXml } from '../support/xml.ts';

interface Answer {
  asn: string;
  organization: string;
  prefixes: { ipv4: string[]; ipv6: string[] };
  addresses: { ipv4: number; ipv6: number };
  countries: { code: string | null; ipv4: number; ipv6: number }[];
  page: number;
  pages: number;
  prefixTotals: { ipv4: number; ipv6: number };
}

let version: string;
let source: AsnSourceOracle;
beforeAll(async () => {
  // The compiled database is current (test/support/workers-setup.ts); publishing it again adds its ASN object.
  const build = await compiledBuild();
  version = build.version;
  await publish(build.bytes, version, new Date(), undefined, await compiledAsnObject());
  const csv = async (name: string) => new Uint8Array(await repoFile(`node_modules/@ip-location-db/asn/${name}`));
  source = AsnSourceOracle.fromCsv(await csv('asn-ipv4.csv'), await csv('asn-ipv6.csv'));
}, 120_000);

afterEach(() => {
  vi.useRealTimers();
});

/** Every page of `path` (a JSON route) from the first, each checked to be a 200 of the version published. */
async function allPages(path: string): Promise<Answer[]> {
  const pages: Answer[] = [];
  for (let page = 1; ; page++) {
    const response = await paidFetch(`${path}?page=${page}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('X-Database-Version')).toBe(version);
    const answer = (await response.json()) as Answer;
    pages.push(answer);
    if (page === answer.pages) return pages;
  }
}

function expectAsSource(pages: Answer[], asn: number, expected: ExpectedAsn): void {
  expect(pages.flatMap((page) => page.prefixes.ipv4)).toEqual(expected.ipv4);
  expect(pages.flatMap((page) => page.prefixes.ipv6)).toEqual(expected.ipv6);
  for (const page of pages) {
    expect(page).toMatchObject({ asn: String(asn), organization: expected.organization, addresses: expected.addresses });
    expect(page.prefixTotals).toEqual({ ipv4: expected.ipv4.length, ipv6: expected.ipv6.length });
    expect(page.prefixes.ipv4.length + page.prefixes.ipv6.length).toBeLessThanOrEqual(1000);
    // Every IPv4 address of the ASN is in one entry; a /64 split between countries counts in each.
    expect(page.countries.reduce((sum, country) => sum + country.ipv4, 0)).toBe(expected.addresses.ipv4);
    expect(page.countries.reduce((sum, country) => sum + country.ipv6, 0)).toBeGreaterThanOrEqual(expected.addresses.ipv6);
  }
}

describe('GET /api/asn/{asn}', () => {
  it('answers an ASN of two pages as its source: its prefixes IPv4 first, its addresses and its countries', async () => {
    const pages = await allPages('/api/asn/13335');
    expect(pages.map((page) => [page.page, page.pages])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expectAsSource(pages, 13335, source.expected(13335) as ExpectedAsn);
    expect(pages[0]?.countries[0]).toMatchObject({ code: 'US' });
  });

  it('answers AS15169 alike under /api/asn/json/, with AS in either case', async () => {
    const expected = source.expected(15169) as ExpectedAsn;
    for (const path of ['/api/asn/AS15169', '/api/asn/json/as15169', '/api/asn/json/aS15169', '/api/asn/json/15169']) {
      expectAsSource(await allPages(path), 15169, expected);
    }
  });

  it('answers the same content in XML, an empty code for the addresses placed nowhere', async () => {
    // AS992 has addresses that the data places in no country.
    for (const asn of [13335, 992]) {
      const json = (await (await paidFetch(`/api/asn/${asn}?page=1`)).json()) as Answer;
      const response = await paidFetch(`/api/asn/xml/${asn}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('Content-Type')).toBe('application/xml; charset=utf-8');
      expect(response.headers.get('X-Database-Version')).toBe(version);
      const root = parseXml(await response.text());
      expect(root.tagName).toBe('response');
      expect(childNames(root)).toEqual([
        'asn',
        'organization',
        'prefixes',
        'addresses',
        'countries',
        ...json.countries.slice(1).map(() => 'countries'),
        'page',
        'pages',
        'prefixTotals',
      ]);
      const child = (name: string) => root.getElementsByTagName(name)[0] ?? root;
      expect(childTexts(root, 'asn')).toEqual([json.asn]);
      expect(childTexts(root, 'organization')).toEqual([json.organization]);
      expect(childTexts(child('prefixes'), 'ipv4')).toEqual(json.prefixes.ipv4);
      expect(childTexts(child('prefixes'), 'ipv6')).toEqual(json.prefixes.ipv6);
      expect(childTexts(child('addresses'), 'ipv4')).toEqual([String(json.addresses.ipv4)]);
      const countries = Array.from(root.getElementsByTagName('countries')).map((element) => ({
        code: childTexts(element, 'code')[0] || null,
        ipv4: Number(childTexts(element, 'ipv4')[0]),
        ipv6: Number(childTexts(element, 'ipv6')[0]),
      }));
      expect(countries).toEqual(json.countries);
      expect([childTexts(root, 'page'), childTexts(root, 'pages')]).toEqual([[String(json.page)], [String(json.pages)]]);
    }
  });

  it.each([
    ['/api/asn/abc', 'ASN_INVALID', '"abc" is not an AS number'],
    ['/api/asn/4294967296', 'ASN_INVALID', '"4294967296" is not an AS number: a decimal from 0 to 4294967295'],
    ['/api/asn/9999999999', 'ASN_INVALID', '"9999999999" is not an AS number'],
    ['/api/asn/AS-1', 'ASN_INVALID', '"AS-1" is not an AS number'],
    ['/api/asn/AS', 'ASN_INVALID', '"AS" is not an AS number'],
    ['/api/asn/015169', 'ASN_INVALID', '"015169" is not an AS number'],
    ['/api/asn/AS015169', 'ASN_INVALID', '"AS015169" is not an AS number'],
    ['/api/asn/00', 'ASN_INVALID', '"00" is not an AS number'],
    ['/api/asn/ASN15169', 'ASN_INVALID', '"ASN15169" is not an AS number'],
    ['/api/asn/15169?page=0', 'PAGE_INVALID', 'page: "0" is not a page number: a decimal from 1 to 65535'],
    ['/api/asn/15169?page=01', 'PAGE_INVALID', 'page: "01" is not a page number'],
    ['/api/asn/15169?page=65536', 'PAGE_INVALID', 'page: "65536" is not a page number'],
    ['/api/asn/15169?page=one', 'PAGE_INVALID', 'page: "one" is not a page number'],
    ['/api/asn/15169?page=', 'PAGE_INVALID', 'page: "" is not a page number'],
  ])('answers %s with 400 %s, no data read', async (path, code, detail) => {
    const response = await paidFetch(path);
    expect(response.status).toBe(400);
    expect(response.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
    expect(response.headers.get('X-Database-Version')).toBeNull();
    const problem = (await response.json()) as { detail: string };
    expect(problem).toMatchObject({ code, status: 400, type: `urn:ipgeo:problem:${code.toLowerCase().replace('_', '-')}` });
    expect(problem.detail).toContain(detail);
  });

  it('answers a number that is not an AS number in XML with an XML problem', async () => {
    const response = await paidFetch('/api/asn/xml/as4294967296');
    expect(response.status).toBe(400);
    expect(response.headers.get('Content-Type')).toMatch(/^application\/problem\+xml/);
    expect(await response.text()).toContain('<code>ASN_INVALID</code>');
  });

  it('answers a page after the last with 400 PAGE_INVALID naming how many there are, and the version that said so', async () => {
    const response = await paidFetch('/api/asn/13335?page=3');
    expect(response.status).toBe(400);
    expect(response.headers.get('X-Database-Version')).toBe(version);
    expect(await response.json()).toMatchObject({ code: 'PAGE_INVALID', pages: 2 });
  });

  it('answers an AS number the data does not hold with 404 ASN_NOT_FOUND, in JSON or XML', async () => {
    for (const asn of [4_294_967_295, 64_512, 0]) expect(source.expected(asn)).toBeUndefined();
    const json = await paidFetch('/api/asn/4294967295');
    expect(json.status).toBe(404);
    expect(json.headers.get('X-Database-Version')).toBe(version);
    expect(await json.json()).toMatchObject({ code: 'ASN_NOT_FOUND', detail: 'AS4294967295 holds no address in the data.' });
    const xml = await paidFetch('/api/asn/xml/AS64512');
    expect(xml.status).toBe(404);
    expect(xml.headers.get('Content-Type')).toMatch(/^application\/problem\+xml/);
    expect(await xml.text()).toContain('<code>ASN_NOT_FOUND</code>');
    expect((await paidFetch('/api/asn/0')).status).toBe(404);
  });
});

describe('usage and quotas', () => {
  it('counts an answer as one lookup of the kind asn, and a problem as a problem', async () => {
    const { account, key } = await usageAccount('asn-usage');
    const auth = { headers: { Authorization: `Bearer ${key}` } };
    expect((await paidRequest('de', '/api/asn/13335', auth)).status).toBe(200);
    expect((await paidRequest('de', '/api/asn/xml/4294967295', auth)).status).toBe(404);
    const day = new Date().toISOString().slice(0, 10);
    const rows = await readUntil(
      () => storedRows(account, day, day),
      (read) => read.reduce((sum, row) => sum + row.requests + row.problems, 0) === 2,
    );
    expect(rows.map(({ kind, lookups, requests, problems }) => ({ kind, lookups, requests, problems }))).toEqual([
      { kind: 'asn', lookups: 1, requests: 1, problems: 1 },
    ]);
  });

  it('holds an ASN answer to the monthly quota like a lookup', async () => {
    const { account, key } = await usageAccount('asn-quota');
    await setQuotas(env.ACCOUNTS, account, { monthly: 1 });
    const auth = { headers: { Authorization: `Bearer ${key}` } };
    expect((await paidRequest('de', '/api/asn/15169', auth)).status).toBe(200);
    const refused = await paidRequest('de', '/api/asn/15169', auth);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', quota: 'monthly', limit: 1, remaining: 0 });
  });
});

describe('versions', () => {
  it("switches to a newly published version's ASN object within a minute, and back with a rollback", async () => {
    // MaxMind's test data (data/out/small) as the next version: its ASNs are not the default data's.
    const small = await compiledBuild('data/out/small');
    const smallAsns = AsnSourceOracle.fromMaxMindJson(
      JSON.parse(new TextDecoder().decode(await repoFile('test/fixtures/maxmind-db/source-data/GeoLite2-ASN-Test.json'))),
    );
    // AS7132 is in MaxMind's test data only.
    expect(source.expected(7132)).toBeUndefined();
    expect((await paidFetch('/api/asn/7132')).status).toBe(404);
    vi.useFakeTimers({ toFake: ['Date'] });
    let now = Date.now();
    await publish(small.bytes, small.version, new Date(now), undefined, await compiledAsnObject('data/out/small'));
    /** Moves the clock past the minute's check and asks until the answer names `expected`. */
    const afterAMinute = async (expected: string) => {
      now += 61_000;
      vi.setSystemTime(now);
      return readUntil(
        () => paidFetch('/api/asn/7132'),
        (response) => response.headers.get('X-Database-Version') === expected,
        50,
        20,
      );
    };
    const switched = await afterAMinute(small.version);
    expect(switched.status).toBe(200);
    const answer = (await switched.json()) as Answer;
    const expected = smallAsns.expected(7132) as ExpectedAsn;
    expect([answer.prefixes.ipv4, answer.prefixes.ipv6, answer.addresses]).toEqual([expected.ipv4, expected.ipv6, expected.addresses]);

    await rollBack(r2Bucket(env.GEO_DATA, 'GEO_DATA'), new Date(now), () => {});
    const back = await afterAMinute(version);
    expect(back.status).toBe(404);
    expect((await paidFetch('/api/asn/13335')).status).toBe(200);
    // The small version's object stays in the bucket until it expires with its version.
    expect(await env.GEO_DATA.head(asnObjectKey(small.version))).not.toBeNull();
  });

  it('answers 503 DATA_UNAVAILABLE for a version published without an ASN object', async () => {
    const small = await compiledBuild('data/out/small');
    vi.useFakeTimers({ toFake: ['Date'] });
    const now = Date.now() + 10 * 60_000;
    vi.setSystemTime(now);
    // Another version than the one switched to above: the small build under a version string of its own.
    await publish(small.bytes, '2026-10-09.00a5e000', new Date(now));
    const response = await readUntil(
      () => paidFetch('/api/asn/7132'),
      (read) => read.status === 503,
      50,
      20,
    );
    expect(response.headers.get('Retry-After')).toBe('5');
    expect(response.headers.has('X-Database-Version')).toBe(false);
    expect(await response.json()).toMatchObject({ code: 'DATA_UNAVAILABLE' });
  });
});
