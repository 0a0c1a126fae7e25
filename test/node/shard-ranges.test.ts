/**
 * @module The address ranges of a sharded database (`src/geo/shard-ranges.ts`), against an oracle of
 * its own: positions as 128-bit bigints made from ipaddr.js bytes, ranges searched one by one, RFC 5952
 * text from ipaddr.js. Where an address is answered follows MaxMind's aliases: IPv4 at ::a.b.c.d, and a
 * 6to4 address at the IPv4 address it embeds (RFC 3056, section 2).
 */
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import {
  effectivePosition,
  FIRST_POSITION,
  formatPosition,
  LAST_POSITION,
  type Position,
  parsePosition,
  parseRanges,
  shardIndexOf,
} from '../../src/geo/shard-ranges.ts';
import { parseIp } from '../../src/ip/address.ts';

const RUNS = { numRuns: 1000 };
const MAX = (1n << 128n) - 1n;

/** A position's 128 bits as one bigint. */
const big = (p: Position): bigint => (BigInt(p.w0) << 96n) | (BigInt(p.w1) << 64n) | (BigInt(p.w2) << 32n) | BigInt(p.w3);

/** The 16 bytes of a 128-bit value. */
const bytesOf = (value: bigint): number[] => Array.from({ length: 16 }, (_, i) => Number((value >> BigInt(8 * (15 - i))) & 0xffn));

/** IPv6 text of a 128-bit value, by ipaddr.js (RFC 5952, hexadecimal groups only). */
const ipv6Text = (value: bigint): string => (ipaddr.fromByteArray(bytesOf(value)) as ipaddr.IPv6).toRFC5952String();

/** Where the oracle places an address's text: by its bytes from ipaddr.js, IPv4 and IPv4-mapped at ::a.b.c.d, 6to4 at its embedded IPv4. */
function oraclePosition(text: string): bigint {
  const parsed = ipaddr.parse(text);
  const bytes = parsed.kind() === 'ipv4' ? [...new Array(12).fill(0), ...parsed.toByteArray()] : parsed.toByteArray();
  let value = bytes.reduce((sum, byte) => (sum << 8n) | BigInt(byte), 0n);
  if (value >> 32n === 0xffffn) value &= 0xffffffffn; // ::ffff:a.b.c.d
  if (value >> 112n === 0x2002n) value = (value >> 80n) & 0xffffffffn; // 2002:AABB:CCDD::/48
  return value;
}

const word = fc.integer({ min: 0, max: 0xffffffff });
/** 128-bit values, biased towards ::/96, ::ffff:0:0/96 and 2002::/16, where positions are special. */
const value128 = fc.oneof(
  fc.bigInt({ min: 0n, max: MAX }),
  word.map(BigInt),
  word.map((w) => 0xffff00000000n | BigInt(w)),
  fc.bigInt({ min: 0n, max: (1n << 112n) - 1n }).map((v) => (0x2002n << 112n) | v),
);

describe('effectivePosition', () => {
  it.each([
    ['81.2.69.142', 0x5102458en],
    ['::ffff:81.2.69.142', 0x5102458en],
    ['2002:5102:458e::1', 0x5102458en],
    ['2002:5102:458e:ffff:ffff:ffff:ffff:ffff', 0x5102458en],
    ['::81.2.69.142', 0x5102458en],
    ['2001:db8::1', 0x20010db8000000000000000000000001n],
    ['2003::', 0x2003n << 112n],
  ])('places %s where the tree answers it from', (text, expected) => {
    const address = parseIp(text);
    if (!address) throw new Error(`${text} does not parse`);
    expect(big(effectivePosition(address))).toBe(expected);
  });

  it('agrees with the oracle for any address text', () => {
    fc.assert(
      fc.property(value128, (value) => {
        const text = ipv6Text(value);
        const address = parseIp(text);
        expect(address && big(effectivePosition(address))).toBe(oraclePosition(text));
      }),
      RUNS,
    );
  });
});

