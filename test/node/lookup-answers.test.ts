/**
 * @module The lookup pipeline and its renderer (`src/lookup/`) against an oracle that shares no code
 * with them: addresses read with ipaddr.js (`test/support/ip-oracle.ts`), records and their networks'
 * prefix lengths decoded by mmdb-lib, country facts from `countries-list` and `countries-and-timezones`,
 * local times from Node's `Intl` by other formats than the service's, texts written by `JSON.stringify`
 * and `toXml` of the record object. Every view: the whole record, the bulk record, every field
 * (`fields=all`), field selections, every language (English names where the data has no other), at
 * instants on both sides of daylight-saving changes. Over the compiled database (a seeded sample,
 * twice, so that cached entries answer the second time) and small databases with awkward values.
 */
import { readFileSync } from 'node:fs';
import { getCountry } from 'countries-and-timezones';
import { continents, countries } from 'countries-list';
import ipaddr from 'ipaddr.js';
import { Reader } from 'mmdb-lib';
import Decoder from 'mmdb-lib/lib/decoder';
import { beforeAll, describe, expect, it } from 'vitest';
import { mmdbType } from '../../data/mmdb/data-section.ts';
import { parseNetwork } from '../../data/mmdb/network.ts';
import { toXml } from '../../src/format/xml.ts';
import { GeoDatabase } from '../../src/geo/database.ts';
import { ENGLISH, LANGUAGES } from '../../src/geo/languages.ts';
import { COORDINATE_SCALE, DATABASE_TYPE, type StoredRecord } from '../../src/geo/schema.ts';
import { DataUnavailableError } from '../../src/geo/unavailable.ts';
import { BULK_FIELDS, DEFAULT_FIELDS, EVERY_FIELD, FIELDS, type FieldMask, type FieldName, parseFields, type View } from '../../src/lookup/fields.ts';
import { lookupAll, type Outcome } from '../../src/lookup/pipeline.ts';
import { singleBody } from '../../src/lookup/render.ts';
import { oracleParse, oracleRange } from '../support/ip-oracle.ts';
import { MmdbWriter } from '../support/mmdb-writer.ts';
import { seededRandom } from '../support/seeded-random.ts';
import { fromUtf8 } from '../support/utf8-text.ts';

const COMPILED = new URL('../../data/out/ipgeo.mmdb', import.meta.url);

type Record20 = Record<FieldName, string | number | boolean | number[] | string[]>;

/** The record's flags as the schema stores them (docs: `src/geo/schema.ts`): bit i for vpn, tor, relay, hosting, proxy. */
const BIT = { vpn: 1, tor: 2, relay: 4, hosting: 8, proxy: 16 } as const;

/**
 * The instants the views answer at: around the EU's change to summer time (01:00 UTC on 29 March
 * 2026), the United States' (10:00 UTC on 8 March in Denver), New Zealand's back to standard time
 * (14:00 UTC on 4 April), and a day in the northern summer.
 */
const INSTANTS = [
  Date.UTC(2026, 2, 29, 0, 59, 59),
  Date.UTC(2026, 2, 29, 1, 0, 0),
  Date.UTC(2026, 2, 8, 8, 59, 59),
  Date.UTC(2026, 2, 8, 9, 0, 0),
  Date.UTC(2026, 3, 4, 13, 59, 59, 999),
  Date.UTC(2026, 3, 4, 14, 0, 0),
  Date.UTC(2026, 6, 14, 12, 34, 56, 789),
];

/** The offset of `zone` at `instant` as Intl's `longOffset` names it (`GMT+05:30`, `GMT`), as `±hh:mm`; undefined for a zone Intl refuses. */
function intlOffset(zone: string, instant: number): string | undefined {
  let name: string | undefined;
  try {
    name = new Intl.DateTimeFormat('en-GB', { timeZone: zone, timeZoneName: 'longOffset' })
      .formatToParts(instant)
      .find((p) => p.type === 'timeZoneName')?.value;
  } catch {
    return undefined;
  }
  const offset = (name ?? 'GMT').slice(3) || '+00:00';
  return offset.length === 3 ? `${offset}:00` : offset;
}

