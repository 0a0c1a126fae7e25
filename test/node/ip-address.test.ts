/**
 * @module The address parser (`src/ip/address.ts`) and client keys (`src/ip/client-key.ts`): the
 * examples of RFC 5952, RFC 4291 and RFC 6052; then ipaddr.js, an independent parser read by the rules
 * the service documents (strict dotted quads, IPv4-mapped IPv6 folded, RFC 5952 text,
 * `test/support/ip-oracle.ts`), over seeded random addresses written in every form (the same version,
 * canonical text and bits, or the same refusal) and over fast-check's generated forms and junk (the
 * same canonical text; no error but `IpAddressError`). The parsers under fast-check are named once, in
 * {@link PARSERS}: `parseIp`, which answers undefined for text that is no address, and so must never
 * throw, and its throwing form `parseIpAddress`.
 */
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { dottedQuad, type IpAddress, IpAddressError, parseIp, parseIpAddress } from '../../src/ip/address.ts';
import { clientKey } from '../../src/ip/client-key.ts';
import { SPECIAL_RANGES, specialRangeOf } from '../../src/ip/special-ranges.ts';
import { type OracleAddress, oracleParse } from '../support/ip-oracle.ts';
import { seededRandom } from '../support/seeded-random.ts';

/** The error a call throws, so that its kind can be asserted. */
function errorOf(call: () => unknown): IpAddressError {
  try {
    call();
  } catch (error) {
    if (error instanceof IpAddressError) return error;
    throw error;
  }
  throw new Error('expected the call to throw an IpAddressError');
}

