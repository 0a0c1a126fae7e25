/** @module Special-purpose ranges, checked against a table copied from the IANA registries and against ipaddr.js's own tables. */
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { parseIp } from '../../src/ip/address.ts';
import { rangeWithArticle, SPECIAL_RANGES, specialRangeOf } from '../../src/ip/special-ranges.ts';

interface RegistryRow {
  cidr: string;
  rfc: string;
  name: string;
  /** Addresses in this block and in no more specific one: its first and last address where those are not shadowed. */
  inside: string[];
  /** The addresses just below and just above the block, where those are public. */
  outside: string[];
}

const F = 'ffff';

/**
 * Written from the IANA IPv4 and IPv6 Special-Purpose Address Registries (Address Block and RFC columns;
 * for several RFCs, the one that defines the block), RFC 5771 and RFC 4291 for multicast, RFC 4291
 * section 2.5.5.1 (IPv4-compatible), RFC 2765 section 2.1 (IPv4-translated) and RFC 3879 (site-local).
 */
const REGISTRY: RegistryRow[] = [
  // IPv4
  {
    cidr: '0.0.0.0/8',
    rfc: 'RFC 791',
    name: 'thisNetwork',
    inside: ['0.0.0.1', '0.255.255.255'],
    outside: ['1.0.0.0'],
  },
  { cidr: '0.0.0.0/32', rfc: 'RFC 1122', name: 'unspecified', inside: ['0.0.0.0'], outside: [] },
  {
    cidr: '10.0.0.0/8',
    rfc: 'RFC 1918',
    name: 'private',
    inside: ['10.0.0.0', '10.255.255.255'],
    outside: ['9.255.255.255', '11.0.0.0'],
  },
  {
    cidr: '100.64.0.0/10',
    rfc: 'RFC 6598',
    name: 'carrierGradeNat',
    inside: ['100.64.0.0', '100.127.255.255'],
    outside: ['100.63.255.255', '100.128.0.0'],
  },
  {
    cidr: '127.0.0.0/8',
    rfc: 'RFC 1122',
    name: 'loopback',
    inside: ['127.0.0.0', '127.255.255.255'],
    outside: ['126.255.255.255', '128.0.0.0'],
  },
  {
    cidr: '169.254.0.0/16',
    rfc: 'RFC 3927',
    name: 'linkLocal',
    inside: ['169.254.0.0', '169.254.255.255'],
    outside: ['169.253.255.255', '169.255.0.0'],
  },
  {
    cidr: '172.16.0.0/12',
    rfc: 'RFC 1918',
    name: 'private',
    inside: ['172.16.0.0', '172.31.255.255'],
    outside: ['172.15.255.255', '172.32.0.0'],
  },
  {
    cidr: '192.0.0.0/24',
    rfc: 'RFC 6890',
    name: 'ietfProtocolAssignments',
    inside: ['192.0.0.11', '192.0.0.169', '192.0.0.172', '192.0.0.255'],
    outside: ['191.255.255.255', '192.0.1.0'],
  },
  { cidr: '192.0.0.0/29', rfc: 'RFC 7335', name: 'serviceContinuity', inside: ['192.0.0.0', '192.0.0.7'], outside: [] },
  { cidr: '192.0.0.8/32', rfc: 'RFC 7600', name: 'dummy', inside: ['192.0.0.8'], outside: [] },
  { cidr: '192.0.0.9/32', rfc: 'RFC 7723', name: 'anycast', inside: ['192.0.0.9'], outside: [] },
  { cidr: '192.0.0.10/32', rfc: 'RFC 8155', name: 'anycast', inside: ['192.0.0.10'], outside: [] },
  { cidr: '192.0.0.170/32', rfc: 'RFC 7050', name: 'nat64Discovery', inside: ['192.0.0.170'], outside: [] },
  { cidr: '192.0.0.171/32', rfc: 'RFC 7050', name: 'nat64Discovery', inside: ['192.0.0.171'], outside: [] },
  {
    cidr: '192.0.2.0/24',
    rfc: 'RFC 5737',
    name: 'documentation',
    inside: ['192.0.2.0', '192.0.2.255'],
    outside: ['192.0.1.255', '192.0.3.0'],
  },
  {
    cidr: '192.31.196.0/24',
    rfc: 'RFC 7535',
    name: 'as112',
    inside: ['192.31.196.0', '192.31.196.255'],
    outside: ['192.31.195.255', '192.31.197.0'],
  },
  {
    cidr: '192.52.193.0/24',
    rfc: 'RFC 7450',
    name: 'amt',
    inside: ['192.52.193.0', '192.52.193.255'],
    outside: ['192.52.192.255', '192.52.194.0'],
  },
  {
    cidr: '192.88.99.0/24',
    rfc: 'RFC 7526',
    name: 'relayAnycast',
    inside: ['192.88.99.0', '192.88.99.1', '192.88.99.3', '192.88.99.255'],
    outside: ['192.88.98.255', '192.88.100.0'],
  },
  { cidr: '192.88.99.2/32', rfc: 'RFC 6751', name: 'relayAnycast', inside: ['192.88.99.2'], outside: [] },
  {
    cidr: '192.168.0.0/16',
    rfc: 'RFC 1918',
    name: 'private',
    inside: ['192.168.0.0', '192.168.255.255'],
    outside: ['192.167.255.255', '192.169.0.0'],
  },
  {
    cidr: '192.175.48.0/24',
    rfc: 'RFC 7534',
    name: 'as112',
    inside: ['192.175.48.0', '192.175.48.255'],
    outside: ['192.175.47.255', '192.175.49.0'],
  },
  {
    cidr: '198.18.0.0/15',
    rfc: 'RFC 2544',
    name: 'benchmarking',
    inside: ['198.18.0.0', '198.19.255.255'],
    outside: ['198.17.255.255', '198.20.0.0'],
  },
  {
    cidr: '198.51.100.0/24',
    rfc: 'RFC 5737',
    name: 'documentation',
    inside: ['198.51.100.0', '198.51.100.255'],
    outside: ['198.51.99.255', '198.51.101.0'],
  },
  {
    cidr: '203.0.113.0/24',
    rfc: 'RFC 5737',
    name: 'documentation',
    inside: ['203.0.113.0', '203.0.113.255'],
    outside: ['203.0.112.255', '203.0.114.0'],
  },
  {
    cidr: '224.0.0.0/4',
    rfc: 'RFC 5771',
    name: 'multicast',
    inside: ['224.0.0.0', '239.255.255.255'],
    outside: ['223.255.255.255'],
  },
  { cidr: '240.0.0.0/4', rfc: 'RFC 1112', name: 'reserved', inside: ['240.0.0.0', '255.255.255.254'], outside: [] },
  { cidr: '255.255.255.255/32', rfc: 'RFC 919', name: 'broadcast', inside: ['255.255.255.255'], outside: [] },
  // IPv6
  { cidr: '::/128', rfc: 'RFC 4291', name: 'unspecified', inside: ['::'], outside: [] },
  { cidr: '::1/128', rfc: 'RFC 4291', name: 'loopback', inside: ['::1'], outside: [] },
  {
    cidr: '::/96',
    rfc: 'RFC 4291',
    name: 'ipv4Compatible',
    inside: ['::2', '::ffff:ffff', '::8.8.8.8'],
    outside: ['::1:0:0'],
  },
  {
    cidr: '::ffff:0:0:0/96',
    rfc: 'RFC 2765',
    name: 'ipv4Translated',
    inside: ['::ffff:0:0:0', '::ffff:0:ffff:ffff', '::ffff:0:1.2.3.4'],
    outside: ['::fffe:ffff:ffff:ffff', '0:0:0:1::'],
  },
  {
    cidr: '64:ff9b::/96',
    rfc: 'RFC 6052',
    name: 'translation',
    inside: ['64:ff9b::', '64:ff9b::ffff:ffff', '64:ff9b::8.8.8.8'],
    outside: [`64:ff9a:${F}:${F}:${F}:${F}:${F}:${F}`, '64:ff9b::1:0:0'],
  },
  {
    cidr: '64:ff9b:1::/48',
    rfc: 'RFC 8215',
    name: 'translation',
    inside: ['64:ff9b:1::', `64:ff9b:1:${F}:${F}:${F}:${F}:${F}`],
    outside: [`64:ff9b:0:${F}:${F}:${F}:${F}:${F}`, '64:ff9b:2::'],
  },
  {
    cidr: '100::/64',
    rfc: 'RFC 6666',
    name: 'discard',
    inside: ['100::', `100::${F}:${F}:${F}:${F}`],
    outside: [`ff:${F}:${F}:${F}:${F}:${F}:${F}:${F}`],
  },
  {
    cidr: '100:0:0:1::/64',
    rfc: 'RFC 9780',
    name: 'dummy',
    inside: ['100:0:0:1::', `100::1:${F}:${F}:${F}:${F}`],
    outside: ['100:0:0:2::'],
  },
  {
    cidr: '2001::/23',
    rfc: 'RFC 2928',
    name: 'ietfProtocolAssignments',
    inside: ['2001:1::', '2001:1::4', '2001:5::', `2001:1ff:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [`2000:${F}:${F}:${F}:${F}:${F}:${F}:${F}`, '2001:200::'],
  },
  {
    cidr: '2001::/32',
    rfc: 'RFC 4380',
    name: 'teredo',
    inside: ['2001::', `2001:0:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [],
  },
  { cidr: '2001:1::1/128', rfc: 'RFC 7723', name: 'anycast', inside: ['2001:1::1'], outside: [] },
  { cidr: '2001:1::2/128', rfc: 'RFC 8155', name: 'anycast', inside: ['2001:1::2'], outside: [] },
  { cidr: '2001:1::3/128', rfc: 'RFC 9665', name: 'anycast', inside: ['2001:1::3'], outside: [] },
  {
    cidr: '2001:2::/48',
    rfc: 'RFC 5180',
    name: 'benchmarking',
    inside: ['2001:2::', `2001:2:0:${F}:${F}:${F}:${F}:${F}`],
    outside: [],
  },
  {
    cidr: '2001:3::/32',
    rfc: 'RFC 7450',
    name: 'amt',
    inside: ['2001:3::', `2001:3:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [],
  },
  {
    cidr: '2001:4:112::/48',
    rfc: 'RFC 7535',
    name: 'as112',
    inside: ['2001:4:112::', `2001:4:112:${F}:${F}:${F}:${F}:${F}`],
    outside: [],
  },
  {
    cidr: '2001:10::/28',
    rfc: 'RFC 4843',
    name: 'orchid',
    inside: ['2001:10::', `2001:1f:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [],
  },
  {
    cidr: '2001:20::/28',
    rfc: 'RFC 7343',
    name: 'orchid2',
    inside: ['2001:20::', `2001:2f:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [],
  },
  {
    cidr: '2001:30::/28',
    rfc: 'RFC 9374',
    name: 'droneRemoteId',
    inside: ['2001:30::', `2001:3f:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [],
  },
  {
    cidr: '2001:db8::/32',
    rfc: 'RFC 3849',
    name: 'documentation',
    inside: ['2001:db8::', `2001:db8:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [`2001:db7:${F}:${F}:${F}:${F}:${F}:${F}`, '2001:db9::'],
  },
  {
    cidr: '2620:4f:8000::/48',
    rfc: 'RFC 7534',
    name: 'as112',
    inside: ['2620:4f:8000::', `2620:4f:8000:${F}:${F}:${F}:${F}:${F}`],
    outside: [`2620:4f:7fff:${F}:${F}:${F}:${F}:${F}`, '2620:4f:8001::'],
  },
  {
    cidr: '3fff::/20',
    rfc: 'RFC 9637',
    name: 'documentation',
    inside: ['3fff::', `3fff:fff:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [`3ffe:${F}:${F}:${F}:${F}:${F}:${F}:${F}`, '3fff:1000::'],
  },
  {
    cidr: '5f00::/16',
    rfc: 'RFC 9602',
    name: 'segmentRouting',
    inside: ['5f00::', `5f00:${F}:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [`5eff:${F}:${F}:${F}:${F}:${F}:${F}:${F}`, '5f01::'],
  },
  {
    cidr: 'fc00::/7',
    rfc: 'RFC 4193',
    name: 'uniqueLocal',
    inside: ['fc00::', `fdff:${F}:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [`fbff:${F}:${F}:${F}:${F}:${F}:${F}:${F}`, 'fe00::'],
  },
  {
    cidr: 'fe80::/10',
    rfc: 'RFC 4291',
    name: 'linkLocal',
    inside: ['fe80::', `febf:${F}:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [`fe7f:${F}:${F}:${F}:${F}:${F}:${F}:${F}`],
  },
  {
    cidr: 'fec0::/10',
    rfc: 'RFC 3879',
    name: 'siteLocal',
    inside: ['fec0::', `feff:${F}:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [],
  },
  {
    cidr: 'ff00::/8',
    rfc: 'RFC 4291',
    name: 'multicast',
    inside: ['ff00::', `${F}:${F}:${F}:${F}:${F}:${F}:${F}:${F}`],
    outside: [],
  },
];

function classify(text: string) {
  const address = parseIp(text);
  if (address === undefined) throw new Error(`${text} does not parse`);
  return specialRangeOf(address);
}

describe('specialRangeOf', () => {
  it('lists exactly the blocks of the registry table', () => {
    expect(SPECIAL_RANGES.map((range) => range.cidr).sort()).toEqual(REGISTRY.map((row) => row.cidr).sort());
  });

  it.each(REGISTRY)('classifies the first and last addresses of $cidr as $name ($rfc)', ({ cidr, rfc, name, inside }) => {
    for (const address of inside) {
      expect(classify(address), address).toMatchObject({ cidr, rfc, name });
    }
  });

  it.each(REGISTRY.filter((row) => row.outside.length > 0))('finds the neighbours of $cidr public', ({ outside }) => {
    for (const address of outside) {
      expect(classify(address), address).toBeUndefined();
    }
  });

  it('reports nested blocks by the most specific one', () => {
    expect(classify('0.0.0.0')?.cidr).toBe('0.0.0.0/32');
    expect(classify('0.0.0.1')?.cidr).toBe('0.0.0.0/8');
    expect(classify('192.0.0.8')?.cidr).toBe('192.0.0.8/32');
    expect(classify('192.0.0.12')?.cidr).toBe('192.0.0.0/24');
    expect(classify('255.255.255.255')?.cidr).toBe('255.255.255.255/32');
    expect(classify('2001::1')?.cidr).toBe('2001::/32');
    expect(classify('2001:db8::1')?.cidr).toBe('2001:db8::/32');
    expect(classify('::')?.cidr).toBe('::/128');
    expect(classify('::1')?.cidr).toBe('::1/128');
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '100.63.255.255',
    '100.128.0.0',
    '1.0.0.0',
    '223.255.255.255',
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '2002:0808:0808::1',
    '2002::',
    `2002:${F}:${F}:${F}:${F}:${F}:${F}:${F}`,
    '2001:200::1',
  ])('finds %s public', (address) => {
    expect(classify(address)).toBeUndefined();
  });

  it('classifies IPv4-mapped addresses as the IPv4 address they fold to', () => {
    expect(classify('::ffff:10.1.2.3')).toMatchObject({ cidr: '10.0.0.0/8', rfc: 'RFC 1918' });
    expect(classify('::ffff:127.0.0.1')).toMatchObject({ cidr: '127.0.0.0/8' });
    expect(classify('::ffff:0.0.0.0')).toMatchObject({ cidr: '0.0.0.0/32' });
    expect(classify('::ffff:8.8.8.8')).toBeUndefined();
  });

  it('keeps IPv4 and IPv6 apart although they share bytes', () => {
    // 0.0.0.1 and ::1 are both 15 zero bytes and a 1 in the 16-byte key.
    expect(classify('0.0.0.1')?.name).toBe('thisNetwork');
    expect(classify('::1')?.name).toBe('loopback');
    expect(classify('10.0.0.1')?.name).toBe('private');
    expect(classify('::a00:1')?.name).toBe('ipv4Compatible');
  });

  // ipaddr.js keeps its own table of special ranges (without RFCs); every block in it, save the two that
  // are public by decision here (6to4) or folded before classification (IPv4-mapped), must be refused.
  it("refuses every block in ipaddr.js's special-range tables", () => {
    type Entry = [ipaddr.IPv4 | ipaddr.IPv6, number];
    const tables = [ipaddr.IPv4.prototype, ipaddr.IPv6.prototype].map(
      (prototype) => (prototype as unknown as { SpecialRanges: Record<string, Entry | Entry[]> }).SpecialRanges,
    );
    let checked = 0;
    for (const table of tables) {
      for (const [name, value] of Object.entries(table)) {
        if (name === '6to4' || name === 'ipv4Mapped') continue;
        const entries: Entry[] = Array.isArray(value[0]) ? (value as Entry[]) : [value as Entry];
        for (const [network, prefixLength] of entries) {
          const cidr = `${network.toString()}/${prefixLength}`;
          const last = network.kind() === 'ipv4' ? ipaddr.IPv4.broadcastAddressFromCIDR(cidr) : ipaddr.IPv6.broadcastAddressFromCIDR(cidr);
          for (const address of [network.toString(), last.toString()]) {
            expect(classify(address), `${name} ${cidr}: ${address}`).toBeDefined();
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
  });
});

describe('specialRangeOf, with the parser', () => {
  it('names the range and its RFC of an IPv4-mapped address as of the IPv4 address', () => {
    expect(parseIp('::FFFF:10.1.2.3')?.canonical).toBe('10.1.2.3');
    expect(classify('::FFFF:10.1.2.3')).toEqual({ name: 'private', cidr: '10.0.0.0/8', rfc: 'RFC 1918', description: 'private-use network' });
  });

  it.each([
    ['192.0.2.1', '192.0.2.0/24', 'RFC 5737'],
    ['198.51.100.1', '198.51.100.0/24', 'RFC 5737'],
    ['203.0.113.1', '203.0.113.0/24', 'RFC 5737'],
    ['2001:DB8::1', '2001:db8::/32', 'RFC 3849'],
    ['3fff::1', '3fff::/20', 'RFC 9637'],
    ['fe80::1', 'fe80::/10', 'RFC 4291'],
    ['64:ff9b::8.8.8.8', '64:ff9b::/96', 'RFC 6052'],
  ])('finds %s in %s (%s)', (text, cidr, rfc) => {
    expect(classify(text)).toMatchObject({ cidr, rfc });
  });

  it('does not parse a zone id, so no range is asked for', () => {
    expect(parseIp('fe80::1%eth0')).toBeUndefined();
  });
});

describe('rangeWithArticle', () => {
  // English usage, not the code: "an" before a vowel sound, "a" before a consonant sound, "uni-" included.
  it.each([
    ['::', 'an unspecified address'],
    ['fc00::1', 'a unique local address prefix'],
    ['2001:20::1', 'an ORCHIDv2 prefix'],
    ['10.0.0.1', 'a private-use network'],
    ['192.88.99.1', 'a deprecated 6to4 relay anycast network'],
  ])('reads the range of %s as "%s"', (text, phrase) => {
    const address = parseIp(text);
    if (address === undefined) throw new Error(`${text} did not parse`);
    const range = specialRangeOf(address);
    if (range === undefined) throw new Error(`${text} is in no special range`);
    expect(rangeWithArticle(range)).toBe(phrase);
  });
});
