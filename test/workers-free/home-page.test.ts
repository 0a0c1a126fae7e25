/**
 * @module The free server's home page, `GET /` (docs/home-page.md): the visitor's record or `?ip=`'s rendered
 * by the Worker without script, with expected values from the sources read directly (`oracle.ts`) and
 * the lookup route's own answers; its headers and CSP; its counting as one free-plan request, its 429
 * page, and the refund of a 503. Client addresses: 100.64.31.0/24 (RFC 6598), used by this file only.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { geoNaturalEarth1 } from 'd3-geo';
import { beforeAll, describe, expect, it } from 'vitest';
import { resetDatabaseForTests } from '../../src/geo/current-database.ts';
import { versionObjectKey } from '../../src/geo/published.ts';
import type { RateLimiter } from '../../src/ratelimit/rate-limiter.ts';
import { attributesOf, textIn, textsOf, visibleText } from '../support/html.ts';
import { readManifest } from '../support/manifest.ts';
import { SourceOracle } from '../support/oracle.ts';
import { compiledBuild, forgetCachedCopies } from '../support/publish.ts';
import { workerFetch } from '../support/worker-fetch.ts';
import { childTexts, parseXml } from '../support/xml.ts';

let oracle: SourceOracle;
beforeAll(async () => {
  oracle = await SourceOracle.load();
}, 120_000);

let client = 0;
/** A client address of this file's range that no other test of it has used. */
const freshClient = () => `100.64.31.${++client}`;

function get(path: string, clientIp: string, init: RequestInit = {}): Promise<Response> {
  return workerFetch(`http://free.test${path}`, { ...init, headers: { 'CF-Connecting-IP': clientIp, ...init.headers } });
}

/** The requests that the client's rate-limit object has admitted. */
function admitted(clientIp: string): Promise<number[]> {
  return runInDurableObject(env.RATE_LIMITER.getByName(clientIp), (instance: RateLimiter) => instance.admittedTimes());
}

/** The page's answer: status, headers and HTML. */
async function page(path: string, clientIp = freshClient()) {
  const response = await get(path, clientIp);
  return { response, html: await response.text() };
}

/** The map's projection as docs/home-page.md states it: Natural Earth I, the sphere fitted to 960 units wide. */
const projection = geoNaturalEarth1().fitWidth(960, { type: 'Sphere' });

