/**
 * @module The readers of the flag lists (`data/sources/flag-lists/`), one per publisher's format: every
 * prefix a publisher's file lists comes out with the list's flag and hosting provider, its neighbours
 * do not, and the source states the publisher's own version and date; a malformed entry is refused,
 * naming the file and its line or JSON path. Expected values are the files the test wrote
 * (`test/support/flag-list-publishers.ts`), their edges computed with ipaddr.js.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { build } from '../../data/build.ts';
import { FLAG_LIST_IDS, type FlagListId, flagList } from '../../data/sources/flag-lists/lists.ts';
import { proxyList } from '../../data/sources/proxy-list.ts';
import { type NetworkFlags, SourceError } from '../../data/sources/source.ts';
import { edgesOf, SAMPLES } from '../support/flag-list-publishers.ts';

const ROOT = join(import.meta.dirname, '../..');
/** The date the test gives the files, which a list without a date of its own takes as its build date. */
const FETCHED = new Date('2026-11-20T06:30:00.000Z');

/** Writes `files` into a new folder, dated {@link FETCHED}; their paths in order. */
function written(files: Readonly<Record<string, string>>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'ipgeo-flag-list-'));
  return Object.entries(files).map(([name, content]) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    utimesSync(path, FETCHED, FETCHED);
    return path;
  });
}

/** An address as a position of the search tree's 128-bit space (IPv4 at ::a.b.c.d). */
const position = (address: string): bigint =>
  ipaddr
    .parse(address)
    .toByteArray()
    .reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);

/** What a source states of each network, as inclusive position ranges. */
function visited(id: FlagListId, paths: string[]): Array<{ first: bigint; last: bigint; flags: NetworkFlags }> {
  const ranges: Array<{ first: bigint; last: bigint; flags: NetworkFlags }> = [];
  flagList(id, paths).forEach((network, flags) => {
    const start = Array.from(network.bytes).reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
    const size = 1n << BigInt(128 - network.prefixLength);
    const first = start & ~(size - 1n);
    ranges.push({ first, last: first + size - 1n, flags });
  });
  return ranges;
}

describe('each list read from its publisher’s format', () => {
  it.each(FLAG_LIST_IDS)('%s: every listed prefix with its flag and provider, its neighbours without', (id) => {
    const sample = SAMPLES[id];
    const ranges = visited(id, written(sample.files));
    const flagsAt = (address: string) => ranges.filter((r) => r.first <= position(address) && position(address) <= r.last).map((r) => r.flags);
    const expected: NetworkFlags = { flags: [sample.flag], ...(sample.hostingProvider ? { hostingProvider: sample.hostingProvider } : {}) };
    for (const prefix of sample.prefixes) {
      const { first, last, before, after } = edgesOf(prefix);
      expect(flagsAt(first), `${prefix} first`).toEqual([expected]);
      expect(flagsAt(last), `${prefix} last`).toEqual([expected]);
      expect(flagsAt(before), `${prefix} before`).toEqual([]);
      expect(flagsAt(after), `${prefix} after`).toEqual([]);
    }
    for (const prefix of sample.ignored ?? []) expect(flagsAt(edgesOf(prefix).first), `${prefix} is not read`).toEqual([]);
    // A prefix listed twice (AWS's under two services) is one network.
    expect(ranges).toHaveLength(sample.prefixes.length);
  });

  it.each(FLAG_LIST_IDS)('%s: names itself with its publisher’s version and date, or a digest and the fetch date', (id) => {
    const sample = SAMPLES[id];
    const source = flagList(id, written(sample.files));
    const digest = createHash('sha256');
    for (const content of Object.values(sample.files)) digest.update(content);
    const count = `${sample.prefixes.length} networks`;
    expect(source.info).toMatchObject({
      name: id,
      provides: 'proxy',
      origin: 'file',
      version: sample.stated ? `${sample.stated}, ${count}` : `sha256 ${digest.digest('hex').slice(0, 12)}, ${count}`,
      builtAt: sample.builtAt ?? FETCHED.toISOString(),
    });
    expect(source.sets).toEqual([sample.flag]);
    expect(source.info.files.map((file) => file.sha256)).toEqual(
      Object.values(sample.files).map((content) => createHash('sha256').update(content).digest('hex')),
    );
    expect(source.info.attribution).not.toBe('');
  });
});

