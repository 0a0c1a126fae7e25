/**
 * @module The free server's single-lookup routes (`/api/v1/json|xml[/{ip}]` and the legacy
 * `/api/json|xml[/{ip}]`) and their errors, with expected records from the sources read directly.
 */
import { env } from 'cloudflare:workers';
import { countries } from 'countries-list';
import { beforeAll, describe, expect, it } from 'vitest';
import { resetDatabaseForTests } from '../../src/geo/current-database.ts';
import { CURRENT_RECORD_KEY } from '../../src/geo/published.ts';
import type { ExpectedRecord } from '../support/expected-record.ts';
import { SourceOracle } from '../support/oracle.ts';
import { publish, publishCompiled } from '../support/publish.ts';
import { SPEC_FIELDS } from '../support/record-fields.ts';
import { workerFetch } from '../support/worker-fetch.ts';
import { childNames, childTexts, parseXml } from '../support/xml.ts';

let oracle: SourceOracle;
beforeAll(async () => {
  oracle = await SourceOracle.load();
}, 120_000);

/**
 * Each request comes from a client address of its own (198.18.0.0/15, the benchmarking range), so
 * that the free plan's rate limit, tested elsewhere, never interferes.
 */
let client = 0;
const clientAddress = () => `198.18.${(++client >> 8) & 0xff}.${client & 0xff}`;
const get = (path: string, headers: Record<string, string> = {}) =>
  workerFetch(`http://free.test${path}`, { headers: { 'CF-Connecting-IP': clientAddress(), ...headers } });
const FIELDS = SPEC_FIELDS;

/** The record as the XML of spec 2.1 should carry it: one element per field, repeated for arrays. */
function expectXmlRecord(xml: string, expected: ExpectedRecord): void {
  const root = parseXml(xml);
  expect(root.tagName).toBe('response');
  const names = childNames(root);
  expect([...new Set(names)].filter((n) => n !== 'regionCode')).toEqual(
    FIELDS.filter(
      (f) => f !== 'regionCode' && !(Array.isArray(expected[f as keyof ExpectedRecord]) && (expected[f as keyof ExpectedRecord] as unknown[]).length === 0),
    ),
  );
  for (const [field, value] of Object.entries(expected)) {
    const texts = childTexts(root, field);
    if (Array.isArray(value)) expect(texts, field).toEqual(value.map(String));
    else expect(texts, field).toEqual([String(value)]);
  }
}

describe('single lookup on the free server', () => {
  it('answers 8.8.8.8 with the complete record of the sources', async () => {
    const response = await get('/api/v1/json/8.8.8.8');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(FIELDS);
    expect(body).toEqual(oracle.expected('8.8.8.8'));
    // Facts of 8.8.8.8 known apart from the oracle, from countries-list and the ASN file.
    expect(body).toMatchObject({ countryName: countries.US.name, countryCode: 'US', asn: '15169', capital: countries.US.capital, phoneCodes: [1] });
    expect((body.timeZones as string[]).length).toBeGreaterThan(1);
    expect(body.asnOrganization).not.toBe('');
    expect(body.currencies).toEqual(countries.US.currency);
    expect(body.languages).toEqual(countries.US.languages);
  });

  it('answers an IPv6 address with the complete record of the sources', async () => {
    const response = await get('/api/v1/json/2001:4860:4860::8888');
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual(oracle.expected('2001:4860:4860::8888'));
    expect(body.ipVersion).toBe(6);
  });

  it("answers a Russian address with GeoLite2's own continent, Europe, where countries-list puts Russia in Asia", async () => {
    const response = await get('/api/v1/json/185.101.206.36');
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual(oracle.expected('185.101.206.36'));
    expect(body).toMatchObject({ countryCode: 'RU', continent: 'Europe', continentCode: 'EU' });
    expect(countries.RU.continent).toBe('AS');
  });

  it.each(['8.8.8.8', '2001:4860:4860::8888', '81.2.69.142'])('answers %s in XML as spec 2.1 describes', async (address) => {
    const response = await get(`/api/v1/xml/${address}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/xml/);
    expectXmlRecord(await response.text(), oracle.expected(address) as ExpectedRecord);
  });

  it.each([
    ['/api/v1/json/8.8.8.8', 'json'],
    ['/api/v1/xml/8.8.8.8', 'xml'],
    ['/api/json/8.8.8.8', 'json'],
    ['/api/xml/8.8.8.8', 'xml'],
  ])('serves %s', async (path, format) => {
    const response = await get(path);
    expect(response.status).toBe(200);
    const text = await response.text();
    if (format === 'json') expect(JSON.parse(text).ipAddress).toBe('8.8.8.8');
    else expect(childTexts(parseXml(text), 'ipAddress')).toEqual(['8.8.8.8']);
  });

  it.each(['/api/v1/json', '/api/v1/xml', '/api/json', '/api/xml', '/api/v1/json/'])('looks up the requester on %s', async (path) => {
    const response = await get(path, { 'CF-Connecting-IP': '2a00:1450:4001:80b::200e', 'X-Forwarded-For': '8.8.8.8' });
    expect(response.status).toBe(200);
    const text = await response.text();
    const address = path.includes('xml') ? childTexts(parseXml(text), 'ipAddress')[0] : JSON.parse(text).ipAddress;
    expect(address).toBe('2a00:1450:4001:80b::200e');
  });

  it('refuses a request without a client address when no address is named', async () => {
    const response = await workerFetch('http://free.test/api/v1/json');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('IP_ADDRESS_INVALID');
  });

  it.each([
    ['::ffff:8.8.8.8', '8.8.8.8', 4],
    ['::FFFF:8.8.8.8', '8.8.8.8', 4],
    ['2001:4860:4860:0:0:0:0:8888', '2001:4860:4860::8888', 6],
    ['2001:4860:4860:0000:0000:0000:0000:8888', '2001:4860:4860::8888', 6],
    ['2001:4860:4860::8888'.toUpperCase(), '2001:4860:4860::8888', 6],
  ])('accepts %s and echoes %s', async (written, canonical, version) => {
    const response = await get(`/api/v1/json/${written}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ipAddress: canonical, ipVersion: version });
  });
});

