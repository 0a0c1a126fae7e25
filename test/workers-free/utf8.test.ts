/**
 * @module UTF-8 text (`src/format/utf8.ts`) in workerd: its characters are the bytes `TextEncoder`
 * writes, it decodes back as `TextDecoder` reads them, and responses made of its bytes keep their own
 * copy although the bytes are written into one reused buffer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Utf8, utf8, withUtf8Body } from '../../src/format/utf8.ts';
import { fromUtf8 } from '../support/utf8-text.ts';

/** `bytes` as one character each. */
const asText = (bytes: Uint8Array): string => Array.from(bytes, (byte) => String.fromCharCode(byte)).join('');

describe('UTF-8 text', () => {
  it('holds the bytes TextEncoder writes, and decodes as TextDecoder reads them', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const encoded = new TextEncoder().encode(text);
        expect(utf8(text)).toBe(asText(encoded));
        expect(fromUtf8(utf8(text))).toBe(new TextDecoder().decode(encoded));
      }),
      { numRuns: 5_000 },
    );
  });

  it('makes responses that keep their own bytes, one after another and past the buffer’s size', async () => {
    const texts = ['{"cityName":"Saint-Étienne"}', '{"cityName":"東京"}', `{"long":"${'ō'.repeat(70_000)}"}`, 'ascii'];
    const responses = texts.map((text) => withUtf8Body(utf8(text), (body) => new Response(body)));
    expect(await Promise.all(responses.map((response) => response.text()))).toEqual(texts);
  });

  it('gives ASCII text as it is, and other text as its bytes, only to the call that asked for them', () => {
    const seen: (string | number[])[] = [];
    const keep = (body: string | Uint8Array) => seen.push(typeof body === 'string' ? body : [...body]);
    withUtf8Body('abc' as Utf8, keep);
    withUtf8Body('\u00c3\u00a9' as Utf8, keep);
    withUtf8Body('\u00e6\u009d\u00b1' as Utf8, keep);
    expect(seen).toEqual(['abc', [0xc3, 0xa9], [0xe6, 0x9d, 0xb1]]);
  });
});