describe('parseIpAddress', () => {
  it('parses four-part dotted-decimal IPv4', () => {
    expect(parseIpAddress('192.0.2.1')).toEqual({ version: 4, canonical: '192.0.2.1', w0: 0, w1: 0, w2: 0, w3: 0xc0000201 });
    expect(parseIpAddress('0.0.0.0').canonical).toBe('0.0.0.0');
    expect(parseIpAddress('255.255.255.255').canonical).toBe('255.255.255.255');
  });

  it('places IPv4 at ::a.b.c.d in the 128 bits, where MaxMind DB trees hold IPv4', () => {
    // MaxMind DB spec: an IPv4 address in an IPv6 tree is looked up as ::a.b.c.d (96 zero bits first).
    expect(parseIpAddress('1.2.3.4')).toMatchObject({ w0: 0, w1: 0, w2: 0, w3: 0x01020304 });
  });

  it('parses IPv6 into its 128 bits, most significant first', () => {
    expect(parseIpAddress('2001:db8::1')).toEqual({ version: 6, canonical: '2001:db8::1', w0: 0x20010db8, w1: 0, w2: 0, w3: 1 });
  });

  // RFC 5952 section 2.1: eight spellings of one address; section 4 gives its canonical form.
  it.each([
    '2001:db8:0:0:1:0:0:1',
    '2001:0db8:0:0:1:0:0:1',
    '2001:db8::1:0:0:1',
    '2001:db8::0:1:0:0:1',
    '2001:0db8::1:0:0:1',
    '2001:db8:0:0:1::1',
    '2001:db8:0000:0:1::1',
    '2001:DB8:0:0:1::1',
  ])('writes %s as 2001:db8::1:0:0:1 (RFC 5952 section 2.1, 4.2.3)', (text) => {
    expect(parseIpAddress(text).canonical).toBe('2001:db8::1:0:0:1');
  });

  it.each([
    // 4.1: leading zeros suppressed.
    ['2001:0db8::0001', '2001:db8::1'],
    ['2001:db8:aaaa:bbbb:cccc:dddd:eeee:0001', '2001:db8:aaaa:bbbb:cccc:dddd:eeee:1'],
    ['2001:db8:aaaa:bbbb:cccc:dddd:eeee:001', '2001:db8:aaaa:bbbb:cccc:dddd:eeee:1'],
    ['2001:db8:aaaa:bbbb:cccc:dddd:eeee:01', '2001:db8:aaaa:bbbb:cccc:dddd:eeee:1'],
    // 4.2.1: "::" used to its maximum.
    ['2001:db8:0:0:0:0:2:1', '2001:db8::2:1'],
    ['2001:db8::0:1', '2001:db8::1'],
    ['2001:db8:0:0:0::1', '2001:db8::1'],
    ['2001:db8:0:0::1', '2001:db8::1'],
    ['2001:db8:0::1', '2001:db8::1'],
    // 4.2.2: a single 16-bit zero field is not compressed.
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:db8:aaaa:bbbb:cccc:dddd::1', '2001:db8:aaaa:bbbb:cccc:dddd:0:1'],
    // 4.2.3: the longest run is compressed; of equal runs, the first.
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['2001:db8:0:0:aaaa::1', '2001:db8::aaaa:0:0:1'],
    ['2001:db8::aaaa:0:0:1', '2001:db8::aaaa:0:0:1'],
    // 4.3: lower case.
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:db8:aaaa:bbbb:cccc:dddd:eeee:AAAA', '2001:db8:aaaa:bbbb:cccc:dddd:eeee:aaaa'],
    ['2001:db8:aaaa:bbbb:cccc:dddd:eeee:AaAa', '2001:db8:aaaa:bbbb:cccc:dddd:eeee:aaaa'],
    // RFC 4291 section 2.2: the unspecified and loopback addresses, full and compressed.
    ['0:0:0:0:0:0:0:0', '::'],
    ['::', '::'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['0000:0000:0000:0000:0000:0000:0000:0001', '::1'],
    ['FF01:0:0:0:0:0:0:101', 'ff01::101'],
    ['2001:DB8:0:0:8:800:200C:417A', '2001:db8::8:800:200c:417a'],
    // "::" may stand for a single zero field on input (RFC 4291 "one or more groups").
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['::2:3:4:5:6:7:8', '0:2:3:4:5:6:7:8'],
  ])('writes %s as %s (RFC 5952 section 4)', (text, canonical) => {
    expect(parseIpAddress(text).canonical).toBe(canonical);
  });

  it('folds IPv4-mapped addresses to IPv4', () => {
    for (const text of ['::ffff:1.2.3.4', '::FFFF:1.2.3.4', '0:0:0:0:0:ffff:1.2.3.4', '::ffff:102:304', '::ffff:0102:0304']) {
      expect(parseIpAddress(text)).toEqual(parseIpAddress('1.2.3.4'));
    }
    expect(parseIpAddress('::ffff:0.0.0.0').canonical).toBe('0.0.0.0');
    expect(parseIpAddress('::ffff:255.255.255.255').canonical).toBe('255.255.255.255');
  });

  it('keeps other embedded IPv4 forms as IPv6, in hexadecimal', () => {
    // RFC 6052 section 2.4: 192.0.2.33 under the well-known prefix is 64:ff9b::c000:221.
    expect(parseIpAddress('64:ff9b::192.0.2.33')).toMatchObject({ version: 6, canonical: '64:ff9b::c000:221' });
    expect(parseIpAddress('64:ff9b::1.2.3.4').canonical).toBe('64:ff9b::102:304');
    // RFC 4291 section 2.5.5.1: ::a.b.c.d is the deprecated IPv4-compatible form, not IPv4-mapped.
    expect(parseIpAddress('::1.2.3.4')).toMatchObject({ version: 6, canonical: '::102:304' });
    expect(parseIpAddress('1:2:3:4:5:6:1.2.3.4').canonical).toBe('1:2:3:4:5:6:102:304');
  });

  it.each([
    ['empty text', ''],
    ['three parts', '1.2.3'],
    ['five parts', '1.2.3.4.5'],
    ['two parts', '1.2'],
    ['a single 32-bit number', '16909060'],
    ['a hex octet', '0x01.2.3.4'],
    ['a hex last octet', '1.2.3.0xff'],
    ['a leading zero (octal-looking)', '01.2.3.4'],
    ['a leading zero in the last octet', '1.2.3.04'],
    ['an octet over 255', '256.1.1.1'],
    ['an empty octet', '1..2.3'],
    ['a trailing dot', '1.2.3.4.'],
    ['a negative octet', '1.2.3.-4'],
    ['a port', '1.2.3.4:80'],
    ['a prefix length', '1.2.3.4/32'],
    ['non-ASCII digits', '１.2.3.4'],
    ['a host name', 'localhost'],
    ['seven IPv6 groups', '1:2:3:4:5:6:7'],
    ['nine IPv6 groups', '1:2:3:4:5:6:7:8:9'],
    ['two "::"', '1::2::3'],
    ['":::"', ':::1'],
    ['a trailing single colon', '::1:'],
    ['a leading single colon', ':1::'],
    ['a group of five digits', '12345::1'],
    ['a group of five zero digits', '00000::1'],
    ['a non-hex digit', 'g::1'],
    ['an IPv6 prefix length', '2001:db8::/32'],
    ['brackets', '[::1]'],
    ['a hex octet in embedded IPv4', '::ffff:0x01.2.3.4'],
    ['a leading zero in embedded IPv4', '::ffff:01.2.3.4'],
    ['three-part embedded IPv4', '::ffff:1.2.3'],
    ['an embedded IPv4 octet over 255', '::ffff:256.2.3.4'],
    ['embedded IPv4 after seven groups', '1:2:3:4:5:6:7:1.2.3.4'],
    ['embedded IPv4 not at the end', '1.2.3.4::'],
    ['dots before the last colon', '1.2::3.4.5.6'],
    ['very long text', `${'0'.repeat(10_000)}::1`],
  ])('rejects %s as invalid', (_, text) => {
    expect(errorOf(() => parseIpAddress(text)).kind).toBe('invalid');
  });

  it.each([
    ['a leading space', ' 1.2.3.4'],
    ['a trailing space', '1.2.3.4 '],
    ['a trailing newline', '1.2.3.4\n'],
    ['a leading tab', '\t::1'],
    ['a trailing space after IPv6', '::1 '],
    ['an inner space', '1.2. 3.4'],
    ['a no-break space', '\u00a08.8.8.8'],
  ])('rejects whitespace: %s', (_, text) => {
    expect(errorOf(() => parseIpAddress(text)).kind).toBe('invalid');
  });

  it.each(['fe80::1%eth0', 'fe80::1%1', 'fe80::1%25eth0', '::ffff:1.2.3.4%eth0', 'fe80::1%'])('rejects the zone id in %s', (text) => {
    expect(errorOf(() => parseIpAddress(text)).kind).toBe('invalid');
  });

  it('gives an invalid error a message that does not echo the input', () => {
    const error = errorOf(() => parseIpAddress('<script>'));
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('IpAddressError');
    expect(error.message).not.toContain('<script>');
  });
});

describe('clientKey', () => {
  it('keys IPv4 by the address itself, with no subnet', () => {
    expect(clientKey('203.0.113.7')).toEqual({ network: '203.0.113.7', subnet: null });
  });

  it('keys IPv4-mapped addresses as IPv4', () => {
    expect(clientKey('::ffff:203.0.113.7')).toEqual({ network: '203.0.113.7', subnet: null });
    expect(clientKey('::FFFF:cb00:7107')).toEqual({ network: '203.0.113.7', subnet: null });
  });

  it('keys IPv6 by its /48 in canonical form and its /64 within it (the fourth group)', () => {
    expect(clientKey('2001:db8:1:2:a:b:c:d')).toEqual({ network: '2001:db8:1::/48', subnet: 2 });
    expect(clientKey('2001:0DB8:0000:0000:0001:0000:0000:0001')).toEqual({ network: '2001:db8::/48', subnet: 0 });
    expect(clientKey('::1')).toEqual({ network: '::/48', subnet: 0 });
    expect(clientKey('2a00:1450:4001:82b:ffff:ffff:ffff:ffff')).toEqual({ network: '2a00:1450:4001::/48', subnet: 0x82b });
    expect(clientKey('ffff:ffff:ffff:ffff::')).toEqual({ network: 'ffff:ffff:ffff::/48', subnet: 0xffff });
  });

  it('keys random IPv6 addresses by the /48 and the fourth group that ipaddr.js reads', () => {
    const random = seededRandom(48);
    for (let i = 0; i < 2_000; i++) {
      const groups = randomGroups(random);
      const address = new ipaddr.IPv6(groups);
      if (address.isIPv4MappedAddress()) continue;
      const network = ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/48`).toRFC5952String();
      expect(clientKey(address.toNormalizedString()), address.toString()).toEqual({ network: `${network}/48`, subnet: groups[3] });
    }
  });

  it('gives two addresses in the same /64 the same key', () => {
    expect(clientKey('2001:db8:1:2::1')).toEqual(clientKey('2001:DB8:1:2:ffff:ffff:ffff:ffff'));
    expect(clientKey('2001:db8:1:2::1')).toEqual(clientKey('2001:db8:1:2:8000::'));
  });

  it('gives /64s of one /48 the same network and different subnets, and other /48s other networks', () => {
    expect(clientKey('2001:db8:1:3::1')).toEqual({ network: '2001:db8:1::/48', subnet: 3 });
    expect(clientKey('2001:db8:1:103::1')).toEqual({ network: '2001:db8:1::/48', subnet: 0x103 });
    expect(clientKey('2001:db8:2:2::1').network).not.toBe(clientKey('2001:db8:1:2::1').network);
    expect(clientKey('2001:db9:1:2::1').network).not.toBe(clientKey('2001:db8:1:2::1').network);
    expect(clientKey('1.2.3.4').network).not.toBe(clientKey('1.2.3.5').network);
  });

  it('rejects invalid addresses', () => {
    expect(errorOf(() => clientKey('')).kind).toBe('invalid');
    expect(errorOf(() => clientKey('1.2.3.4, 5.6.7.8')).kind).toBe('invalid');
    expect(errorOf(() => clientKey('fe80::1%eth0')).kind).toBe('invalid');
    for (const text of ['203.0.113', '203.0.113.256', '203.0.113.7.1', '203.0.113.07', ' 203.0.113.7']) {
      expect(errorOf(() => clientKey(text)).kind, text).toBe('invalid');
    }
  });
});

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

describe('parseIp against ipaddr.js, over seeded random addresses', () => {
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

describe('fast-check properties against ipaddr.js', () => {
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
});