type ExpectedTime = { utcOffset: string; isDst: boolean; localTime: string };
const expectedTimes = new Map<string, ExpectedTime>();

/** `utcOffset`, `isDst` and `localTime` of `zone` at `now` from Node's Intl: '' and false for no zone or one Intl refuses. */
function expectedTime(zone: string, now: number): ExpectedTime {
  const key = `${zone} ${now}`;
  const known = expectedTimes.get(key);
  if (known) return known;
  const time = timeFromIntl(zone, now);
  expectedTimes.set(key, time);
  return time;
}

function timeFromIntl(zone: string, now: number): ExpectedTime {
  const offset = zone ? intlOffset(zone, now) : undefined;
  if (offset === undefined) return { utcOffset: '', isDst: false, localTime: '' };
  const minutes = (text: string) => (text.startsWith('-') ? -1 : 1) * (Number(text.slice(1, 3)) * 60 + Number(text.slice(4, 6)));
  const year = Number(new Intl.DateTimeFormat('en-GB', { timeZone: zone, year: 'numeric' }).format(now));
  const standard = Math.min(minutes(intlOffset(zone, Date.UTC(year, 0, 1)) ?? ''), minutes(intlOffset(zone, Date.UTC(year, 6, 1)) ?? ''));
  // The Swedish form of a date and time is ISO 8601's, with a space for the T.
  const wall = new Intl.DateTimeFormat('sv-SE', { timeZone: zone, dateStyle: 'short', timeStyle: 'medium' }).format(now);
  return { utcOffset: offset, isDst: minutes(offset) > standard, localTime: `${wall.replace(' ', 'T')}${offset}` };
}

/** The UTF-8 bytes of `text` as one character each: what the renderer answers (`src/format/utf8.ts`), made here by Node's own encoder. */
const utf8Of = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

/** A compiled file read by mmdb-lib: its reader, and its metadata with the keys mmdb-lib does not keep. */
interface Oracle {
  readonly reader: Reader<never>;
  readonly languages: readonly string[];
  readonly countryNames: Readonly<Record<string, readonly string[]>>;
  readonly continentNames: Readonly<Record<string, readonly string[]>>;
  readonly europeanUnion: readonly string[];
}

