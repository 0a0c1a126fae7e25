/**
 * @module The one address parser (`src/ip/address.ts`) against ipaddr.js, an independent parser read
 * by the rules the service documents (strict dotted quads, IPv4-mapped IPv6 folded, RFC 5952 text):
 * over seeded random addresses written in every form, the same version, canonical text and bits, or
 * the same refusal; and the special-range table against its own CIDR blocks.
 */
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { dottedQuad, type IpAddress, parseIp } from '../../src/ip/address.ts';
import { SPECIAL_RANGES, specialRangeOf } from '../../src/ip/special-ranges.ts';
import { type OracleAddress, oracleParse } from '../support/ip-oracle.ts';
import { seededRandom } from '../support/seeded-random.ts';

type Outcome = OracleAddress | 'invalid';
const reference = oracleParse;

function ours(text: string): Outcome {
  const address = parseIp(text);
  return address === undefined ? 'invalid' : { version: address.version, canonical: address.canonical, bytes: bytesOf(address) };
}

/** The 16 bytes in network order of an address's four 32-bit words. */
function bytesOf(address: IpAddress): number[] {
  return [address.w0, address.w1, address.w2, address.w3].flatMap((word) => [word >>> 24, (word >>> 16) & 255, (word >>> 8) & 255, word & 255]);
}

/** Random IPv6 groups, zero-heavy so that every shape of zero run occurs. */
function randomGroups(random: () => number): number[] {
  return Array.from({ length: 8 }, () => {
    const r = random();
    return r < 0.45 ? 0 : r < 0.55 ? Math.floor(random() * 16) : Math.floor(random() * 0x10000);
  });
}

/** Ways of writing one IPv6 address, canonical and not. */
function spellings(groups: number[], random: () => number): string[] {
  const address = new ipaddr.IPv6(groups);
  const canonical = address.toRFC5952String();
  const full = address.toNormalizedString();
  const padded = groups.map((g) => g.toString(16).padStart(4, '0')).join(':');
  const upper = canonical.toUpperCase();
  const dotted = `${groups
    .slice(0, 6)
    .map((g) => g.toString(16))
    .join(':')}:${(groups[6] as number) >> 8}.${(groups[6] as number) & 0xff}.${(groups[7] as number) >> 8}.${(groups[7] as number) & 0xff}`;
  // Compress a random zero run instead of the longest one (not canonical unless it is the one).
  const runs = [...full.matchAll(/(^|:)(0(:|$)){2,}/g)];
  const run = runs[Math.floor(random() * runs.length)];
  const other = run ? `${full.slice(0, run.index)}::${full.slice(run.index + run[0].length)}` : full;
  return [canonical, full, padded, upper, dotted, other, `${canonical}:`, `:${canonical}`, `${canonical}%eth0`];
}

describe('parseIp', () => {
  it('agrees with ipaddr.js on random IPv4 addresses and their malformed spellings', () => {
    const random = seededRandom(1);
    for (let i = 0; i < 5_000; i++) {
      const octets = Array.from({ length: 4 }, () =>
        random() < 0.1 ? [0, 10, 127, 169, 172, 192, 198, 224, 255][Math.floor(random() * 9)] : Math.floor(random() * 256),
      ) as number[];
      const text = octets.join('.');
      for (const spelling of [
        text,
        `0${text}`,
        `${text}.1`,
        octets.slice(0, 3).join('.'),
        `::ffff:${text}`,
        `::FFFF:${text}`,
        `${text} `,
        text.replace(/\.(\d)$/, '.0$1'),
      ]) {
        expect(ours(spelling), spelling).toEqual(reference(spelling));
      }
    }
  });

  it('agrees with ipaddr.js on random IPv6 addresses written every way', () => {
    const random = seededRandom(2);
    for (let i = 0; i < 5_000; i++) {
      const groups = randomGroups(random);
      if (random() < 0.2) groups[0] = [0x2001, 0x2002, 0x2620, 0xfe80, 0xfc00, 0xff02, 0x64, 0x100, 0x3fff][Math.floor(random() * 9)] as number;
      for (const spelling of spellings(groups, random)) expect(ours(spelling), spelling).toEqual(reference(spelling));
    }
  });

  it('agrees on every special-purpose range, at its first and last address, and finds the range there', () => {
    for (const range of SPECIAL_RANGES) {
      const [network, prefix] = ipaddr.parseCIDR(range.cidr);
      const bytes = network.toByteArray();
      const last = bytes.map((byte, i) => byte | (0xff >> Math.max(0, Math.min(8, prefix - i * 8))));
      for (const address of [ipaddr.fromByteArray(bytes).toString(), ipaddr.fromByteArray(last).toString()]) {
        expect(ours(address), address).toEqual(reference(address));
        // The range found is this one or one nested in it (the most specific block wins).
        const found = specialRangeOf(parseIp(address) as NonNullable<ReturnType<typeof parseIp>>);
        const [foundNetwork, foundPrefix] = ipaddr.parseCIDR(found?.cidr ?? '0.0.0.0/0');
        expect(
          foundNetwork.kind() === network.kind() && foundPrefix >= prefix && ipaddr.parse(address).match(network, prefix),
          `${address} in ${found?.cidr}`,
        ).toBe(true);
      }
    }
  });

  it('agrees on odd input', () => {
    for (const text of [
      '',
      ':',
      '::',
      ':::',
      '1',
      '1.2.3',
      '1.2.3.4.',
      '.1.2.3.4',
      '256.1.1.1',
      '1.2.3.04',
      '01.2.3.4',
      '1::2::3',
      'g::1',
      '2001:db8::1/64',
      '[2001:db8::1]',
      'ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255',
      '::ffff:1.2.3.4',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7::',
      '::2:3:4:5:6:7:8',
      '1:0:0:2:0:0:0:3',
      '1:0:0:2::3',
      '1::2:0:0:3',
      '0:0:1::1:1:1',
      '::1:0:0:1:1:1',
    ]) {
      expect(ours(text), JSON.stringify(text)).toEqual(reference(text));
    }
  });
});

describe('the forms clients send', () => {
  it('reads a dotted quad exactly when it is strict four-part decimal', () => {
    expect(dottedQuad('8.8.8.8')).toBe(0x08080808);
    expect(dottedQuad('255.255.255.255')).toBe(0xffffffff);
    expect(dottedQuad('0.0.0.0')).toBe(0);
    for (const text of ['08.8.8.8', '8.8.8', '8.8.8.8.8', '8.8.8.256', '8..8.8', '8.8.8.8 ', '0x8.8.8.8']) expect(dottedQuad(text), text).toBe(-1);
  });

  it('answers a canonical IPv6 text with itself as the canonical form', () => {
    const random = seededRandom(3);
    for (let i = 0; i < 5_000; i++) {
      const canonical = new ipaddr.IPv6(randomGroups(random)).toRFC5952String();
      const parsed = parseIp(canonical);
      if (parsed?.version === 6) expect(parsed.canonical, canonical).toBe(canonical);
    }
  });
});
