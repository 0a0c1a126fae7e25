/**
 * @module Corrections on the real data, through the free Worker: the default sources built with
 * `test/fixtures/corrections/paris.csv` (81.2.69.0/24, GeoLite2's East Finchley, to Paris, FR; built by
 * the global setup, `corrected-build.ts`) answer Paris in JSON, XML and on the home page as GeoLite2
 * records it elsewhere (1.178.90.0/24, read with mmdb-lib), with the ASN of the source; 81.2.70.1 keeps
 * its source record. The status names the file; the `CORRECTIONS_URL` setting adds the report link to
 * the page and the contact to the OpenAPI document, and without it neither shows. Client addresses:
 * 100.64.40.0/24, used by this file only.
 */
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { CORRECTED_BUILD_DIR, PARIS_CORRECTIONS } from '../support/corrected-build.ts';
import { correctedToParis, PARIS, serveCorrectedBuild, serveDefaultBuild } from '../support/corrected-data.ts';
import type { ExpectedRecord } from '../support/expected-record.ts';
import { attributesOf, textIn, visibleText } from '../support/html.ts';
import { expectedDatabase, readManifest } from '../support/manifest.ts';
import { SourceOracle } from '../support/oracle.ts';
import { SPEC_FIELDS } from '../support/record-fields.ts';
import { repoFile } from '../support/repo.ts';
import { appFetch, workerFetch } from '../support/worker-fetch.ts';
import { childTexts, parseXml } from '../support/xml.ts';

let oracle: SourceOracle;
let expected: ExpectedRecord;
beforeAll(async () => {
  oracle = await SourceOracle.load();
  expected = correctedToParis(oracle, '81.2.69.142');
  await serveCorrectedBuild();
}, 120_000);

afterAll(serveDefaultBuild);

let client = 0;
const get = (path: string, init: RequestInit = {}) =>
  workerFetch(`http://free.test${path}`, { ...init, headers: { 'CF-Connecting-IP': `100.64.40.${++client}`, ...init.headers } });

describe('81.2.69.0/24 corrected to Paris', () => {
  it('answers Paris in JSON as GeoLite2 records Paris, with the source ASN', async () => {
    const response = await get('/api/v1/json/81.2.69.142');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual(expected);
    expect(body).toMatchObject({ cityName: 'Paris', countryCode: 'FR', regionName: 'Île-de-France', regionCode: 'IDF', zipCode: '' });
    // The rest of the /24 too, and the source's East Finchley is gone from it.
    expect(await (await get('/api/v1/json/81.2.69.1')).json()).toMatchObject({ cityName: 'Paris', latitude: expected.latitude });
  });

  it('answers the same in XML', async () => {
    const xml = parseXml(await (await get('/api/v1/xml/81.2.69.142')).text());
    for (const [field, value] of Object.entries(expected)) {
      const texts = Array.isArray(value) ? value.map(String) : [String(value)];
      expect(childTexts(xml, field), field).toEqual(texts);
    }
  });

  it('names Paris in every language as GeoLite2 does (English where it has no name)', async () => {
    const paris = oracle.city.get(PARIS);
    for (const language of ['de', 'es', 'fr', 'ja', 'pt-BR', 'ru', 'zh-CN'] as const) {
      const body = (await (await get(`/api/v1/json/81.2.69.142?lang=${language}`)).json()) as ExpectedRecord;
      expect(body.cityName, language).toBe(paris?.city?.names[language] ?? paris?.city?.names.en);
      expect(body.regionName, language).toBe(paris?.subdivisions?.[0]?.names[language] ?? paris?.subdivisions?.[0]?.names.en);
    }
  });

  it('keeps the source record of 81.2.70.1, outside the prefix', async () => {
    expect(await (await get('/api/v1/json/81.2.70.1')).json()).toEqual(oracle.expected('81.2.70.1'));
  });

  it('shows Paris on the home page', async () => {
    const response = await get('/?ip=81.2.69.142');
    expect(response.status).toBe(200);
    const html = await response.text();
    const text = await visibleText(html);
    for (const value of [expected.cityName, expected.regionName, expected.countryName, expected.timeZones[0] as string]) expect(text).toContain(value);
    expect(text).toContain(`${expected.latitude.toFixed(4)}° N, ${expected.longitude.toFixed(4)}° E`);
    // The page shows every field: the twenty as the lookup answers them, and the radius GeoLite2 gives
    // Paris's networks (test/node/corrections.test.ts holds the rule, "most often", to MaxMind's source JSON).
    const shown = JSON.parse(await textIn(html, '#code-json')) as Record<string, unknown>;
    expect(Object.fromEntries(SPEC_FIELDS.map((field) => [field, shown[field]]))).toEqual(expected);
    expect(shown.isEu).toBe(true);
    expect(shown.accuracyRadius).toBeGreaterThan(0);
    expect(shown.accuracyRadius).toBeLessThanOrEqual(1000);
  });
});