describe('GET / for the visitor', () => {
  it("renders the visitor's own record (CF-Connecting-IP) in the HTML itself, as the sources say", async () => {
    const expected = oracle.expected('81.2.69.142');
    if (!expected) throw new Error('the sources cover 81.2.69.142');
    const { response, html } = await page('/', '81.2.69.142');
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('text/html; charset=UTF-8');
    const text = await visibleText(html);
    expect(text).toContain('East Finchley');
    expect(text).toContain('United Kingdom');
    for (const value of [expected.cityName, expected.regionName, expected.countryName, expected.continent, expected.zipCode, expected.timeZones[0]]) {
      expect(text).toContain(value);
    }
    expect(text).toContain(`AS${expected.asn}, ${expected.asnOrganization}`);
    expect(text).toContain(`${Math.abs(expected.latitude).toFixed(4)}° N, ${Math.abs(expected.longitude).toFixed(4)}° W`);
    expect(await attributesOf(html, 'img.flag')).toContainEqual(expect.objectContaining({ src: `/home/vendor/flags/${expected.countryCode}.svg` }));
  });

  it('marks the point where the sources put it, and shades its country', async () => {
    const expected = oracle.expected('81.2.69.142');
    if (!expected) throw new Error('the sources cover 81.2.69.142');
    const { html } = await page('/?ip=81.2.69.142');
    const [x, y] = projection([expected.longitude, expected.latitude]) as [number, number];
    const [dot] = await attributesOf(html, 'svg.map-view circle.map-marker-dot');
    expect(Number(dot?.cx)).toBeCloseTo(x, 1);
    expect(Number(dot?.cy)).toBeCloseTo(y, 1);
    const uses = (await attributesOf(html, 'svg.map-view use')).map((use) => use.href);
    expect(uses).toContain(`/home/vendor/world.svg#${expected.countryCode}`);
    // The view holds the point.
    const [minX, minY, width, height] = ((await attributesOf(html, 'svg.map-view'))[0]?.viewbox ?? '').split(' ').map(Number) as number[];
    expect(x).toBeGreaterThan(minX as number);
    expect(x).toBeLessThan((minX as number) + (width as number));
    expect(y).toBeGreaterThan(minY as number);
    expect(y).toBeLessThan((minY as number) + (height as number));
  });

  it('shows the JSON and XML answers of the lookup route with every field, and its curl command', async () => {
    const address = '2001:4860:4860::8888';
    const expected = oracle.expected(address);
    const { html } = await page(`/?ip=${encodeURIComponent(address)}`);
    const api = await get(`/api/v1/json/${address}?fields=all`, freshClient());
    const shownJson = JSON.parse(await textIn(html, '#code-json'));
    // The local time moves between the page and the API's answer: the rest is the same.
    const { localTime: _shown, ...shown } = shownJson;
    const { localTime: _answered, ...answered } = (await api.json()) as Record<string, unknown>;
    expect(shown).toEqual(answered);
    expect(shownJson).toMatchObject(expected ?? {});
    const xml = parseXml((await textIn(html, '#code-xml')).replace(/>\s+</g, '><'));
    const apiXml = parseXml(await (await get(`/api/v1/xml/${address}?fields=all`, freshClient())).text());
    for (const field of Object.keys(shown)) expect(childTexts(xml, field), field).toEqual(childTexts(apiXml, field));
    expect(await textIn(html, '#code-curl')).toBe(`curl 'http://free.test/api/v1/json/${encodeURIComponent(address)}?fields=all'`);
  });

  it('shows the network, the accuracy, EU membership, local time and flags, and that the data can set no flag', async () => {
    const { html } = await page('/?ip=88.198.50.1');
    const record = JSON.parse(await textIn(html, '#code-json')) as Record<string, unknown>;
    const facts = await textsOf(html, 'dl.facts dt');
    const values = await textsOf(html, 'dl.facts dd');
    const fact = (term: string) => values[facts.indexOf(term)] ?? '';
    expect(record.isEu).toBe(true);
    expect(fact('Country')).toContain(`(${record.countryCode}, in the EU)`);
    expect(fact('Coordinates')).toContain(`(within ${record.accuracyRadius} km)`);
    expect(fact('Network')).toBe(record.network);
    expect(fact('Autonomous system')).toBe(`AS${record.asn}, ${record.asnOrganization}`);
    expect(fact('Time zone')).toContain(
      `(UTC${(record.utcOffset as string).replace(/^([+-])0?(\d+)(?::00$)?/, '$1$2')}${record.isDst ? ', summer time' : ''})`,
    );
    expect(fact('Proxy')).toBe('No (this data holds no list of anonymising networks)');
    expect(fact('Hosting')).toBe('No (this data holds no list of hosting networks)');
    expect(await attributesOf(html, 'time.clock')).toEqual([expect.objectContaining({ datetime: record.localTime })]);
  });

  it('gives the names in ?lang=, as the source names them in that language', async () => {
    const source = oracle.city.get('81.2.69.142');
    const { response, html } = await page('/?ip=81.2.69.142&lang=de');
    expect(response.status).toBe(200);
    const text = await visibleText(html);
    expect(text).toContain(source?.country?.names.de);
    expect(text).toContain(source?.continent?.names.de);
    expect(await attributesOf(html, 'option[selected]')).toEqual([expect.objectContaining({ value: 'de' })]);
    expect(JSON.parse(await textIn(html, '#code-json'))).toMatchObject({ countryName: source?.country?.names.de });
    expect(await textIn(html, '#code-curl')).toBe("curl 'http://free.test/api/v1/json/81.2.69.142?fields=all&lang=de'");
  });

  it('looks up the address typed, spaces around it ignored', async () => {
    const { response, html } = await page('/?ip=%208.8.8.8%20');
    expect(response.status).toBe(200);
    expect(await textIn(html, 'h1')).toBe('8.8.8.8');
    expect(await attributesOf(html, '#ip')).toEqual([expect.objectContaining({ value: '8.8.8.8' })]);
  });
});

