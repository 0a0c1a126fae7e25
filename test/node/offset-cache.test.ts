/**
 * @module The one cache of the lookup path (`src/mmdb/offset-cache.ts`): which entries it keeps and
 * which it drops. Made one set of slots (bits = log2 of the ways), every key falls in the same set, so
 * what is kept follows from LRU alone: a set of n slots keeps the n entries used last.
 */
import { describe, expect, it } from 'vitest';
import { OffsetCache } from '../../src/mmdb/offset-cache.ts';

/** A cache of one set of `ways` slots, used as the lookup path uses it; records the keys it had to make. */
function cacheOfOneSet(ways: number) {
  const made: number[] = [];
  const cache = new OffsetCache<{ key: number }>(Math.log2(ways), ways);
  const get = (key: number) =>
    cache.get(key) ??
    cache.set(
      key,
      (() => {
        made.push(key);
        return { key };
      })(),
    );
  return { cache, get, made };
}

describe('OffsetCache', () => {
  it('gives back what was stored for a key, and nothing for another', () => {
    const cache = new OffsetCache<string>(4);
    cache.set(1234, 'a');
    expect(cache.get(1234)).toBe('a');
    expect(cache.get(1235)).toBeUndefined();
    expect(cache.get(0)).toBeUndefined();
    expect(cache.get(-1)).toBeUndefined();
  });

  it('two-way: keeps the two entries used last, and drops the one used least recently for a third', () => {
    const { get, made } = cacheOfOneSet(2);
    for (const key of [10, 20, 10, 30, 10, 20, 30]) expect(get(key).key).toBe(key);
    // 10, 20 made; 10 cached; 30 drops 20 (used before 10); 10 cached; 20 drops 30; 30 drops 10.
    expect(made).toEqual([10, 20, 30, 20, 30]);
  });

  it('four-way: keeps the four entries used last, whichever slot of the set they are in', () => {
    const { get, made } = cacheOfOneSet(4);
    for (const key of [1, 2, 3, 4, 1, 5, 2, 3, 1, 4, 2]) expect(get(key).key).toBe(key);
    // Use order after each step (most recent first): 1 · 2 1 · 3 2 1 · 4 3 2 1 · 1 4 3 2 (cached) ·
    // 5 1 4 3 (drops 2) · 2 5 1 4 (drops 3) · 3 2 5 1 (drops 4) · 1 3 2 5 (cached) · 4 1 3 2 (drops 5) ·
    // 2 4 1 3 (cached, from the last slot).
    expect(made).toEqual([1, 2, 3, 4, 5, 2, 3, 4]);
  });

  it('takes any int32 key, negative ones too (IPv6 prefixes from 8000::)', () => {
    const { get, made } = cacheOfOneSet(2);
    for (const key of [-5, 0x7fffffff, -2147483648, -5]) expect(get(key).key).toBe(key);
    expect(made).toEqual([-5, 0x7fffffff, -2147483648, -5]);
  });

  it('never holds more entries than its slots, whatever is asked', () => {
    const cache = new OffsetCache<number>(3, 2);
    for (let key = 0; key < 1000; key++) cache.set(key, key);
    const kept = Array.from({ length: 1000 }, (_, key) => cache.get(key)).filter((value) => value !== undefined);
    expect(kept.length).toBeLessThanOrEqual(8);
    expect(cache.get(999)).toBe(999);
  });

  it('refuses sizes and sets it cannot make', () => {
    expect(() => new OffsetCache(0)).toThrow(RangeError);
    expect(() => new OffsetCache(25)).toThrow(RangeError);
    expect(() => new OffsetCache(4, 3)).toThrow(RangeError);
  });

  it('makes its sets no larger than its slots: two slots asked for sets of four keep the two last keys', () => {
    const cache = new OffsetCache<number>(1, 4);
    for (const key of [1, 2, 3]) cache.set(key, key * 10);
    expect([1, 2, 3].map((key) => cache.get(key))).toEqual([undefined, 20, 30]);
  });
});