function oracleOf(bytes: Buffer): Oracle {
  const start = bytes.lastIndexOf(Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1')) + 14;
  const metadata = new Decoder(bytes, start).decode(start).value as Record<string, unknown>;
  return {
    reader: new Reader(bytes) as Reader<never>,
    languages: (metadata.languages as string[] | undefined) ?? ['en'],
    countryNames: (metadata.country_names as Record<string, string[]> | undefined) ?? {},
    continentNames: (metadata.continent_names as Record<string, string[]> | undefined) ?? {},
    europeanUnion: (metadata.european_union as string[] | undefined) ?? [],
  };
}

/** `names` in `language` (a code), else `english`. */
function named(oracle: Oracle, names: readonly string[] | undefined, language: string, english: string): string {
  if (language === 'en') return english;
  return names?.[oracle.languages.indexOf(language)] || english;
}

/** The record an address should get in `language` at `now`, or the kind of failure, from the oracle alone. */
function expected(oracle: Oracle, text: string, language: string, now: number): Record20 | 'invalid' | 'reserved' | 'not-found' {
  const parsed = oracleParse(text);
  if (parsed === 'invalid') return 'invalid';
  if (oracleRange(parsed.canonical)) return 'reserved';
  const [found, prefixLength] = oracle.reader.getWithPrefixLength(parsed.canonical);
  const stored = found as StoredRecord | null;
  if (stored === null) return 'not-found';
  const location = stored.location ?? {};
  const code = location.country_code ?? '';
  const country = code ? countries[code as keyof typeof countries] : undefined;
  const zones = (code && getCountry(code)?.timezones) || [];
  const own = location.time_zone ?? '';
  // The location's own continent, else (a file without it, or a source without one) its country's in countries-list.
  const continentCode = location.continent_code || (country?.continent ?? '');
  const continentNames = oracle.continentNames[continentCode];
  const continentInEnglish = continentNames?.[oracle.languages.indexOf('en')] || (continents[continentCode as keyof typeof continents] ?? '');
  const timeZones = own ? [own, ...zones.filter((zone) => zone !== own)] : [...zones];
  // A file of schema 3 and before marks a proxy with `proxy: true`.
  const flags = (stored.flags ?? 0) | (stored.proxy === true ? BIT.proxy : 0);
  const network =
    parsed.version === 4
      ? ipaddr.IPv4.networkAddressFromCIDR(`${parsed.canonical}/${prefixLength}`).toString()
      : ipaddr.IPv6.networkAddressFromCIDR(`${parsed.canonical}/${prefixLength}`).toRFC5952String();
  return {
    ipVersion: parsed.version,
    ipAddress: parsed.canonical,
    latitude: (location.latitude ?? 0) / COORDINATE_SCALE,
    longitude: (location.longitude ?? 0) / COORDINATE_SCALE,
    countryName: named(oracle, oracle.countryNames[code], language, country?.name ?? ''),
    countryCode: code,
    capital: country?.capital ?? '',
    phoneCodes: country ? [...country.phone] : [],
    timeZones,
    zipCode: location.postal_code ?? '',
    cityName: named(oracle, location.city_names, language, location.city ?? ''),
    regionName: named(oracle, location.region_names, language, location.region ?? ''),
    regionCode: location.region_code ?? '',
    continent: named(oracle, continentNames, language, continentInEnglish),
    continentCode,
    currencies: country ? [...country.currency] : [],
    languages: country ? [...country.languages] : [],
    asn: stored.network?.asn ? String(stored.network.asn) : '',
    asnOrganization: stored.network?.organization ?? '',
    isProxy: (flags & (BIT.vpn | BIT.tor | BIT.relay | BIT.proxy)) !== 0,
    isVpn: (flags & BIT.vpn) !== 0,
    isTor: (flags & BIT.tor) !== 0,
    isRelay: (flags & BIT.relay) !== 0,
    isHosting: (flags & BIT.hosting) !== 0,
    hostingProvider: stored.hosting_provider ?? '',
    accuracyRadius: stored.accuracy_radius ?? 0,
    network: `${network}/${prefixLength}`,
    isEu: code !== '' && oracle.europeanUnion.includes(code),
    ...expectedTime(timeZones[0] ?? '', now),
  };
}

/** The fields of `record` in `mask`, in the record's order. */
function pick(record: Record20, mask: number): Partial<Record20> {
  return Object.fromEntries(FIELDS.filter((_, i) => mask & (1 << i)).map((name) => [name, record[name]]));
}

/** Views to check each address in: the whole record, the bulk record, every field, a language, random selections, at one of {@link INSTANTS}. */
function views(random: () => number): View[] {
  const language = Math.floor(random() * LANGUAGES.length);
  const now = INSTANTS[Math.floor(random() * INSTANTS.length)] as number;
  return [
    { fields: DEFAULT_FIELDS, language: LANGUAGES.indexOf('en'), now },
    { fields: BULK_FIELDS, language: LANGUAGES.indexOf('en'), now },
    { fields: EVERY_FIELD, language: LANGUAGES.indexOf('en'), now },
    { fields: DEFAULT_FIELDS, language, now },
    { fields: EVERY_FIELD, language, now },
    { fields: Math.floor(random() * DEFAULT_FIELDS) + 1, language, now },
    { fields: Math.floor(random() * EVERY_FIELD) + 1, language, now },
  ];
}

/** Every address of `texts` answered as the oracle says, in every view and both formats. */
function check(database: GeoDatabase, oracle: Oracle, texts: readonly string[], random: () => number): number {
  const outcomes: Outcome[] = lookupAll(database, texts);
  expect(outcomes).toHaveLength(texts.length);
  let found = 0;
  texts.forEach((text, i) => {
    const want = expected(oracle, text, 'en', 0);
    const got = outcomes[i] as Outcome;
    if (typeof want === 'string') {
      expect(got.kind, text).toBe(want);
      return;
    }
    expect(got.kind, text).toBe('found');
    if (got.kind !== 'found') return;
    found++;
    for (const view of views(random)) {
      const fields = pick(expected(oracle, text, LANGUAGES[view.language] as string, view.now as number) as Record20, view.fields);
      expect(singleBody(got, 'json', view), `${text} ${JSON.stringify(view)}`).toBe(utf8Of(JSON.stringify(fields)));
      expect(singleBody(got, 'xml', view), `${text} ${JSON.stringify(view)}`).toBe(utf8Of(toXml('response', fields)));
    }
  });
  return found;
}

describe('answers over the compiled database', () => {
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

  it('answers a seeded sample as the oracle says, in every view, as one list and address by address', () => {
    const oracle = oracleOf(readFileSync(COMPILED));
    const random = seededRandom(11);
    const found = check(database, oracle, [...sample, 'not an address', '10.0.0.1', '::1', '2001:db8::1'], random);
    expect(found).toBeGreaterThan(4_000);
    // Again, with the entries cached, one address at a time (the single routes' call).
    for (const text of sample.slice(0, 2_000)) check(database, oracle, [text], random);
  });
}, 120_000);

/** A small compiled-schema database holding `records` at the networks given, and mmdb-lib over its bytes. */
function smallDatabase(
  records: Array<[string, Record<string, unknown>]>,
  metadata: { languages?: string[]; extra?: Record<string, never> } = {},
): { database: GeoDatabase; oracle: Oracle } {
  const writer = new MmdbWriter({
    ipVersion: 6,
    databaseType: DATABASE_TYPE,
    languages: metadata.languages ?? ['en'],
    ...(metadata.extra ? { extra: metadata.extra } : {}),
  });
  for (const [cidr, record] of records) writer.insert(parseNetwork(cidr), record as never);
  const bytes = writer.build();
  return { database: new GeoDatabase(bytes), oracle: oracleOf(Buffer.from(bytes)) };
}

/** The JSON of one view of one address. */
function json(database: GeoDatabase, text: string, view: View): string {
  const [outcome] = lookupAll(database, [text]);
  if (outcome?.kind !== 'found') throw new Error(`${text}: ${outcome?.kind}`);
  return fromUtf8(singleBody(outcome, 'json', view));
}

const at = (latitude: number, longitude: number) => ({ latitude: mmdbType.int32(latitude), longitude: mmdbType.int32(longitude) });

/** A location with every kind of character to escape, stored twice (the second time as a pointer). */
const SAINT_ETIENNE = {
  country_code: 'FR',
  city: 'Saint-Étienne & <Loire> "42"',
  region: 'Auvergne-Rhône-Alpes',
  region_code: 'ARA',
  postal_code: '42000',
  ...at(454340, 43900),
  time_zone: 'Europe/Paris',
};

describe('answers over awkward data', () => {
  const awkward = smallDatabase(
    [
      ['1.0.0.0/24', { location: SAINT_ETIENNE }],
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
      ['1.0.6.0/24', { location: SAINT_ETIENNE, network: { asn: 3215, organization: 'Orange' } }],
      // Flags, a hosting provider's name to escape, an accuracy radius, a country in the EU (the metadata's).
      [
        '1.0.8.0/22',
        {
          location: { country_code: 'IE', city: 'Dublin', ...at(533498, -62603), time_zone: 'Europe/Dublin' },
          accuracy_radius: mmdbType.uint16(1000),
          flags: mmdbType.uint16(BIT.vpn | BIT.hosting),
          hosting_provider: 'Ünïcödé "Cloud" <&>',
        },
      ],
      ['1.0.12.0/24', { flags: mmdbType.uint16(BIT.tor | BIT.relay), accuracy_radius: mmdbType.uint16(5) }],
      ['1.0.13.0/24', { location: { country_code: 'NZ', time_zone: 'Pacific/Auckland', ...at(-368485, 1747633) }, flags: mmdbType.uint16(BIT.hosting) }],
    ],
    { extra: { european_union: ['FR', 'IE'] } as never },
  );

  it('escapes, sanitises and decodes every kind of string as the whole-record rendering does', () => {
    const random = seededRandom(5);
    const texts = [
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
      '1.0.9.200',
      '::ffff:1.0.11.255',
      '1.0.12.1',
      '1.0.13.1',
      '10.0.0.1',
      'nonsense',
    ];
    for (let round = 0; round < 2; round++) check(awkward.database, awkward.oracle, texts, random);
    const [controls] = lookupAll(awkward.database, ['1.0.2.1']);
    if (controls?.kind !== 'found') throw new Error('1.0.2.1 not found');
    expect(fromUtf8(singleBody(controls, 'xml', { fields: DEFAULT_FIELDS, language: 1 }))).toContain('<cityName>Control\uFFFDCharacter\uFFFDCity</cityName>');
    expect(json(awkward.database, '1.0.0.1', { fields: DEFAULT_FIELDS, language: 1 })).toContain('"cityName":"Saint-Étienne & <Loire> \\"42\\""');
  });

  it('starts afresh when another database is loaded, whose offsets mean other records', () => {
    const first = smallDatabase([['1.0.0.0/24', { location: { country_code: 'FR', city: 'Paris' } }]]).database;
    const second = smallDatabase([['1.0.0.0/24', { location: { country_code: 'IT', city: 'Roma' } }]]).database;
    const city = { fields: 1 << FIELDS.indexOf('cityName'), language: 1 };
    expect(json(first, '1.0.0.1', city)).toBe('{"cityName":"Paris"}');
    expect(json(second, '1.0.0.1', city)).toBe('{"cityName":"Roma"}');
    expect(json(first, '1.0.0.1', city)).toBe('{"cityName":"Paris"}');
  });

  it('fails the whole list for a record of the wrong shape, as for any corrupt data, and says so on the database', () => {
    const { database: corrupt } = smallDatabase([
      ['1.0.0.0/24', { location: 'not a map' }],
      ['1.0.1.0/24', { location: { city: 42 } }],
    ]);
    expect(() => lookupAll(corrupt, ['8.8.8.8', '1.0.0.1'])).toThrow(DataUnavailableError);
    expect(() => lookupAll(corrupt, ['1.0.1.1'])).toThrow(DataUnavailableError);
    expect(corrupt.damage).toMatch(/not a map/);
  });

  it('answers no-location for an address without a position only where one is asked for', () => {
    const outcomes = lookupAll(awkward.database, ['1.0.3.1', '1.0.0.1'], { positions: true });
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['no-location', 'found']);
    expect(lookupAll(awkward.database, ['1.0.3.1'])[0]?.kind).toBe('found');
  });
});