describe('GET / with an address that has no record', () => {
  it.each([
    ['an invalid address', '1.2.3', 400, 'IP_ADDRESS_INVALID'],
    ['a reserved address', '10.0.0.1', 400, 'IP_ADDRESS_RESERVED'],
  ])('answers %s with the status and the detail of the lookup route', async (_name, address, status, code) => {
    const { response, html } = await page(`/?ip=${address}`);
    const api = (await (await get(`/api/v1/json/${address}`, freshClient())).json()) as { title: string; detail: string; code: string };
    expect(response.status).toBe(status);
    expect(api.code).toBe(code);
    const text = await visibleText(html);
    expect(text).toContain(api.title);
    expect(text).toContain(api.detail);
    expect(await attributesOf(html, '#ip')).toEqual([expect.objectContaining({ value: address, 'aria-invalid': 'true' })]);
    expect(JSON.parse(await textIn(html, '#code-json'))).toMatchObject({ code, detail: api.detail });
  });

  it('names the range and its RFC of a reserved address (RFC 1918: 10.0.0.0/8)', async () => {
    const text = await visibleText((await page('/?ip=10.1.2.3')).html);
    expect(text).toContain('10.0.0.0/8');
    expect(text).toContain('RFC 1918');
  });

  it("answers the visitor's own reserved address with the reason", async () => {
    const { response, html } = await page('/', '100.64.31.250');
    expect(response.status).toBe(400);
    expect(await visibleText(html)).toContain('100.64.0.0/10');
  });

  it('answers 404 for a public address that no source covers', async () => {
    let address = '';
    for (let i = 1; i < 0xffff && !address; i++) {
      const candidate = `2c0f:${(0xffff - i).toString(16)}::1`;
      if (oracle.expected(candidate) === undefined) address = candidate;
    }
    const { response, html } = await page(`/?ip=${address}`);
    expect(response.status).toBe(404);
    expect(await visibleText(html)).toContain('IP_ADDRESS_NOT_FOUND');
  });

  it('answers an unsupported ?lang= with LANGUAGE_UNSUPPORTED, in English', async () => {
    const { response, html } = await page('/?ip=8.8.8.8&lang=xx');
    expect(response.status).toBe(400);
    expect(await visibleText(html)).toContain('LANGUAGE_UNSUPPORTED');
    expect(await attributesOf(html, 'option[selected]')).toEqual([expect.objectContaining({ value: 'en' })]);
  });

  it('writes what was typed as text, never as markup', async () => {
    const { response, html } = await page(`/?ip=${encodeURIComponent('<script>alert(1)</script>"\'')}`);
    expect(response.status).toBe(400);
    expect(html).not.toContain('<script>alert');
    expect(await attributesOf(html, 'script')).toEqual([{ type: 'module', src: '/home/home.js' }]);
    expect(await attributesOf(html, '#ip')).toEqual([expect.objectContaining({ value: '<script>alert(1)</script>"\'' })]);
  });
});

describe("the page's headers and what it loads", () => {
  it('is sent with a CSP that admits this origin only and no inline script, and is not cached', async () => {
    const { response } = await page('/?ip=8.8.8.8');
    const csp = response.headers.get('Content-Security-Policy') ?? '';
    const directives = Object.fromEntries(csp.split(/;\s*/).map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1).join(' ')]));
    expect(directives).toMatchObject({ 'default-src': "'none'", 'script-src': "'self'", 'style-src': "'self'", 'connect-src': "'self'", 'img-src': "'self'" });
    expect(csp).not.toContain('unsafe');
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
  });

  it('refers to nothing on another host, and holds no inline script or style', async () => {
    const { html } = await page('/?ip=81.2.69.142');
    const references = [
      ...(await attributesOf(html, '[src]')).map((element) => element.src),
      ...(await attributesOf(html, '[href]')).map((element) => element.href),
      ...(await attributesOf(html, 'form')).map((element) => element.action),
    ];
    expect(references.length).toBeGreaterThan(10);
    for (const reference of references) expect(reference).toMatch(/^(\/(?!\/)|#)/);
    expect(await attributesOf(html, '[style]')).toEqual([]);
    expect(await attributesOf(html, 'style')).toEqual([]);
    expect((await attributesOf(html, 'script')).every((script) => script.src)).toBe(true);
  });
});

