/**
 * @module The lookup's answers (`src/lookup/`): the record, its JSON and its XML, assembled from parts
 * cached by data offset, against what they stand for: the record decoded by the generic MMDB decoder
 * and joined with `countries-list` and `countries-and-timezones` here, `JSON.stringify` of the record,
 * and `toXml` of it. Over the compiled database (a seeded sample, twice, so that cached parts answer
 * the second time) and over small databases written here with awkward values.
 */
import { existsSync, readFileSync } from 'node:fs';
import { getCountry } from 'countries-and-timezones';
import { continents, countries } from 'countries-list';
import { beforeAll, describe, expect, it } from 'vitest';
import { mmdbType } from '../../data/mmdb/data-section.ts';
import { parseNetwork } from '../../data/mmdb/network.ts';
import { MmdbWriter } from '../../data/mmdb/writer.ts';
import { ProblemError } from '../../src/errors/problem.ts';
import { toXml } from '../../src/format/xml.ts';
import { GeoDatabase } from '../../src/geo/database.ts';
import { COORDINATE_SCALE, DATABASE_TYPE, type StoredRecord } from '../../src/geo/schema.ts';
import { parseIpAddress } from '../../src/ip/address.ts';
import { parseAndCheckPublic } from '../../src/ip/special-ranges.ts';
import type { IpInfo } from '../../src/lookup/ip-info.ts';
import { lookupAddress, lookupBulkJsons, lookupJson, lookupXml } from '../../src/lookup/lookup.ts';
import { seededRandom } from '../support/seeded-random.ts';

const COMPILED = new URL('../../data/out/ipgeo.mmdb', import.meta.url);

/** The record an address should get, from the generic decoder and the country packages directly. */
function expected(database: GeoDatabase, text: string): IpInfo | string {
  let parsed: ReturnType<typeof parseAndCheckPublic>;
  try {
    parsed = parseAndCheckPublic(text);
  } catch {
    return 'refused';
  }
  const { offset } = database.reader.lookup(parsed.bytes, parsed.version === 4);
  if (offset < 0) return 'IP_ADDRESS_NOT_FOUND';
  const stored = database.reader.decode(offset) as StoredRecord;
  const location = stored.location ?? {};
  const code = location.country_code ?? '';
  const country = code ? countries[code as keyof typeof countries] : undefined;
  const zones = (code && getCountry(code)?.timezones) || [];
  const own = location.time_zone ?? '';
  return {
    ipVersion: parsed.version,
    ipAddress: parsed.canonical,
    latitude: (location.latitude ?? 0) / COORDINATE_SCALE,
    longitude: (location.longitude ?? 0) / COORDINATE_SCALE,
    countryName: country?.name ?? '',
    countryCode: code,
    capital: country?.capital ?? '',
    phoneCodes: country ? [...country.phone] : [],
    timeZones: own ? [own, ...zones.filter((zone) => zone !== own)] : [...zones],
    zipCode: location.postal_code ?? '',
    cityName: location.city ?? '',
    regionName: location.region ?? '',
    regionCode: location.region_code ?? '',
    continent: country ? continents[country.continent as keyof typeof continents] : '',
    continentCode: country?.continent ?? '',
    currencies: country ? [...country.currency] : [],
    languages: country ? [...country.languages] : [],
    asn: stored.network?.asn ? String(stored.network.asn) : '',
    asnOrganization: stored.network?.organization ?? '',
    isProxy: stored.proxy === true,
  };
}

/** What a lookup function answers: its value, or the code of its problem. */
function outcome<T>(call: () => T): T | string {
  try {
    return call();
  } catch (error) {
    if (error instanceof ProblemError) return error.code.startsWith('IP_ADDRESS_') && error.code !== 'IP_ADDRESS_NOT_FOUND' ? 'refused' : error.code;
    throw error;
  }
}

/** Every lookup form agrees with the expected record and with the whole-record renderings. */
function checkAddress(database: GeoDatabase, text: string): void {
  const want = expected(database, text);
  const record = outcome(() => lookupAddress(database, text));
  expect(record, text).toEqual(want);
  const json = outcome(() => lookupJson(database, text));
  const xml = outcome(() => lookupXml(database, text));
  if (typeof record === 'string') {
    expect([json, xml], text).toEqual([record, record]);
  } else {
    expect(json, text).toBe(JSON.stringify(record));
    expect(xml, text).toBe(toXml('response', { ...record }));
  }
}

