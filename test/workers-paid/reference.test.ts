/**
 * @module The paid reference routes (languages, countries, phone codes, time zones), with expected
 * values computed here from the packages' raw data (`countries-list`, `countries-and-timezones`) over
 * the specification's own 250 country codes.
 */
import { getCountry } from 'countries-and-timezones';
import { countries, languages } from 'countries-list';
import { describe, expect, it } from 'vitest';
import { paidFetch } from '../support/paid-fetch.ts';
import { SPEC_COUNTRY_CODES } from '../support/spec-country-codes.ts';

type Json = Record<string, unknown>;
type Code = keyof typeof countries;

const raw = (code: string) => countries[code as Code];
const summary = (code: string) => ({ code, name: raw(code).name, native: raw(code).native, capital: raw(code).capital, continent: raw(code).continent });
const full = (code: string) => ({
  ...summary(code),
  phoneCodes: raw(code).phone,
  currencies: raw(code).currency,
  languages: raw(code).languages,
  timeZones: getCountry(code)?.timezones ?? [],
});

async function get(path: string): Promise<{ status: number; body: Json }> {
  const response = await paidFetch(path);
  return { status: response.status, body: (await response.json()) as Json };
}

describe('GET /api/languages/{code}', () => {
  it.each(['en', 'de', 'fr', 'es', 'ar', 'pt', 'sw'])('lists the countries that use %s, sorted by code, as countries-list has them', async (code) => {
    const { status, body } = await get(`/api/languages/${code}`);
    expect(status).toBe(200);
    const expected = SPEC_COUNTRY_CODES.filter((country) => (raw(country).languages as readonly string[]).includes(code)).map(summary);
    expect(body).toEqual({ code, total_countries: expected.length, countries: expected });
  });

  it('reads the code in any case', async () => {
    const lower = await get('/api/languages/de');
    for (const code of ['DE', 'De', 'dE']) expect(await get(`/api/languages/${code}`)).toEqual(lower);
  });

  it('leaves out AC and TA, which the specification does not list', async () => {
    const { body } = await get('/api/languages/en');
    const codes = (body.countries as Json[]).map((country) => country.code);
    expect(codes).toContain('SH');
    expect(codes).not.toContain('AC');
    expect(codes).not.toContain('TA');
  });

  it('answers a language that no country lists with an empty list', async () => {
    // Esperanto is an ISO 639-1 code that countries-list knows, with no country.
    expect(Object.hasOwn(languages, 'eo')).toBe(true);
    expect(await get('/api/languages/eo')).toEqual({ status: 200, body: { code: 'eo', total_countries: 0, countries: [] } });
  });

  it.each(['xx', 'qq', 'english', 'e', 'd3', 'en-GB'])('answers LANGUAGE_NOT_FOUND for %s', async (code) => {
    const { status, body } = await get(`/api/languages/${encodeURIComponent(code)}`);
    expect(status).toBe(404);
    expect(body).toMatchObject({ code: 'LANGUAGE_NOT_FOUND', status: 404 });
  });
});

describe('GET /api/countries', () => {
  it('lists the 250 countries of the specification, sorted, with their facts', async () => {
    const { status, body } = await get('/api/countries');
    expect(status).toBe(200);
    expect(body.total_countries).toBe(250);
    expect(body.countries).toEqual(SPEC_COUNTRY_CODES.map(full));
  });

  it.each(['DE', 'us', 'Jp', 'XK', 'AQ', 'SH'])('answers the country %s', async (code) => {
    expect(await get(`/api/countries/${code}`)).toEqual({ status: 200, body: full(code.toUpperCase()) });
  });

  it.each(['AC', 'TA', 'ZZ', 'DEU', 'D', '12'])('answers COUNTRY_NOT_FOUND for %s', async (code) => {
    const { status, body } = await get(`/api/countries/${code}`);
    expect(status).toBe(404);
    expect(body).toMatchObject({ code: 'COUNTRY_NOT_FOUND' });
  });
});

describe('GET /api/phonecodes', () => {
  it('maps every dialling code to the countries that use it', async () => {
    const expected = new Map<string, string[]>();
    for (const code of SPEC_COUNTRY_CODES) for (const phone of raw(code).phone) expected.set(String(phone), [...(expected.get(String(phone)) ?? []), code]);
    const { status, body } = await get('/api/phonecodes');
    expect(status).toBe(200);
    expect(body).toEqual(Object.fromEntries(expected));
    const keys = Object.keys(body).map(Number);
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
  });

  it('answers the countries that use +44, in three spellings', async () => {
    const expected = { phoneCode: 44, total_countries: 4, countries: ['GB', 'GG', 'IM', 'JE'].map(summary) };
    for (const spelling of ['44', '%2B44', '0044']) expect(await get(`/api/phonecodes/${spelling}`)).toEqual({ status: 200, body: expected });
  });

  it('answers NOT_FOUND for a code that no country uses, or no code at all', async () => {
    for (const code of ['999', '0', 'abc', '12345']) {
      const { status, body } = await get(`/api/phonecodes/${code}`);
      expect(status, code).toBe(404);
      expect(body).toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});

describe('GET /api/timezones', () => {
  it('maps every zone of a country to the countries in it, sorted by zone', async () => {
    const expected = new Map<string, string[]>();
    for (const code of SPEC_COUNTRY_CODES) for (const zone of getCountry(code)?.timezones ?? []) expected.set(zone, [...(expected.get(zone) ?? []), code]);
    const { status, body } = await get('/api/timezones');
    expect(status).toBe(200);
    expect(body).toEqual(Object.fromEntries([...expected].sort(([a], [b]) => (a < b ? -1 : 1))));
    expect(Object.keys(body)).toEqual([...expected.keys()].sort());
  });

  it('answers the countries in a zone, with its slashes as they are or encoded', async () => {
    const expected = { zone: 'Europe/Paris', total_countries: 2, countries: ['FR', 'MC'].map(summary) };
    for (const path of ['Europe/Paris', 'Europe%2FParis', 'europe/paris']) expect(await get(`/api/timezones/${path}`)).toEqual({ status: 200, body: expected });
  });

  it('answers a three-part zone name', async () => {
    expect(await get('/api/timezones/America/Argentina/Buenos_Aires')).toEqual({
      status: 200,
      body: { zone: 'America/Argentina/Buenos_Aires', total_countries: 1, countries: [summary('AR')] },
    });
  });

  it('answers a link name as the zone it links to', async () => {
    // IANA's backward file: Asia/Calcutta links to Asia/Kolkata.
    const { body } = await get('/api/timezones/Asia/Calcutta');
    expect(body).toEqual({ zone: 'Asia/Kolkata', total_countries: 1, countries: [summary('IN')] });
  });

  it('answers NOT_FOUND for a zone that no country uses', async () => {
    for (const zone of ['Mars/Olympus_Mons', 'Etc/UTC', 'Europe']) {
      const { status, body } = await get(`/api/timezones/${zone}`);
      expect(status, zone).toBe(404);
      expect(body).toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});