describe('counting', () => {
  it('counts a page view as one free-plan request, shared with the API', async () => {
    const visitor = freshClient();
    const first = await get('/?ip=8.8.8.8', visitor);
    expect(first.headers.get('RateLimit')).toMatch(/^"burst";r=9;t=\d+$/);
    expect(await admitted(visitor)).toHaveLength(1);
    expect(await visibleText(await first.text())).toContain('9 of 10 left in these 10 s');
    const api = await get('/api/v1/json/8.8.8.8', visitor);
    expect(api.headers.get('RateLimit')).toMatch(/^"burst";r=8;t=\d+$/);
    expect(await admitted(visitor)).toHaveLength(2);
  });

  it('counts an invalid or reserved address as the lookup route does', async () => {
    const visitor = freshClient();
    await get('/?ip=1.2.3', visitor);
    await get('/?ip=10.0.0.1', visitor);
    expect(await admitted(visitor)).toHaveLength(2);
  });

  it('answers the eleventh view in ten seconds with a 429 page that says when to try again', async () => {
    const visitor = freshClient();
    for (let i = 0; i < 10; i++) expect((await get('/?ip=8.8.8.8', visitor)).status).toBe(200);
    const refused = await get('/?ip=8.8.8.8', visitor);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('Content-Type')).toBe('text/html; charset=UTF-8');
    const wait = Number(refused.headers.get('Retry-After'));
    expect(wait).toBeGreaterThan(0);
    expect(refused.headers.get('RateLimit')).toMatch(/^"burst";r=0;t=\d+$/);
    const text = await visibleText(await refused.text());
    expect(text).toContain("Over the free plan's limit");
    expect(text).toContain(`Try again in ${wait} second`);
    expect(text).toContain('0 of 10 left in these 10 s');
    expect(await admitted(visitor)).toHaveLength(10);
  });

  it('answers a view with a 429 page once the API calls have used the allowance', async () => {
    const visitor = freshClient();
    for (let i = 0; i < 10; i++) await get('/api/v1/json/8.8.8.8', visitor);
    expect((await get('/', visitor)).status).toBe(429);
  });

  it('does not count other methods on /, which it does not serve', async () => {
    const visitor = freshClient();
    const response = await get('/', visitor, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toBe('GET, HEAD');
    expect(await admitted(visitor)).toHaveLength(0);
  });

  it('gives the view back when the data cannot be read (503, a page with Retry-After)', async () => {
    const { bytes, version } = await compiledBuild();
    await env.GEO_DATA.put(versionObjectKey(version), new Uint8Array(bytes).slice(0, 1000));
    // A cold isolate of a location whose cache has no copy either: R2's truncated object is all there is.
    await forgetCachedCopies();
    resetDatabaseForTests();
    const visitor = freshClient();
    try {
      const response = await get('/?ip=8.8.8.8', visitor);
      expect(response.status).toBe(503);
      expect(response.headers.get('Retry-After')).toBe('5');
      expect(response.headers.get('Content-Type')).toBe('text/html; charset=UTF-8');
      expect(await visibleText(await response.text())).toContain('The geolocation data cannot be read at the moment');
      expect(await admitted(visitor)).toHaveLength(0);
    } finally {
      await env.GEO_DATA.put(versionObjectKey(version), bytes);
      resetDatabaseForTests();
    }
  });
});

describe("the page's data", () => {
  it("names the data's version and the attribution of every source, as the build's manifest has them, and links to /docs", async () => {
    const manifest = await readManifest();
    const { html } = await page('/?ip=8.8.8.8');
    const text = await visibleText(html);
    expect(text).toContain(`Data version ${manifest.version}`);
    for (const source of manifest.sources) expect(text).toContain(source.attribution);
    expect((await attributesOf(html, 'a')).map((link) => link.href)).toEqual(expect.arrayContaining(['/docs', '/api/v1/status']));
  });
});