describe.runIf(existsSync(COMPILED))(
  'answers over the compiled database',
  () => {
    let database: GeoDatabase;
    const sample: string[] = [];
    beforeAll(() => {
      database = new GeoDatabase(readFileSync(COMPILED));
      const random = seededRandom(7);
      for (let i = 0; i < 6_000; i++) sample.push(Array.from({ length: 4 }, () => Math.floor(random() * 256)).join('.'));
      // IPv6 under prefixes that the data covers densely, and anywhere in 2000::/3.
      const prefixes = [0x2001, 0x2003, 0x2400, 0x2402, 0x2600, 0x2604, 0x2800, 0x2a00, 0x2a01, 0x2a02, 0x2c0f, 0x2002];
      for (let i = 0; i < 3_000; i++) {
        const groups = Array.from({ length: 8 }, () => Math.floor(random() * 0x10000));
        groups[0] = i % 4 === 0 ? 0x2000 | (groups[0] as number & 0x1fff) : (prefixes[i % prefixes.length] as number);
        if (i % 3 === 0) groups[1] = (groups[1] as number) & 0x0fff;
        sample.push(groups.map((g) => g.toString(16)).join(':'));
      }
    });

    it('answers a seeded sample as the generic decoder and the country packages say, in all three forms', () => {
      let found = 0;
      for (const text of sample) {
        checkAddress(database, text);
        if (typeof outcome(() => lookupAddress(database, text)) !== 'string') found++;
      }
      expect(found).toBeGreaterThan(4_000);
    });

    it('answers the same once the parts are cached', () => {
      for (const text of sample) checkAddress(database, text);
    });

    it('answers a whole list at once as the generic decoder says, each without regionCode (lookupBulkJsons)', () => {
      const texts = [...sample, 'not an address', '10.0.0.1', '::1'];
      const answers = lookupBulkJsons(database, texts);
      expect(answers).toHaveLength(texts.length);
      texts.forEach((text, i) => {
        const want = expected(database, text);
        const got = answers[i];
        if (typeof want === 'string') {
          expect(
            got instanceof ProblemError
              ? outcome(() => {
                  throw got;
                })
              : got,
            text,
          ).toBe(want);
        } else {
          const { regionCode: _omitted, ...bulk } = want;
          expect(got, text).toBe(JSON.stringify(bulk));
        }
      });
    });

    it('decodes every field of the schema as the generic decoder does (factsAt)', () => {
      for (const text of sample) {
        const parsed = parseIpAddress(text);
        const { offset } = database.reader.lookup(parsed.bytes, parsed.version === 4);
        if (offset < 0) continue;
        const stored = database.reader.decode(offset) as StoredRecord;
        const location = stored.location ?? {};
        expect(database.factsAt(offset), text).toEqual({
          countryCode: location.country_code ?? '',
          regionName: location.region ?? '',
          regionCode: location.region_code ?? '',
          cityName: location.city ?? '',
          postalCode: location.postal_code ?? '',
          latitude: (location.latitude ?? 0) / COORDINATE_SCALE,
          longitude: (location.longitude ?? 0) / COORDINATE_SCALE,
          timeZone: location.time_zone ?? '',
          asn: stored.network?.asn ?? 0,
          asnOrganization: stored.network?.organization ?? '',
          isProxy: stored.proxy === true,
        });
      }
    });
  },
  120_000,
);

/** A small compiled-schema database holding `records` at the networks given. */
function smallDatabase(records: Array<[string, Record<string, unknown>]>): GeoDatabase {
  const writer = new MmdbWriter({ ipVersion: 6, databaseType: DATABASE_TYPE, languages: ['en'] });
  for (const [cidr, record] of records) writer.insert(parseNetwork(cidr), record as never);
  return new GeoDatabase(writer.build());
}

const at = (latitude: number, longitude: number) => ({ latitude: mmdbType.int32(latitude), longitude: mmdbType.int32(longitude) });

