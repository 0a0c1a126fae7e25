/**
 * The bounded map of per-isolate state (`src/memory/lru-map.ts`) against a model: a list of keys in the
 * order of their last use, cut to its size from the front, which shares no code with it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruMap } from '../../src/memory/lru-map.ts';

describe('LruMap', () => {
  it('drops the least recently used entry, reads counting as use', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([map.get('a'), map.get('b'), map.get('c'), map.size]).toEqual([1, undefined, 3, 2]);
  });

  it('keeps a key written again once, as the most recently used', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 10);
    map.set('c', 3);
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([10, undefined, 3]);
  });

  it('holds what a list in order of last use holds, cut to its size', () => {
    const operation = fc.oneof(
      fc.record({ op: fc.constant('set' as const), key: fc.integer({ min: 0, max: 9 }), value: fc.integer() }),
      fc.record({ op: fc.constant('get' as const), key: fc.integer({ min: 0, max: 9 }) }),
      fc.record({ op: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 9 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(operation, { maxLength: 60 }), (size, operations) => {
        const map = new LruMap<number, number>(size);
        let model: { key: number; value: number }[] = [];
        for (const step of operations) {
          const found = model.find((entry) => entry.key === step.key);
          if (step.op === 'get') {
            expect(map.get(step.key)).toBe(found?.value);
            if (found) model = [...model.filter((entry) => entry !== found), found];
          } else if (step.op === 'set') {
            map.set(step.key, step.value);
            model = [...model.filter((entry) => entry !== found), { key: step.key, value: step.value }].slice(-size);
          } else {
            expect(map.delete(step.key)).toBe(found !== undefined);
            model = model.filter((entry) => entry !== found);
          }
          expect(map.size).toBe(model.length);
        }
      }),
    );
  });

  it('refuses a size that holds nothing', () => {
    for (const size of [0, -1, 1.5, Number.NaN]) expect(() => new LruMap(size)).toThrow(RangeError);
  });

  it('holds no promise', () => {
    // @ts-expect-error a request may not await what another request started: state holds settled values.
    new LruMap<string, Promise<number>>(1);
  });
});