describe('a malformed list', () => {
  const cases: Array<[string, FlagListId, Record<string, string>, RegExp]> = [
    [
      'an address out of range',
      'tor-exits',
      { torbulkexitlist: '185.220.101.1\n185.220.101.300\n' },
      /torbulkexitlist \(.+\) line 2: the entry is not an IP address or CIDR network$/,
    ],
    [
      'a prefix length too long',
      'x4bnet-vpn',
      { 'ipv4.txt': '198.51.100.0/24\n\n# ok so far\n198.51.100.0/33\n' },
      /ipv4\.txt \(.+\) line 4: the entry has no valid prefix length \(0 to 32\)/,
    ],
    ['a network wider than a /8', 'x4bnet-datacenter', { 'ipv4.txt': '0.0.0.0/0\n' }, /line 1: the entry spans more than a \/8/],
    [
      'an IPv6 address that is not one',
      'x4bnet-vpn',
      { 'ipv6.txt': '2001:db8:100::/48\n2001:db8::g/48\n' },
      /ipv6\.txt \(.+\) line 2: the entry is not an IP address or CIDR network/,
    ],
    ['an IPv6 address with a zone', 'x4bnet-vpn', { 'ipv6.txt': 'fe80::1%eth0\n' }, /line 1: the entry is not an IP address/],
    ['an IPv6 network wider than a /16', 'x4bnet-datacenter', { 'ipv6.txt': '2400::/6\n' }, /line 1: the entry spans more than a \/16/],
    [
      'a geofeed line without a prefix',
      'icloud-private-relay',
      { 'egress-ip-ranges.csv': '172.224.226.0/27,GB,GB-EN,London,\nLondon,GB,GB-EN,London,\n' },
      /line 2: the entry is not an IP address/,
    ],
    [
      'an IPv4 address with a leading zero',
      'cloudflare',
      { 'ips-v4': '173.245.48.0/20\n010.1.2.0/24' },
      /ips-v4 \(.+\) line 2: the entry is not an IP address/,
    ],
    [
      'an IPv6 network among AWS’s IPv4 prefixes',
      'aws',
      {
        'ip-ranges.json': JSON.stringify({
          syncToken: '1',
          createDate: '2026-11-17-23-29-02',
          prefixes: [{ ip_prefix: '3.5.140.0/22' }, { ip_prefix: '2600:1f14::/35' }],
          ipv6_prefixes: [],
        }),
      },
      /ip-ranges\.json \(.+\): prefixes\[1\]\.ip_prefix: the entry is not an IPv4 network/,
    ],
    [
      'AWS’s file without its createDate',
      'aws',
      { 'ip-ranges.json': JSON.stringify({ syncToken: '1', createDate: 'yesterday', prefixes: [], ipv6_prefixes: [] }) },
      /ip-ranges\.json \(.+\): createDate: not a date as YYYY-MM-DD-hh-mm-ss/,
    ],
    [
      'a Google entry with both prefixes',
      'google-cloud',
      {
        'cloud.json': JSON.stringify({
          syncToken: '1',
          creationTime: '2026-11-17T10:01:02.123456',
          prefixes: [{ ipv4Prefix: '34.1.208.0/20', ipv6Prefix: '2600:1900::/28' }],
        }),
      },
      /cloud\.json \(.+\): prefixes\[0\]: not an entry with exactly one of ipv4Prefix and ipv6Prefix/,
    ],
    [
      'Azure’s file without the AzureCloud tag',
      'azure',
      {
        'ServiceTags_Public_20261116.json': JSON.stringify({
          changeNumber: 1,
          cloud: 'Public',
          values: [{ id: 'Storage', properties: { addressPrefixes: ['20.150.0.0/24'] } }],
        }),
      },
      /no "AzureCloud" service tag among its 1 values/,
    ],
    [
      'a bad Azure prefix',
      'azure',
      {
        'ServiceTags_Public_20261116.json': JSON.stringify({
          changeNumber: 1,
          cloud: 'Public',
          values: [{ id: 'AzureCloud', properties: { addressPrefixes: ['4.144.0.0/17', '4.144.0.0/'] } }],
        }),
      },
      /values\[0\]\.properties\.addressPrefixes\[1\]: the entry has no valid prefix length/,
    ],
    [
      'Oracle’s file without regions',
      'oracle-cloud',
      { 'public_ip_ranges.json': JSON.stringify({ last_updated_timestamp: '2026-11-18T19:55:47' }) },
      /public_ip_ranges\.json \(.+\): regions: /,
    ],
    ['an answer that is not JSON', 'fastly', { 'public-ip-list.json': '<html>rate limited</html>' }, /public-ip-list\.json \(.+\) is not JSON$/],
    ['an empty file', 'digitalocean', { 'google.csv': '' }, /--flag-list digitalocean=.+google\.csv: .+ is empty/],
  ];
  it.each(cases)('is refused: %s', (_case, id, files, message) => {
    expect(() => flagList(id, written(files))).toThrow(SourceError);
    expect(() => flagList(id, written(files))).toThrow(message);
  });
});

