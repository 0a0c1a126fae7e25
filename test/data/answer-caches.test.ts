/**
 * The bounded caches of `src/lookup/answer-cache.ts` as caches: which entries they keep and which they drop.
 * Made one set of slots each (bits = log2 of the ways), every offset falls in the same set, so the
 * expected decodes follow from LRU alone: a set of n slots keeps the n entries used last.
 */
import { describe, expect, it } from 'vitest';
import { type GeoDatabase, type GeoLocation, type GeoNetwork, NO_LOCATION, type RecordParts } from '../../src/geo/database.ts';
import { Answers, PartCache } from '../../src/lookup/answer-cache.ts';

describe('PartCache', () => {
  /** A cache of one set of `ways` slots, recording the offsets it had to make. */
  const cacheOfOneSet = (ways: number) => {
    const made: number[] = [];
    const cache = new PartCache(
      Math.log2(ways),
      (offset) => {
        made.push(offset);
        return { offset };
      },
      ways,
    );
    return { cache, made };
  };

  it('two-way: keeps the two parts used last, and drops the one used least recently for a third', () => {
    const { cache, made } = cacheOfOneSet(2);
    for (const offset of [10, 20, 10, 30, 10, 20, 30]) expect(cache.get(offset).offset).toBe(offset);
    // 10, 20 made; 10 cached; 30 drops 20 (used before 10); 10 cached; 20 drops 30; 30 drops 10.
    expect(made).toEqual([10, 20, 30, 20, 30]);
  });

  it('four-way: keeps the four parts used last, whichever slot of the set they are in', () => {
    const { cache, made } = cacheOfOneSet(4);
    for (const offset of [1, 2, 3, 4, 1, 5, 2, 3, 1, 4, 2]) expect(cache.get(offset).offset).toBe(offset);
    // Use order after each step (most recent first): 1 · 2 1 · 3 2 1 · 4 3 2 1 · 1 4 3 2 (cached) ·
    // 5 1 4 3 (drops 2) · 2 5 1 4 (drops 3) · 3 2 5 1 (drops 4) · 1 3 2 5 (cached) · 4 1 3 2 (drops 5) ·
    // 2 4 1 3 (cached, from the last slot).
    expect(made).toEqual([1, 2, 3, 4, 5, 2, 3, 4]);
  });

  it('gives back the same part while it is cached', () => {
    const { cache } = cacheOfOneSet(2);
    const first = cache.get(5);
    cache.get(6);
    expect(cache.get(5)).toBe(first);
    expect(cache.get(6)).not.toBe(first);
  });

  it('refuses sets it cannot make', () => {
    expect(() => new PartCache(1, (offset) => ({ offset }), 4)).toThrow(RangeError);
    expect(() => new PartCache(4, (offset) => ({ offset }), 3)).toThrow(RangeError);
  });
});

describe('Answers over a database that counts its decodes', () => {
  // Record n points to location n + 1000 and network n + 2000; odd records are proxies.
  const decoded = { records: [] as number[], locations: [] as number[], networks: [] as number[] };
  const database = {
    partsAt(offset: number, out: RecordParts): RecordParts {
      decoded.records.push(offset);
      out.location = offset + 1000;
      out.network = offset + 2000;
      out.proxy = offset % 2 === 1;
      return out;
    },
    locationAt(offset: number): GeoLocation {
      decoded.locations.push(offset);
      return { ...NO_LOCATION, cityName: `city ${offset}` };
    },
    networkAt(offset: number): GeoNetwork {
      decoded.networks.push(offset);
      return { asn: offset, organization: `network ${offset}` };
    },
  } as unknown as GeoDatabase;

  it('answers each record with its own parts, and decodes again only what a pair of slots dropped', () => {
    const answers = new Answers(database, { records: 1, locations: 1, networks: 1, locationJsons: 1 });
    for (const record of [1, 2, 1, 3, 1, 2]) {
      const { location, network, isProxy } = answers.select(record);
      expect([location.cityName, network.asn, isProxy]).toEqual([`city ${record + 1000}`, String(record + 2000), record % 2 === 1]);
    }
    // 1 and 2 decoded; 1 cached; 3 drops 2; 1 cached; 2 drops 3.
    expect(decoded.records).toEqual([1, 2, 3, 2]);
    expect(decoded.locations).toEqual([1001, 1002, 1003, 1002]);
    expect(decoded.networks).toEqual([2001, 2002, 2003, 2002]);
  });

  it('answers the single JSON texts of each record, from the parts it already has, and again only what was dropped', () => {
    for (const list of Object.values(decoded)) list.length = 0;
    const answers = new Answers(database, { records: 1, locations: 1, networks: 1, locationJsons: 1 });
    answers.select(1);
    for (const record of [1, 2, 1, 3, 1]) {
      const { locationJson, networkJson, isProxy } = answers.selectJson(record);
      expect(locationJson).toContain(`"zipCode":"","cityName":"city ${record + 1000}","regionName":"","regionCode":"",`);
      expect(locationJson.startsWith('"latitude":0,"longitude":0,"countryName":"","countryCode":""')).toBe(true);
      expect(locationJson.endsWith('"languages":[],')).toBe(true);
      expect(networkJson).toBe(`"asn":"${record + 2000}","asnOrganization":"network ${record + 2000}",`);
      expect(isProxy).toBe(record % 2 === 1);
    }
    // select(1) decoded record 1 and its parts; selectJson(1) made its texts from them. 2 decoded;
    // 1 cached; 3 drops 2 (its record, parts and texts); 1 cached.
    expect(decoded.records).toEqual([1, 2, 3]);
    expect(decoded.locations).toEqual([1001, 1002, 1003]);
    expect(decoded.networks).toEqual([2001, 2002, 2003]);
  });
});
