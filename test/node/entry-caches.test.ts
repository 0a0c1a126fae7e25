/**
 * @module The caches of one database (`src/lookup/entry-caches.ts`) over a database that counts its
 * decodes: each record answered with its own parts, and decoded again only once a cache dropped it.
 */
import { describe, expect, it } from 'vitest';
import type { Utf8 } from '../../src/format/utf8.ts';
import type { GeoDatabase } from '../../src/geo/database.ts';
import { ENGLISH, LANGUAGES, NO_NAMES } from '../../src/geo/languages.ts';
import { type GeoLocation, type GeoNetwork, NO_LOCATION, type RecordParts } from '../../src/geo/record-parts.ts';
import { FLAG_BIT } from '../../src/geo/schema.ts';
import { EntryCaches } from '../../src/lookup/entry-caches.ts';
import { fromUtf8 } from '../support/utf8-text.ts';

// Record n points to location n + 1000 and network n + 2000, with a radius of 10n km; odd records are
// VPNs in a hosting provider's network, whose name is at offset 3000.
const decoded = { records: [] as number[], locations: [] as number[], networks: [] as number[], providers: [] as number[] };
const database = {
  partsAt(offset: number, out: RecordParts): RecordParts {
    decoded.records.push(offset);
    out.location = offset + 1000;
    out.network = offset + 2000;
    out.accuracyRadius = offset * 10;
    out.flags = offset % 2 === 1 ? FLAG_BIT.vpn | FLAG_BIT.hosting : 0;
    out.provider = offset % 2 === 1 ? 3000 : -1;
    return out;
  },
  providerAt(offset: number): string {
    decoded.providers.push(offset);
    return `provider ${offset}`;
  },
  locationAt(offset: number): GeoLocation {
    decoded.locations.push(offset);
    return { ...NO_LOCATION, cityName: `city ${offset}` };
  },
  networkAt(offset: number): GeoNetwork {
    decoded.networks.push(offset);
    return { asn: offset, organization: `network ${offset}` };
  },
  countryNames: () => NO_NAMES,
  continentNames: () => NO_NAMES,
  isInEuropeanUnion: () => false,
} as unknown as GeoDatabase;

describe('EntryCaches over a database that counts its decodes', () => {
  it('answers each record with its own parts, and decodes again only the locations and networks a set of two slots dropped', () => {
    const caches = new EntryCaches(database, { locations: 1, networks: 1, names: 1 });
    for (const offset of [1, 2, 1, 3, 1, 2]) {
      const { location, network, accuracyRadius, flags, provider } = caches.recordAt(offset);
      const odd = offset % 2 === 1;
      expect([location.placeName('city', ENGLISH), network.asn, accuracyRadius, flags, provider.name, provider.json]).toEqual([
        `city ${offset + 1000}`,
        String(offset + 2000),
        offset * 10,
        odd ? FLAG_BIT.vpn | FLAG_BIT.hosting : 0,
        odd ? 'provider 3000' : '',
        odd ? '"provider 3000"' : '""',
      ]);
    }
    // Records are read each time; of their locations and networks, 1 and 2 decoded; 1 cached; 3 drops 2; 1 cached; 2 drops 3.
    expect(decoded.records).toEqual([1, 2, 1, 3, 1, 2]);
    expect(decoded.locations).toEqual([1001, 1002, 1003, 1002]);
    expect(decoded.networks).toEqual([2001, 2002, 2003, 2002]);
    // A provider's name is read once: they are few, and kept.
    expect(decoded.providers).toEqual([3000]);
  });

  it("answers a location's place in English without reading names, and in another language from its names, read once per language", () => {
    const named = {
      ...database,
      locationAt: (offset: number): GeoLocation => ({ ...NO_LOCATION, cityName: `city ${offset}`, cityNamesOffset: offset + 5000 }),
      nameAt(offset: number, language: number) {
        namesRead.push(offset);
        return { de: `Stadt ${offset}`, ja: `都市 ${offset}` }[LANGUAGES[language] as string] ?? '';
      },
    } as unknown as GeoDatabase;
    const namesRead: number[] = [];
    const caches = new EntryCaches(named, { locations: 2, networks: 2, names: 2 });
    const location = caches.recordAt(7).location;
    const place = (language: number) => JSON.parse(fromUtf8(`{${location.jsonPlace(language, false).slice(0, -1)}}` as Utf8));
    for (let i = 0; i < 2; i++) expect(place(ENGLISH)).toEqual({ zipCode: '', cityName: 'city 1007', regionName: '' });
    expect(namesRead).toEqual([]);
    for (let i = 0; i < 2; i++) expect(place(LANGUAGES.indexOf('de'))).toEqual({ zipCode: '', cityName: 'Stadt 6007', regionName: '' });
    for (let i = 0; i < 2; i++) expect(place(LANGUAGES.indexOf('ja'))).toEqual({ zipCode: '', cityName: '都市 6007', regionName: '' });
    // No name in French: the English one.
    expect(place(LANGUAGES.indexOf('fr'))).toEqual({ zipCode: '', cityName: 'city 1007', regionName: '' });
    expect(namesRead).toEqual([6007, 6007, 6007]);
  });
});
