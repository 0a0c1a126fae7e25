/**
 * The bounded caches of `src/lookup/answer-cache.ts` as caches: which entries they keep and which they drop.
 * Made one pair of slots each (bits = 1), every offset falls in the same pair, so the expected decodes
 * follow from two-way LRU alone: a pair keeps the two entries used last.
 */
import { describe, expect, it } from 'vitest';
import { type GeoDatabase, type GeoLocation, type GeoNetwork, NO_LOCATION, type RecordParts } from '../../src/geo/database.ts';
import { Answers, PartCache } from '../../src/lookup/answer-cache.ts';

describe('PartCache', () => {
  const cacheOfOnePair = () => {
    const made: number[] = [];
    const cache = new PartCache(1, (offset) => {
      made.push(offset);
      return { offset };
    });
    return { cache, made };
  };

  it('keeps the two parts used last, and drops the one used least recently for a third', () => {
    const { cache, made } = cacheOfOnePair();
    for (const offset of [10, 20, 10, 30, 10, 20, 30]) expect(cache.get(offset).offset).toBe(offset);
    // 10, 20 made; 10 cached; 30 drops 20 (used before 10); 10 cached; 20 drops 30; 30 drops 10.
    expect(made).toEqual([10, 20, 30, 20, 30]);
  });

  it('gives back the same part while it is cached', () => {
    const { cache } = cacheOfOnePair();
    const first = cache.get(5);
    cache.get(6);
    expect(cache.get(5)).toBe(first);
    expect(cache.get(6)).not.toBe(first);
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
    const answers = new Answers(database, { records: 1, locations: 1, networks: 1 });
    for (const record of [1, 2, 1, 3, 1, 2]) {
      const { location, network, isProxy } = answers.select(record);
      expect([location.offset, location.cityName, network.offset, network.asn, isProxy]).toEqual([
        record + 1000,
        `city ${record + 1000}`,
        record + 2000,
        String(record + 2000),
        record % 2 === 1,
      ]);
    }
    // 1 and 2 decoded; 1 cached; 3 drops 2; 1 cached; 2 drops 3.
    expect(decoded.records).toEqual([1, 2, 3, 2]);
    expect(decoded.locations).toEqual([1001, 1002, 1003, 1002]);
    expect(decoded.networks).toEqual([2001, 2002, 2003, 2002]);
  });
});
