/** @module The direct-mapped cache by data offset (`src/mmdb/offset-cache.ts`). */
import { describe, expect, it } from 'vitest';
import { OffsetCache } from '../../src/mmdb/offset-cache.ts';

describe('OffsetCache', () => {
  it('gives back what was stored for an offset, and nothing for another', () => {
    const cache = new OffsetCache<string>(4);
    cache.set(1234, 'a');
    expect(cache.get(1234)).toBe('a');
    expect(cache.get(1235)).toBeUndefined();
    expect(cache.get(0)).toBeUndefined();
  });

  it('keeps at most one value per slot, the newest, so that its size never grows', () => {
    const cache = new OffsetCache<number>(2);
    for (let offset = 0; offset < 1000; offset++) cache.set(offset, offset);
    const kept = Array.from({ length: 1000 }, (_, offset) => cache.get(offset)).filter((value) => value !== undefined);
    expect(kept.length).toBeLessThanOrEqual(4);
    for (const value of kept) expect(cache.get(value as number)).toBe(value);
    expect(cache.get(999)).toBe(999);
  });

  it('refuses a size it cannot address', () => {
    expect(() => new OffsetCache(0)).toThrow(RangeError);
    expect(() => new OffsetCache(31)).toThrow(RangeError);
  });
});