describe('the corrections named', () => {
  it('lists the file in the status, with its SHA-256, lines and prefixes', async () => {
    const manifest = await readManifest(CORRECTED_BUILD_DIR);
    const body = (await (await get('/api/v1/status')).json()) as { database: ReturnType<typeof expectedDatabase> };
    expect(body.database).toEqual(expectedDatabase(manifest));
    const file = new Uint8Array(await repoFile(PARIS_CORRECTIONS));
    const sha256 = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', file)), (byte) => byte.toString(16).padStart(2, '0')).join('');
    const text = new TextDecoder().decode(file);
    expect(body.database.corrections).toEqual([{ name: 'paris.csv', sha256, lines: text.split('\n').length - 1, prefixes: 1 }]);
  });

  it("names the file in the home page's attribution", async () => {
    const text = await textIn(await (await get('/?ip=81.2.70.1')).text(), 'footer');
    expect(text).toContain('Corrected by the operator from paris.csv');
    expect(text).toContain('1 prefix');
  });
});

describe('where users report a wrong location (CORRECTIONS_URL)', () => {
  const REPORT = 'https://geo.example.com/report?form=location';
  const withReport = { ...env, CORRECTIONS_URL: REPORT } as unknown as Env;
  const app = createApp('free');
  const fetchWith = (path: string, bindings: Env) =>
    appFetch(app, new Request(`http://free.test${path}`, { headers: { 'CF-Connecting-IP': `100.64.40.${++client}` } }), bindings);

  it('links the home page there, with the address and what it answered in the query', async () => {
    const html = await (await fetchWith('/?ip=81.2.69.142', withReport)).text();
    const [link] = await attributesOf(html, 'p.report a');
    expect(await textIn(html, 'p.report a')).toBe('Wrong location? Report it');
    const href = new URL(link?.href ?? '');
    expect(`${href.origin}${href.pathname}`).toBe('https://geo.example.com/report');
    const manifest = await readManifest(CORRECTED_BUILD_DIR);
    expect(Object.fromEntries(href.searchParams)).toEqual({
      form: 'location',
      ip: '81.2.69.142',
      countryCode: expected.countryCode,
      regionCode: expected.regionCode,
      cityName: expected.cityName,
      zipCode: expected.zipCode,
      version: manifest.version,
    });
  });

  it('names it in the OpenAPI document', async () => {
    const document = (await (await fetchWith('/openapi.json', withReport)).json()) as { info: { contact?: { url: string }; description: string } };
    expect(document.info.contact).toEqual({ name: 'Location corrections', url: REPORT });
    expect(document.info.description).toContain(`Wrong location? Report it at ${REPORT}`);
  });

  it('shows nothing without it, or with a value that is no http(s) URL', async () => {
    for (const setting of ['', 'not a url', 'javascript:alert(1)']) {
      const bindings = { ...env, CORRECTIONS_URL: setting } as unknown as Env;
      const html = await (await fetchWith('/?ip=81.2.69.142', bindings)).text();
      expect(await attributesOf(html, 'p.report a'), setting).toEqual([]);
      expect(await visibleText(html)).not.toContain('Report it');
      const document = (await (await fetchWith('/openapi.json', bindings)).json()) as { info: Record<string, unknown> };
      expect(document.info.contact, setting).toBeUndefined();
    }
    expect(await attributesOf(await (await get('/?ip=81.2.69.142')).text(), 'p.report a')).toEqual([]);
  });
});
