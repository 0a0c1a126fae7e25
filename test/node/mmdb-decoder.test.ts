/**
 * @module The full decoder (src/mmdb/decoder.ts, `decode`) on every MMDB type, against mmdb-lib reading
 * the same bytes, and on malformed sections that it must refuse with a format error.
 */
import { Reader } from 'mmdb-lib';
import Decoder from 'mmdb-lib/lib/decoder';
import { describe, expect, it } from 'vitest';
import { type MmdbValue, mmdbType } from '../../data/mmdb/data-section.ts';
import { parseNetwork } from '../../data/mmdb/network.ts';
import { MmdbDecoder, MmdbFormatError } from '../../src/mmdb/decoder.ts';
import { MmdbReader } from '../../src/mmdb/reader.ts';
import { MmdbWriter } from '../support/mmdb-writer.ts';

/** Every type, at the edges of its sizes; repeated strings and maps are written as pointers. */
const EVERY_TYPE: Record<string, MmdbValue> = {
  strings: ['', 'a', 'Zürich 東京 🌍', 'x'.repeat(28), 'x'.repeat(29), 'y'.repeat(285), 'z'.repeat(65_821), 'a', 'Zürich 東京 🌍'],
  doubles: [mmdbType.double(0), mmdbType.double(-42.123456789), mmdbType.double(1.7976931348623157e308)],
  floats: [mmdbType.float(0), mmdbType.float(1.1), mmdbType.float(-3.4e38)],
  bytes: [new Uint8Array(0), Uint8Array.of(0, 0, 0, 42), new Uint8Array(300).fill(7)],
  uint16: [mmdbType.uint16(0), mmdbType.uint16(100), mmdbType.uint16(65_535)],
  uint32: [mmdbType.uint32(0), mmdbType.uint32(268_435_456), mmdbType.uint32(2 ** 32 - 1)],
  int32: [mmdbType.int32(0), mmdbType.int32(1), mmdbType.int32(-1), mmdbType.int32(-268_435_456), mmdbType.int32(2 ** 31 - 1), mmdbType.int32(-(2 ** 31))],
  uint64: [0n, 1n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 60n, 2n ** 64n - 1n].map(mmdbType.uint64),
  uint128: [0n, 1n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 120n, 2n ** 128n - 1n].map(mmdbType.uint128),
  booleans: [true, false],
  maps: [{}, { en: 'Germany', de: 'Deutschland' }, { nested: { deeper: { en: 'Germany', de: 'Deutschland' } } }],
  arrays: [[], [[]], [1, [2, [3]]], Array.from({ length: 300 }, (_, i) => i)],
};

/** mmdb-lib's value as our decoder's documented shapes: integers up to 2⁵³ as numbers, bytes as a plain Uint8Array. */
function asOurs(value: unknown): unknown {
  if (typeof value === 'bigint') return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (Array.isArray(value)) return value.map(asOurs);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asOurs(v)]));
  return value;
}

