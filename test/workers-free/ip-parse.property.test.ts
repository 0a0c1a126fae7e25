/**
 * @module Property-based tests (fast-check) of address parsing: every valid textual form of an IPv4 or
 * IPv6 address parses to the canonical form that ipaddr.js gives for the same address (made from its
 * bytes, not from the text), and no input throws anything but `IpAddressError`.
 *
 * The parsers under test are named once, in {@link PARSERS}: the one parser of `src/ip/address.ts`
 * (`parseIp`, which answers undefined for text that is no address, and so must never throw) and its
 * throwing form `parseIpAddress`.
 */
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { IpAddressError, parseIp, parseIpAddress } from '../../src/ip/address.ts';

/** Each public parsing function, as text → canonical text; may throw `IpAddressError` only. */
const PARSERS: Readonly<Record<string, (text: string) => string>> = {
  parseIpAddress: (text) => parseIpAddress(text).canonical,
  parseIp: (text) => {
    const address = parseIp(text);
    if (address === undefined) throw new IpAddressError();
    return address.canonical;
  },
};

const RUNS = { numRuns: 2000 };

/** The canonical text of an address given as bytes, by ipaddr.js: IPv4-mapped IPv6 folded to IPv4, else RFC 5952. */
function expectedCanonical(bytes: readonly number[]): string {
  const address = ipaddr.fromByteArray([...bytes]);
  if (address.kind() === 'ipv4') return address.toString();
  const ipv6 = address as ipaddr.IPv6;
  return ipv6.isIPv4MappedAddress() ? ipv6.toIPv4Address().toString() : ipv6.toRFC5952String();
}

const byte = fc.integer({ min: 0, max: 255 });
const ipv4Bytes = fc.array(byte, { minLength: 4, maxLength: 4 });
/** IPv6 bytes, biased towards runs of zero groups and IPv4-mapped addresses, where the forms differ most. */
const ipv6Bytes = fc.oneof(
  fc.array(byte, { minLength: 16, maxLength: 16 }),
  fc.array(fc.oneof(fc.constant(0), fc.constant(0), byte), { minLength: 16, maxLength: 16 }),
  ipv4Bytes.map((v4) => [...Array(10).fill(0), 0xff, 0xff, ...v4]),
);

/** A textual form of IPv6 bytes: either case, optional leading zeros, one optional `::` over zero groups, optional dotted tail. */
const ipv6Text = ipv6Bytes.chain((bytes) => {
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number));
  return fc
    .record({
      upper: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      pad: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 8, maxLength: 8 }),
      dotted: fc.boolean(),
      compressFrom: fc.integer({ min: 0, max: 8 }),
      compressLength: fc.integer({ min: 0, max: 8 }),
    })
    .map(({ upper, pad, dotted, compressFrom, compressLength }) => {
      const hexGroups = dotted ? 6 : 8;
      const written = groups.slice(0, hexGroups).map((group, i) => {
        const hex = group.toString(16).padStart(Math.min(4, group.toString(16).length + (pad[i] as number)), '0');
        return upper[i] ? hex.toUpperCase() : hex;
      });
      // The longest run of zero groups from compressFrom, at most compressLength long (at least one group).
      let end = compressFrom;
      while (end < hexGroups && end - compressFrom < compressLength && groups[end] === 0) end++;
      const tail = dotted ? [bytes.slice(12).join('.')] : [];
      if (end > compressFrom) return `${written.slice(0, compressFrom).join(':')}::${[...written.slice(end), ...tail].join(':')}`;
      return [...written, ...tail].join(':');
    })
    .map((text) => ({ text, bytes }));
});

describe.each(Object.entries(PARSERS))('%s', (_, parse) => {
  it('reads every dotted quad as ipaddr.js writes it', () => {
    fc.assert(
      fc.property(ipv4Bytes, (bytes) => {
        expect(parse(bytes.join('.'))).toBe(expectedCanonical(bytes));
      }),
      RUNS,
    );
  });

  it('reads every textual form of an IPv6 address as the canonical form ipaddr.js gives', () => {
    fc.assert(
      fc.property(ipv6Text, ({ text, bytes }) => {
        expect(parse(text), text).toBe(expectedCanonical(bytes));
      }),
      RUNS,
    );
  });

  it('throws nothing but IpAddressError, and accepts only what ipaddr.js reads as the same address', () => {
    const nearAddress = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF:.'), maxLength: 48 });
    const anything = fc.oneof(nearAddress, fc.string({ maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 60 }));
    fc.assert(
      fc.property(anything, (text) => {
        let canonical: string;
        try {
          canonical = parse(text);
        } catch (error) {
          expect(error).toBeInstanceOf(IpAddressError);
          return;
        }
        expect(canonical, text).toBe(expectedCanonical(ipaddr.parse(text).toByteArray()));
      }),
      RUNS,
    );
  });
});