describe('lookup errors', () => {
  it.each(['1.2.3', '1.2.3.4.5', 'example.com', '256.1.1.1', '01.2.3.4', '1::2::3', 'fe80::1%25eth0', '%20'])(
    'answers 400 IP_ADDRESS_INVALID for %s, in JSON and in XML',
    async (address) => {
      const json = await get(`/api/v1/json/${address}`);
      expect(json.status).toBe(400);
      expect(json.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await json.json()).toMatchObject({ status: 400, code: 'IP_ADDRESS_INVALID', type: 'urn:ipgeo:problem:ip-address-invalid' });
      const xml = await get(`/api/v1/xml/${address}`);
      expect(xml.status).toBe(400);
      expect(xml.headers.get('content-type')).toMatch(/^application\/problem\+xml/);
      const problem = parseXml(await xml.text());
      expect(problem.tagName).toBe('problem');
      expect(problem.getAttribute('xmlns')).toBe('urn:ietf:rfc:7807');
      expect(childTexts(problem, 'code')).toEqual(['IP_ADDRESS_INVALID']);
      expect(childTexts(problem, 'status')).toEqual(['400']);
    },
  );

  it.each([
    ['10.1.2.3', '10.0.0.0/8', 'RFC 1918'],
    ['127.0.0.1', '127.0.0.0/8', 'RFC 1122'],
    ['192.0.2.1', '192.0.2.0/24', 'RFC 5737'],
    ['::1', '::1/128', 'RFC 4291'],
    ['fe80::1', 'fe80::/10', 'RFC 4291'],
    ['2001:db8::1', '2001:db8::/32', 'RFC 3849'],
    ['::ffff:192.168.1.1', '192.168.0.0/16', 'RFC 1918'],
  ])('answers 400 IP_ADDRESS_RESERVED for %s, naming %s and %s', async (address, range, rfc) => {
    const response = await get(`/api/v1/json/${address}`);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; detail: string; range: string; rfc: string };
    expect(body).toMatchObject({ code: 'IP_ADDRESS_RESERVED', range, rfc });
    expect(body.detail).toContain(range);
    expect(body.detail).toContain(rfc);
  });

  it('answers 404 IP_ADDRESS_NOT_FOUND for a public address that no source covers', async () => {
    // 2c0f:fff0::/32 lies in AfriNIC's block; search upwards for an address neither source covers.
    let address = '';
    for (let i = 1; i < 0xffff && !address; i++) {
      const candidate = `2c0f:${(0xffff - i).toString(16)}::1`;
      if (oracle.expected(candidate) === undefined) address = candidate;
    }
    expect(address).not.toBe('');
    for (const format of ['json', 'xml']) {
      const response = await get(`/api/v1/${format}/${address}`);
      expect(response.status).toBe(404);
      const text = await response.text();
      expect(format === 'json' ? JSON.parse(text).code : childTexts(parseXml(text), 'code')[0]).toBe('IP_ADDRESS_NOT_FOUND');
    }
  });

  it('answers 404 NOT_FOUND problems for unknown routes', async () => {
    for (const path of ['/nothing', '/api/v2/json/8.8.8.8', '/api/v1/json/8.8.8.8/extra']) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await response.json()) as { code: string }).code).toBe('NOT_FOUND');
    }
    const xml = await get('/api/v1/xml/8.8.8.8/extra');
    expect(xml.headers.get('content-type')).toMatch(/^application\/problem\+xml/);
  });

  it('answers 405 with Allow for a wrong method on a lookup route', async () => {
    const response = await workerFetch('http://free.test/api/v1/json/8.8.8.8', {
      method: 'DELETE',
      headers: { 'CF-Connecting-IP': clientAddress() },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(((await response.json()) as { code: string }).code).toBe('METHOD_NOT_ALLOWED');
  });
});

describe('the database in R2', () => {
  it('answers 503 DATA_UNAVAILABLE while the object is missing or corrupt, and recovers', async () => {
    try {
      await env.GEO_DATA.delete(CURRENT_RECORD_KEY);
      resetDatabaseForTests();
      const missing = await get('/api/v1/json/8.8.8.8');
      expect(missing.status).toBe(503);
      expect(missing.headers.get('retry-after')).toBe('5');
      expect(((await missing.json()) as { code: string }).code).toBe('DATA_UNAVAILABLE');

      await publish(new TextEncoder().encode('not a database'), '2000-01-01.00000000');
      resetDatabaseForTests();
      expect((await get('/api/v1/xml/8.8.8.8')).status).toBe(503);
    } finally {
      await publishCompiled();
      resetDatabaseForTests();
    }
    expect((await get('/api/v1/json/8.8.8.8')).status).toBe(200);
  });
});