describe('decoding every type', () => {
  const writer = new MmdbWriter({ ipVersion: 6, databaseType: 'decoder-test', extra: { every_type: EVERY_TYPE } });
  writer.insert(parseNetwork('1.1.1.0/24'), EVERY_TYPE);
  // The same parts again, so that the second record reaches them by pointer.
  writer.insert(parseNetwork('2.2.2.0/24'), { again: EVERY_TYPE, strings: EVERY_TYPE.strings as MmdbValue });
  const bytes = Buffer.from(writer.build());
  const ours = new MmdbReader(bytes);
  const theirs = new Reader(bytes);
  const dataStart = (ours.metadata.nodeCount * ours.metadata.recordSize) / 4 + 16;

  it.each(['1.1.1.1', '2.2.2.2'])('decodes the record of %s as mmdb-lib does, and skips it to where mmdb-lib ends', (address) => {
    const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
    const offset = ours.offsetOfIpv4(((a << 24) | (b << 16) | (c << 8) | d) >>> 0);
    expect(ours.decode(offset)).toEqual(asOurs(theirs.get(address)));
    expect(ours.data.skip(offset)).toBe(new Decoder(bytes, dataStart).decode(dataStart + offset).offset - dataStart);
  });

  it('decodes the metadata map as mmdb-lib does', () => {
    const start = bytes.lastIndexOf(Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1')) + 14;
    expect(ours.metadata.map).toEqual(asOurs(new Decoder(bytes, start).decode(start).value));
  });

  it('returns bytes as a copy, not a view of the file', () => {
    const { bytes: decoded } = ours.metadata.map.every_type as { bytes: Uint8Array[] };
    expect(decoded[1]?.buffer).not.toBe(bytes.buffer);
  });
});

describe('following pointers', () => {
  // MaxMind-DB-spec.md, "Pointer - 1": the target of each size class, from its value bits VVV and the bytes after it.
  it.each([
    ['size 0', [0x21, 0x23], (1 << 8) | 0x23],
    ['size 1', [0x2a, 0x01, 0x02], ((2 << 16) | 0x0102) + 2048],
    ['size 2', [0x31, 0x01, 0x00, 0x00], 1 * 2 ** 24 + 0x010000 + 526_336],
    ['size 3', [0x3f, 0x01, 0x0c, 0x35, 0x00], 0x010c3500],
  ])('follows a pointer of %s to where the specification and mmdb-lib say', (_size, pointer, target) => {
    const section = Buffer.alloc(target + 2);
    section.set(pointer, 0);
    section.set([0x41, 0x78], target); // the string "x"
    const ours = new MmdbDecoder(section);
    expect(ours.decode(0)).toBe('x');
    expect(new Decoder(section, 0).decode(0).value).toBe('x');
    expect(ours.target(0)).toBe(target);
    expect(ours.skip(0)).toBe(pointer.length);
  });
});

describe('decoding malformed data', () => {
  // Each section starts with the value decoded, at offset 0.
  it.each([
    ['a pointer to a pointer', [0x20, 0x02, 0x20, 0x00], /pointer to a pointer/],
    ['a pointer outside the section', [0x20, 0x10], /outside the section/],
    ['a map key that is not a string', [0xe1, 0xc1, 0x01, 0xc1, 0x02], /map key is not a string/],
    ['a string that runs past the end', [0x45, 0x61], /runs past the end/],
    ['a map that runs past the end', [0xe2, 0x41, 0x61, 0x41, 0x62], /past the end/],
    ['invalid UTF-8', [0x41, 0xff], /invalid UTF-8/],
    ['a uint16 of 3 bytes', [0xa3, 1, 2, 3], /size 3/],
    ['a uint128 of 17 bytes', [0x11, 0x03, ...new Array(17).fill(1)], /size 17/],
    ['a double of 4 bytes', [0x64, 0, 0, 0, 0], /size 4/],
    ['a float of 8 bytes', [0x08, 0x08, 0, 0, 0, 0, 0, 0, 0, 0], /size 8/],
    ['a boolean of value 2', [0x02, 0x07], /size 2/],
    ['an extended type below 8', [0x00, 0x00], /unknown extended type 7/],
    ['an extended type above 15', [0x00, 0x09], /unknown extended type 16/],
    ['the data cache container type', [0x00, 0x05], /unexpected type 12/],
    ['the end marker type', [0x00, 0x06], /unexpected type 13/],
    ['arrays nested deeper than 512 levels', new Array(600).fill([0x01, 0x04]).flat(), /nested deeper than 512/],
  ])('refuses %s', (_what, section, message) => {
    const decoder = new MmdbDecoder(Uint8Array.from(section as number[]));
    expect(() => decoder.decode(0)).toThrow(MmdbFormatError);
    expect(() => decoder.decode(0)).toThrow(message);
  });
});
