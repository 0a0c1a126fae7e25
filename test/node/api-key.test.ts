/**
 * @module API keys' checksum (`src/access/api-key.ts`), checked against Node's own CRC-32 (zlib's,
 * `node:zlib` `crc32`) and a base62 decoding of its own, so that no expected value comes from the
 * code under test.
 */
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { apiKeyForm, generateApiKey } from '../../src/access/api-key.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The number that base62 digits (most significant first) stand for. */
function base62Value(digits: string): bigint {
  let value = 0n;
  for (const digit of digits) value = value * 62n + BigInt(BASE62.indexOf(digit));
  return value;
}

describe('API keys', () => {
  it('makes keys whose last six characters are the base62 CRC-32 of the rest', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(/^ipgeo_[0-9A-Za-z]{49}$/);
      expect(base62Value(key.slice(-6))).toBe(BigInt(zlibCrc32(Buffer.from(key.slice(0, -6), 'latin1'))));
      expect(apiKeyForm(key)).toBe('checksummed');
    }
  });

  it('uses every base62 character in the random part, about equally often', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) for (const character of generateApiKey().slice(6, 49)) counts.set(character, (counts.get(character) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 86,000 characters: about 1,387 each; a uniform draw stays within ±15% of that (over 5 standard deviations).
    for (const [character, count] of counts) expect(Math.abs(count - 86_000 / 62), character).toBeLessThan(0.15 * (86_000 / 62));
  });

  it('tells keys that fail their checksum and keys without one', () => {
    const key = generateApiKey();
    for (let at = 6; at < key.length; at++) {
      const replaced = BASE62[(BASE62.indexOf(key[at] as string) + 1) % 62] as string;
      expect(apiKeyForm(key.slice(0, at) + replaced + key.slice(at + 1)), `character ${at}`).toBe('malformed');
    }
    expect(apiKeyForm(`ipgeo_${'Ab-_'.repeat(10)}xyz`)).toBe('legacy');
    for (const text of ['', 'ipgeo_', key.slice(1), `${key}0`, key.toUpperCase(), `IPGEO_${key.slice(6)}`, `ipgeo_${'Ab-_'.repeat(10)}xy`]) {
      expect(apiKeyForm(text), text).toBe('malformed');
    }
  });
});