describe('answers over awkward data', () => {
  const awkward = smallDatabase([
    [
      '1.0.0.0/24',
      {
        location: {
          country_code: 'FR',
          city: 'Saint-Étienne & <Loire> "42"',
          region: 'Auvergne-Rhône-Alpes',
          region_code: 'ARA',
          postal_code: '42000',
          ...at(454340, 43900),
          time_zone: 'Europe/Paris',
        },
      },
    ],
    [
      '1.0.1.0/24',
      {
        location: { country_code: 'JP', city: '東京都 — 千代田区 🗼', ...at(356895, 1396917) },
        network: { asn: 4_200_000_000, organization: 'Ünïcödé Networks, "Ltd" <&>' },
      },
    ],
    ['1.0.2.0/24', { location: { country_code: 'DE', city: 'Control\u0001Character\u001fCity', ...at(-1, -1) }, proxy: true }],
    ['1.0.3.0/24', { network: { asn: 13335, organization: 'A rather long organisation name, well past sixteen bytes' } }],
    ['1.0.4.0/24', { location: { country_code: 'ZZ', city: 'Nowhere', time_zone: 'Etc/Unknown', extra: 'ignored', ...at(0, 0) }, unknown: [1, 2, 3] }],
    ['1.0.5.0/24', { proxy: true }],
    [
      '2001:4860::/32',
      { location: { country_code: 'US', time_zone: 'America/Denver', ...at(-900000, -1800000) }, network: { asn: 15169, organization: 'Google LLC' } },
    ],
    // The same location again, now written as a pointer, with another network.
    [
      '1.0.6.0/24',
      {
        location: {
          country_code: 'FR',
          city: 'Saint-Étienne & <Loire> "42"',
          region: 'Auvergne-Rhône-Alpes',
          region_code: 'ARA',
          postal_code: '42000',
          ...at(454340, 43900),
          time_zone: 'Europe/Paris',
        },
        network: { asn: 3215, organization: 'Orange' },
      },
    ],
  ]);

  it('escapes, sanitises and decodes every kind of string as the whole-record rendering does', () => {
    for (let round = 0; round < 2; round++) {
      for (const text of [
        '1.0.0.1',
        '1.0.1.1',
        '1.0.2.1',
        '1.0.3.1',
        '1.0.4.1',
        '1.0.5.1',
        '1.0.6.1',
        '1.0.7.1',
        '2001:4860::8888',
        '::ffff:1.0.0.1',
        '10.0.0.1',
        'nonsense',
      ]) {
        checkAddress(awkward, text);
      }
    }
    expect(lookupXml(awkward, '1.0.2.1')).toContain('<cityName>Control\uFFFDCharacter\uFFFDCity</cityName>');
    expect(lookupJson(awkward, '1.0.0.1')).toContain('"cityName":"Saint-Étienne & <Loire> \\"42\\""');
  });

  it('starts afresh when another database is loaded, whose offsets mean other records', () => {
    const first = smallDatabase([['1.0.0.0/24', { location: { country_code: 'FR', city: 'Paris' } }]]);
    const second = smallDatabase([['1.0.0.0/24', { location: { country_code: 'IT', city: 'Roma' } }]]);
    expect(lookupAddress(first, '1.0.0.1').cityName).toBe('Paris');
    expect(lookupAddress(second, '1.0.0.1').cityName).toBe('Roma');
    expect(lookupAddress(first, '1.0.0.1').cityName).toBe('Paris');
  });

  it('answers DATA_UNAVAILABLE for a record of the wrong shape, as for any corrupt data', () => {
    const corrupt = smallDatabase([
      ['1.0.0.0/24', { location: 'not a map' }],
      ['1.0.1.0/24', { location: { city: 42 } }],
    ]);
    expect(outcome(() => lookupAddress(corrupt, '1.0.0.1'))).toBe('DATA_UNAVAILABLE');
    expect(outcome(() => lookupAddress(corrupt, '1.0.1.1'))).toBe('DATA_UNAVAILABLE');
    expect(outcome(() => lookupJson(corrupt, '1.0.1.1'))).toBe('DATA_UNAVAILABLE');
  });
});