describe('formatPosition and parsePosition', () => {
  it.each([
    [0n, '::'],
    [MAX, 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    [0x5102458en, '::81.2.69.142'],
    [1n, '::0.0.0.1'],
    [0xffff5102458en, '::ffff:81.2.69.142'],
    [0x20010db8000000000000000000000001n, '2001:db8::1'],
    [1n << 32n, '::1:0:0'],
  ])('writes %s as %s', (value, text) => {
    const position = parsePosition(text);
    expect(position && big(position)).toBe(value);
    expect(formatPosition(position as Position)).toBe(text);
  });

  it('writes RFC 5952 text, dotted in ::/96 and ::ffff:0:0/96, that reads back as the same position', () => {
    fc.assert(
      fc.property(value128, (value) => {
        const position = parsePosition(ipv6Text(value));
        if (!position) throw new Error(`${ipv6Text(value)} does not parse`);
        expect(big(position)).toBe(value);
        const text = formatPosition(position);
        const embedded = value > 0n && (value >> 32n === 0n || value >> 32n === 0xffffn);
        if (!embedded) expect(text).toBe(ipv6Text(value));
        else expect(text).toBe(`::${value >> 32n ? 'ffff:' : ''}${ipaddr.fromByteArray(bytesOf(value & 0xffffffffn).slice(12)).toString()}`);
        expect(big(parsePosition(text) as Position)).toBe(value);
      }),
      RUNS,
    );
  });

  it('refuses IPv4 text and anything that is no address', () => {
    for (const text of ['81.2.69.142', '', '::g', '1::2::3', '2001:db8::/32']) expect(parsePosition(text), text).toBeUndefined();
  });
});

describe('parseRanges', () => {
  const last = formatPosition(LAST_POSITION);

  it('reads ranges that tile the space', () => {
    const ranges = parseRanges([
      { first: '::', last: '::127.255.255.255' },
      { first: '::128.0.0.0', last: '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff' },
      { first: '2001:db8::', last },
    ]);
    expect(Array.isArray(ranges) && ranges.map((r) => [big(r.first), big(r.last)])).toEqual([
      [0n, 0x7fffffffn],
      [0x80000000n, 0x20010db7ffffffffffffffffffffffffn],
      [0x20010db8n << 96n, MAX],
    ]);
    expect(parseRanges([{ first: '::', last }])).toEqual([{ first: FIRST_POSITION, last: LAST_POSITION }]);
  });

  it.each([
    ['no range', [], /no shard/],
    ['a first range not at ::', [{ first: '::1', last }], /shard 0 starts at ::1, not ::/],
    [
      'a gap',
      [
        { first: '::', last: '::1' },
        { first: '::0.0.0.3', last },
      ],
      /shard 1 starts at ::0\.0\.0\.3, not ::0\.0\.0\.2/,
    ],
    [
      'an overlap',
      [
        { first: '::', last: '::0.0.0.3' },
        { first: '::0.0.0.3', last },
      ],
      /shard 1 starts at ::0\.0\.0\.3, not ::0\.0\.0\.4/,
    ],
    [
      'an end before the start',
      [
        { first: '::', last: '::' },
        { first: '::0.0.0.1', last: '::' },
      ],
      /shard 1 starts|shard 1 ends at ::, before it starts/,
    ],
    ['a last range short of the end', [{ first: '::', last: 'ffff::' }], /the last shard ends at ffff::, not ffff:ffff/],
    [
      'a range after the end',
      [
        { first: '::', last },
        { first: '::', last },
      ],
      /shard 1 starts at ::, not after the end of the space/,
    ],
    ['text that is no position', [{ first: '::', last: '10.0.0.1' }], /shard 0: "10\.0\.0\.1" is not an IPv6 position/],
  ])('refuses %s, saying what is wrong', (_what, ends, message) => {
    const result = parseRanges(ends);
    expect(Array.isArray(result) ? 'accepted' : result.error).toMatch(message);
  });
});

describe('shardIndexOf', () => {
  /** Sorted distinct cut points in 1..MAX: the first positions of shards 1..N-1. */
  const cuts = fc
    .uniqueArray(fc.oneof(value128, fc.bigInt({ min: 1n, max: 0x1_0000_0000n })), { minLength: 0, maxLength: 8 })
    .map((values) => values.filter((v) => v > 0n).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));

  it('finds the range holding the effective position of any address, IPv4, IPv4-mapped and 6to4 included', () => {
    fc.assert(
      fc.property(cuts, value128, fc.constantFrom('ipv6', 'ipv4', 'mapped', 'sixToFour'), (starts, value, form) => {
        const ends = [0n, ...starts].map((first, k) => ({ first: ipv6Text(first), last: ipv6Text(k < starts.length ? (starts[k] as bigint) - 1n : MAX) }));
        const ranges = parseRanges(ends);
        if (!Array.isArray(ranges)) throw new Error(ranges.error);
        const ipv4 = ipaddr.fromByteArray(bytesOf(value).slice(12)).toString();
        const text = {
          ipv6: ipv6Text(value),
          ipv4,
          mapped: `::ffff:${ipv4}`,
          sixToFour: ipv6Text((0x2002n << 112n) | ((value & 0xffffffffn) << 80n) | (value & 0xffffn)),
        }[form];
        const position = oraclePosition(text);
        const expected = [0n, ...starts].findLastIndex((first) => first <= position);
        const address = parseIp(text);
        expect(address && shardIndexOf(ranges, address)).toBe(expected);
      }),
      RUNS,
    );
  });
});
