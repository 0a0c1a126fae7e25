/**
 * @module The answers' JSON text (`src/format/json.ts`) is `JSON.stringify`'s, for every string (lone
 * surrogates, control characters, quotes and backslashes among them) and every number an answer holds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonString, jsonValue } from '../../src/format/json.ts';

/** Strings of any UTF-16 code units, biased towards the ones JSON escapes. */
const strings = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\u0000', '\u001f', '\u007f', '\ud800', '\udfff', 'é', '東', 'a', '/', '\u2028') }),
);

describe('JSON text of answer values', () => {
  it('writes every string as JSON.stringify does', () => {
    fc.assert(
      fc.property(strings, (text) => {
        expect(jsonString(text)).toBe(JSON.stringify(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('writes numbers, booleans and arrays as JSON.stringify does', () => {
    const values = fc.oneof(fc.double(), fc.integer(), fc.boolean(), fc.array(fc.oneof(fc.string(), fc.integer())), strings);
    fc.assert(
      fc.property(values, (value) => {
        expect(jsonValue(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 20_000 },
    );
  });
});
