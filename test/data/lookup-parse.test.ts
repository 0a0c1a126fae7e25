/**
 * @module The lookup's fast address parser (`src/lookup/parse.ts`) against the definition it shortcuts,
 * `parseAndCheckPublic` (`src/ip/`): over seeded random addresses written in every form, the same
 * version, canonical text and bytes, or the same error; and the fast paths taken for exactly the
 * canonical forms.
 */
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { dottedQuad, IpAddressError } from '../../src/ip/address.ts';
import { parseAndCheckPublic, SPECIAL_RANGES } from '../../src/ip/special-ranges.ts';
import { canonicalIpv6, newPublicAddress, parsePublicAddress } from '../../src/lookup/parse.ts';
import { seededRandom } from '../support/seeded-random.ts';

type Outcome = { version: 4 | 6; canonical: string; bytes: number[] } | { error: string; message: string };

function reference(text: string): Outcome {
  try {
    const parsed = parseAndCheckPublic(text);
    return { version: parsed.version, canonical: parsed.canonical, bytes: Array.from(parsed.bytes) };
  } catch (error) {
    if (error instanceof IpAddressError) return { error: error.kind, message: error.message };
    throw error;
  }
}

const out = newPublicAddress();
function fast(text: string): Outcome {
  try {
    const parsed = parsePublicAddress(text, out);
    const bytes = new Uint8Array(16);
    if (parsed.version === 4) bytes.set([parsed.ipv4 >>> 24, (parsed.ipv4 >>> 16) & 0xff, (parsed.ipv4 >>> 8) & 0xff, parsed.ipv4 & 0xff], 12);
    else bytes.set(parsed.bytes);
    return { version: parsed.version, canonical: parsed.canonical, bytes: Array.from(bytes) };
  } catch (error) {
    if (error instanceof IpAddressError) return { error: error.kind, message: error.message };
    throw error;
  }
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

/** How many runs of two or more zero groups an address has. */
function zeroRuns(groups: number[]): number {
  let runs = 0;
  for (let i = 0; i < groups.length; i++) {
    if (groups[i] === 0 && groups[i + 1] === 0 && (i === 0 || groups[i - 1] !== 0)) runs++;
  }
  return runs;
}

describe('parsePublicAddress', () => {
  it('agrees with parseAndCheckPublic on random IPv4 addresses and their malformed spellings', () => {
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
        expect(fast(spelling), spelling).toEqual(reference(spelling));
      }
    }
  });

  it('agrees with parseAndCheckPublic on random IPv6 addresses written every way', () => {
    const random = seededRandom(2);
    for (let i = 0; i < 5_000; i++) {
      const groups = randomGroups(random);
      if (random() < 0.2) groups[0] = [0x2001, 0x2002, 0x2620, 0xfe80, 0xfc00, 0xff02, 0x64, 0x100, 0x3fff][Math.floor(random() * 9)] as number;
      for (const spelling of spellings(groups, random)) expect(fast(spelling), spelling).toEqual(reference(spelling));
    }
  });

  it('agrees on every special-purpose range, at its first and last address', () => {
    for (const range of SPECIAL_RANGES) {
      const [network, prefix] = ipaddr.parseCIDR(range.cidr);
      const bytes = network.toByteArray();
      const last = bytes.map((byte, i) => byte | (0xff >> Math.max(0, Math.min(8, prefix - i * 8))));
      for (const address of [ipaddr.fromByteArray(bytes).toString(), ipaddr.fromByteArray(last).toString()]) {
        expect(fast(address), address).toEqual(reference(address));
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
      expect(fast(text), JSON.stringify(text)).toEqual(reference(text));
    }
  });
});

describe('the fast paths', () => {
  it('read a dotted quad exactly when it is strict four-part decimal', () => {
    expect(dottedQuad('8.8.8.8')).toBe(0x08080808);
    expect(dottedQuad('255.255.255.255')).toBe(0xffffffff);
    expect(dottedQuad('0.0.0.0')).toBe(0);
    for (const text of ['08.8.8.8', '8.8.8', '8.8.8.8.8', '8.8.8.256', '8..8.8', '8.8.8.8 ', '0x8.8.8.8']) expect(dottedQuad(text), text).toBe(-1);
  });

  it('read IPv6 exactly when the text is its own RFC 5952 form with one compressed run', () => {
    const random = seededRandom(3);
    const bytes = new Uint8Array(16);
    let taken = 0;
    for (let i = 0; i < 20_000; i++) {
      const address = new ipaddr.IPv6(randomGroups(random));
      const canonical = address.toRFC5952String();
      if (canonicalIpv6(canonical, bytes)) {
        taken++;
        expect(Array.from(bytes), canonical).toEqual(address.toByteArray());
      } else {
        // Declined only where two runs of zeros make "first longest" ambiguous between implementations,
        // and for `::` (special-purpose in any case).
        expect(canonical === '::' || zeroRuns(address.parts) >= 2, canonical).toBe(true);
      }
      for (const other of [address.toNormalizedString(), canonical.toUpperCase()]) {
        if (other !== canonical) expect(canonicalIpv6(other, bytes), other).toBe(false);
      }
    }
    expect(taken).toBeGreaterThan(10_000);
  });
});