describe('names in other languages', () => {
  // Stored in another order than the service's, with gaps: the reader must reorder and fall back.
  const languages = ['ja', 'en', 'de', 'zh-CN'];
  const { database, oracle } = smallDatabase(
    [
      [
        '1.0.0.0/24',
        {
          location: {
            country_code: 'JP',
            city: 'Tokyo',
            city_names: ['東京', 'Tokyo', 'Tokio', ''],
            region: 'Tokyo',
            region_code: '13',
            region_names: ['東京都', 'Tokyo', '', '东京都'],
            ...at(356895, 1396917),
            time_zone: 'Asia/Tokyo',
          },
        },
      ],
      ['1.0.1.0/24', { location: { country_code: 'DE', city: 'Berlin', ...at(525200, 134050) } }],
      // The source's own continent, where countries-list has the country's (RU: Asia).
      ['1.0.2.0/24', { location: { country_code: 'RU', continent_code: 'EU', city: 'Moscow', ...at(557558, 376176) } }],
      // A file built before the continent was stored, or a source without one: the country's.
      ['1.0.3.0/24', { location: { country_code: 'RU', city: 'Novosibirsk', ...at(550411, 829344) } }],
      // A continent without a country.
      ['1.0.4.0/24', { location: { continent_code: 'EU', ...at(475000, 85000) } }],
    ],
    {
      languages,
      extra: {
        country_names: { JP: ['日本', 'Japan', 'Japan', '日本'], DE: ['ドイツ', 'Germany', 'Deutschland', ''] },
        continent_names: { AS: ['アジア', 'Asia', 'Asien', '亚洲'], EU: ['ヨーロッパ', 'Europe', 'Europa', '欧洲'] },
      } as never,
    },
  );
  const names = { fields: parseFields('countryName,cityName,regionName,continent') as FieldMask };
  const view = (code: string): View => ({ ...names, language: LANGUAGES.indexOf(code as (typeof LANGUAGES)[number]) });

  it("answers the data's names in the language asked, and English where it has none", () => {
    expect(json(database, '1.0.0.1', view('ja'))).toBe('{"countryName":"日本","cityName":"東京","regionName":"東京都","continent":"アジア"}');
    expect(json(database, '1.0.0.1', view('de'))).toBe('{"countryName":"Japan","cityName":"Tokio","regionName":"Tokyo","continent":"Asien"}');
    expect(json(database, '1.0.0.1', view('zh-CN'))).toBe('{"countryName":"日本","cityName":"Tokyo","regionName":"东京都","continent":"亚洲"}');
    expect(json(database, '1.0.0.1', view('fr'))).toBe('{"countryName":"Japan","cityName":"Tokyo","regionName":"Tokyo","continent":"Asia"}');
    expect(json(database, '1.0.1.1', view('zh-CN'))).toBe('{"countryName":"Germany","cityName":"Berlin","regionName":"","continent":"欧洲"}');
  });

  it("answers the location's own continent, and its country's where it has none", () => {
    const continent = (text: string, code: string) =>
      json(database, text, { fields: parseFields('continent,continentCode') as FieldMask, language: LANGUAGES.indexOf(code as never) });
    expect(countries.RU.continent).toBe('AS');
    expect(continent('1.0.2.1', 'en')).toBe('{"continent":"Europe","continentCode":"EU"}');
    expect(continent('1.0.2.1', 'de')).toBe('{"continent":"Europa","continentCode":"EU"}');
    expect(continent('1.0.3.1', 'en')).toBe('{"continent":"Asia","continentCode":"AS"}');
    expect(continent('1.0.3.1', 'ja')).toBe('{"continent":"アジア","continentCode":"AS"}');
    expect(continent('1.0.4.1', 'zh-CN')).toBe('{"continent":"欧洲","continentCode":"EU"}');
    expect(json(database, '1.0.4.1', { fields: parseFields('countryCode') as FieldMask, language: ENGLISH })).toBe('{"countryCode":""}');
  });

  it('answers every language and view as the oracle says', () => {
    const random = seededRandom(9);
    for (let round = 0; round < 20; round++) check(database, oracle, ['1.0.0.1', '1.0.1.1', '1.0.2.1', '1.0.3.1', '1.0.4.1', '1.0.5.1'], random);
  });
});
