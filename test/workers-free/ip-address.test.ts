/** @module Address parsing, canonical form and client keys, checked against the examples of RFC 5952, RFC 4291 and RFC 6052. */
import { describe, expect, it } from 'vitest';
import { IpAddressError, parseIpAddress } from '../../src/ip/address';
import { clientKey } from '../../src/ip/client-key';

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