/** Every IPv4 /8, and every IPv6 /16 of 2000::/3: lists that would flag the whole Internet. */
const EVERY_SLASH_8 = Array.from({ length: 256 }, (_, a) => `${a}.0.0.0/8`).join('\n');
const EVERY_SLASH_16 = Array.from({ length: 8192 }, (_, n) => `${(0x2000 + n).toString(16)}::/16`).join('\n');

describe('a list over its bounds', () => {
  // Each one as an attacker would write it, refused whole, naming the file; the ceilings are each list's
  // own (docs/operations.md, "Flag lists"): a /8 of IPv4 for X4BNet's VPN list, a /16 of IPv6 for its data-centre list.
  const cases: Array<[string, FlagListId, Record<string, string>, RegExp]> = [
    [
      '::/16, over the IPv4 space ::/96',
      'x4bnet-vpn',
      { 'ipv6.txt': '2001:db8:100::/48\n::/16\n' },
      /ipv6\.txt \(.+\) line 2: ::\/16 reaches into ::\/96, where the database keeps IPv4/,
    ],
    ['an IPv4-compatible address, inside ::/96', 'aws', awsFile([], ['::808:808/128']), /ipv6_prefixes\[0\]\.ipv6_prefix: ::808:808\/128 reaches into ::\/96/],
    [
      'a network covering the IPv4-mapped space',
      'cloudflare',
      { 'ips-v6': '::fffe:0:0/95\n' },
      /line 1: ::fffe:0:0\/95 covers part of ::ffff:0:0\/96 \(IPv4-mapped\)/,
    ],
    [
      'all 256 IPv4 /8s',
      'x4bnet-vpn',
      { 'ipv4.txt': EVERY_SLASH_8 },
      /ipv4\.txt \(.+\): covers 4294967296 IPv4 addresses \(a \/0's worth\).*over the list's ceiling of a \/8's worth of IPv4 addresses/,
    ],
    [
      '8,192 IPv6 /16s',
      'x4bnet-datacenter',
      { 'ipv6.txt': EVERY_SLASH_16 },
      /ipv6\.txt \(.+\): covers .* \(a \/3's worth\), over the list's ceiling of a \/16's worth of IPv6 \/64s/,
    ],
    ['a list of comments only', 'tor-exits', { torbulkexitlist: '# the list is being regenerated\n\n# try later\n' }, /torbulkexitlist \(.+\): no network/],
    ['a JSON list with empty arrays', 'aws', awsFile([], []), /ip-ranges\.json \(.+\): no network/],
    [
      'a Tor list of a /15',
      'tor-exits',
      { torbulkexitlist: '185.220.0.0/15\n' },
      /over the list's ceiling of a \/16's worth of IPv4 addresses \(one address per exit relay/,
    ],
  ];
  it.each(cases)('is refused: %s', (_case, id, files, message) => {
    expect(() => flagList(id, written(files))).toThrow(SourceError);
    expect(() => flagList(id, written(files))).toThrow(message);
  });

  it('drops the entries in the IPv4 aliases ::ffff:0:0/96 and 2002::/16, which the database answers as IPv4, and says so', () => {
    const source = flagList('x4bnet-vpn', written({ 'ipv6.txt': '2001:db8:100::/48\n::ffff:198.51.100.0/120\n2002:c633:6400::/40\n' }));
    const networks: string[] = [];
    source.forEach((network) => {
      networks.push(Buffer.from(network.bytes).toString('hex'));
    });
    expect(networks).toEqual(['20010db8010000000000000000000000']);
    expect(source.notes?.slice(1)).toEqual([
      expect.stringMatching(
        /ipv6\.txt \(.+\) line 2: ::ffff:c633:6400\/120 is in ::ffff:0:0\/96 \(IPv4-mapped\), answered as the IPv4 address it embeds: dropped$/,
      ),
      expect.stringMatching(/ipv6\.txt \(.+\) line 3: 2002:c633:6400::\/40 is in 2002::\/16 \(6to4\), answered as the IPv4 address it embeds: dropped$/),
    ]);
  });
});

describe('a --proxy-list over the bounds of every list', () => {
  // The same bounds as a published list's, its ceiling a /10 of IPv4 and a /24 of IPv6 (PROXY_LIST_CEILING): written as an
  // attacker would, each refused whole, naming the file and line and quoting nothing of it.
  const over = Array.from({ length: 1025 }, (_, n) => `${11 + (n >>> 4)}.${(n & 15) * 16}.0.0/20`).join('\n');
  const cases: Array<[string, string, RegExp]> = [
    [
      '::/16, which would flag every IPv4 address',
      '# proxies\n2001:db8:100::/48\n::/16\n',
      /proxies\.txt line 3: ::\/16 reaches into ::\/96, where the database keeps IPv4/,
    ],
    ['the whole IPv4 space', '0.0.0.0/0 # every proxy\n', /proxies\.txt line 1: the entry spans more than a \/8, which no list of one operator holds$/],
    ['the IPv4-mapped space, half covered', '::fffe:0:0/95\n', /proxies\.txt line 1: ::fffe:0:0\/95 covers part of ::ffff:0:0\/96 \(IPv4-mapped\)/],
    ['a list of comments only', '# regenerating\n\n', /proxies\.txt: no network \(a list that lost its entries would clear its flag everywhere\)$/],
    ['an empty file', '', /proxies\.txt: .+ is empty/],
    [
      '1,025 /20s, each within the widest entry, over a /10 together',
      over,
      /proxies\.txt: covers 4198400 IPv4 addresses \(a \/10's worth\) and 0 IPv6 \/64s, over the list's ceiling of a \/10's worth of IPv4 addresses/,
    ],
    ['a line that is no address', '198.51.100.7\nSECRET-TOKEN\n', /proxies\.txt line 2: the entry is not an IP address or CIDR network$/],
  ];
  it.each(cases)('is refused: %s', (_case, content, message) => {
    const [file = ''] = written({ 'proxies.txt': content });
    expect(() => proxyList(file)).toThrow(SourceError);
    expect(() => proxyList(file)).toThrow(message);
    expect(() => proxyList(file)).not.toThrow(/SECRET|every proxy/);
  });

  it('is refused by the build before any source is read, which writes nothing', () => {
    const [file = ''] = written({ 'proxies.txt': '::/16\n' });
    const out = mkdtempSync(join(tmpdir(), 'ipgeo-proxy-build-'));
    expect(() => build({ proxyLists: [file], maxmindCity: join(tmpdir(), 'no-such-database.mmdb') }, () => {}, out)).toThrow(
      /line 1: ::\/16 reaches into ::\/96/,
    );
    expect(readdirSync(out)).toEqual([]);
  });

  it('drops the entries in the IPv4 aliases and says so, and takes a list up to its ceiling', () => {
    const [file = ''] = written({ 'proxies.txt': '2001:db8:100::/48\n::ffff:198.51.100.0/120\n11.64.0.0/10\n' });
    const list = proxyList(file);
    const networks: number[] = [];
    list.forEach((network) => {
      networks.push(network.prefixLength);
    });
    expect(networks).toEqual([48, 96 + 10]);
    expect(list.notes).toEqual([
      "proxies.txt: 2 networks, covering 4194304 IPv4 addresses (a /10's worth) and 65536 IPv6 /64s (a /48's worth); its ceiling is a /10's worth and a /24's worth",
      `--proxy-list ${file} line 2: ::ffff:c633:6400/120 is in ::ffff:0:0/96 (IPv4-mapped), answered as the IPv4 address it embeds: dropped`,
    ]);
  });
});

/** AWS's `ip-ranges.json` with these prefixes. */
function awsFile(ipv4: readonly string[], ipv6: readonly string[]): Record<string, string> {
  return {
    'ip-ranges.json': JSON.stringify({
      syncToken: '1',
      createDate: '2026-11-17-23-29-02',
      prefixes: ipv4.map((ip_prefix) => ({ ip_prefix })),
      ipv6_prefixes: ipv6.map((ipv6_prefix) => ({ ipv6_prefix })),
    }),
  };
}

describe('data:build --flag-list', () => {
  it('refuses an option that names no list, naming the lists', () => {
    const run = spawnSync('npx', ['tsx', 'data/build.ts', '--flag-list', 'aws-ranges=ip-ranges.json'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`--flag-list takes ID=FILE, ID one of ${FLAG_LIST_IDS.join(', ')}; not 'aws-ranges=ip-ranges.json'`);
  }, 60_000);

  it('refuses a list over its bounds, naming the file, and writes nothing', () => {
    const [file] = written({ 'ipv6.txt': '::/16\n' });
    const out = mkdtempSync(join(tmpdir(), 'ipgeo-flag-build-'));
    const run = spawnSync('npx', ['tsx', 'data/build.ts', '--out', out, '--flag-list', `x4bnet-vpn=${file}`], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`data:build failed: x4bnet-vpn ipv6.txt (${file}) line 1: ::/16 reaches into ::/96`);
    expect(readdirSync(out)).toEqual([]);
  }, 60_000);
});
