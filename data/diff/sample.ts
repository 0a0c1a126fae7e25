/**
 * @module The fixed sample of addresses that `data:diff` compares two builds on: the same addresses on
 * every run (a seeded generator, never the clock), IPv4 uniform over its whole space and IPv6 uniform
 * within the regional registries' blocks (the rest of IPv6 is unallocated, where no build answers),
 * plus the first address of each network of {@link WELL_KNOWN_NETWORKS}.
 */
import { type IpAddress, parseIp } from '../../src/ip/address.ts';
import { randomWords } from '../random-words.ts';

/** The generator's seed: changing it changes the sample, and with it every figure of BENCHMARKS.md's diffs. */
const SAMPLE_SEED = 0x5eed_1945;

/** IPv4 addresses of the sample, uniform over 0.0.0.0 to 255.255.255.255. */
const IPV4_SAMPLE_SIZE = 786_432;

/** IPv6 addresses of the sample, split evenly among {@link IPV6_BLOCKS}. */
const IPV6_SAMPLE_SIZE = 262_144;

/**
 * Where IPv6 is sampled: the /12s that IANA gave each regional registry (APNIC 2400::/12, ARIN
 * 2600::/12, LACNIC 2800::/12, RIPE NCC 2a00::/12, AFRINIC 2c00::/12), and 2001::/16 and 2003::/16,
 * the first blocks given out (IANA, "IPv6 Global Unicast Address Assignments"). Even counts per block.
 */
const IPV6_BLOCKS = ['2001::/16', '2003::/16', '2400::/12', '2600::/12', '2800::/12', '2a00::/12', '2c00::/12'] as const;

/**
 * Networks whose answers a reader of a diff knows, each compared at its first address: public DNS
 * resolvers and the root name servers (root-servers.org), whose place and operator seldom change.
 */
const WELL_KNOWN_NETWORKS: readonly { readonly network: string; readonly name: string }[] = [
  { network: '8.8.8.0/24', name: 'Google Public DNS' },
  { network: '8.8.4.0/24', name: 'Google Public DNS' },
  { network: '1.1.1.0/24', name: 'Cloudflare DNS' },
  { network: '1.0.0.0/24', name: 'Cloudflare DNS' },
  { network: '9.9.9.0/24', name: 'Quad9' },
  { network: '149.112.112.0/24', name: 'Quad9' },
  { network: '208.67.222.0/24', name: 'OpenDNS' },
  { network: '208.67.220.0/24', name: 'OpenDNS' },
  { network: '198.41.0.0/24', name: 'a.root-servers.net' },
  { network: '170.247.170.0/24', name: 'b.root-servers.net' },
  { network: '192.33.4.0/24', name: 'c.root-servers.net' },
  { network: '199.7.91.0/24', name: 'd.root-servers.net' },
  { network: '192.203.230.0/24', name: 'e.root-servers.net' },
  { network: '192.5.5.0/24', name: 'f.root-servers.net' },
  { network: '192.112.36.0/24', name: 'g.root-servers.net' },
  { network: '198.97.190.0/24', name: 'h.root-servers.net' },
  { network: '192.36.148.0/24', name: 'i.root-servers.net' },
  { network: '192.58.128.0/24', name: 'j.root-servers.net' },
  { network: '193.0.14.0/24', name: 'k.root-servers.net' },
  { network: '199.7.83.0/24', name: 'l.root-servers.net' },
  { network: '202.12.27.0/24', name: 'm.root-servers.net' },
  { network: '2001:4860:4860::/48', name: 'Google Public DNS' },
  { network: '2606:4700:4700::/48', name: 'Cloudflare DNS' },
  { network: '2620:fe::/48', name: 'Quad9' },
  { network: '2620:119:35::/48', name: 'OpenDNS' },
  { network: '2001:503:ba3e::/48', name: 'a.root-servers.net' },
  { network: '2801:1b8:10::/48', name: 'b.root-servers.net' },
  { network: '2001:500:2::/48', name: 'c.root-servers.net' },
  { network: '2001:500:2d::/48', name: 'd.root-servers.net' },
  { network: '2001:500:a8::/48', name: 'e.root-servers.net' },
  { network: '2001:500:2f::/48', name: 'f.root-servers.net' },
  { network: '2001:500:12::/48', name: 'g.root-servers.net' },
  { network: '2001:500:1::/48', name: 'h.root-servers.net' },
  { network: '2001:7fe::/32', name: 'i.root-servers.net' },
  { network: '2001:503:c27::/48', name: 'j.root-servers.net' },
  { network: '2001:7fd::/32', name: 'k.root-servers.net' },
  { network: '2001:500:9f::/48', name: 'l.root-servers.net' },
  { network: '2001:dc3::/32', name: 'm.root-servers.net' },
];

/** The sample: addresses as words, IPv4 one word each, IPv6 four (most significant first), the well-known networks' last. */
export interface AddressSample {
  readonly ipv4: Uint32Array;
  readonly ipv6: Uint32Array;
  /** The first address of each of {@link WELL_KNOWN_NETWORKS}, parsed. */
  readonly wellKnown: readonly { readonly network: string; readonly name: string; readonly address: IpAddress }[];
}

/** The sample, made anew on each call (about 5 ms): the same addresses every time. */
export function addressSample(): AddressSample {
  const wellKnown = WELL_KNOWN_NETWORKS.map(({ network, name }) => ({ network, name, address: parseIp(network.split('/')[0] as string) as IpAddress }));
  const wellKnown4 = wellKnown.filter(({ address }) => address.version === 4);
  const wellKnown6 = wellKnown.filter(({ address }) => address.version === 6);
  const next = randomWords(SAMPLE_SEED);
  const ipv4 = new Uint32Array(IPV4_SAMPLE_SIZE + wellKnown4.length);
  for (let i = 0; i < IPV4_SAMPLE_SIZE; i++) ipv4[i] = next();
  for (const [i, { address }] of wellKnown4.entries()) ipv4[IPV4_SAMPLE_SIZE + i] = address.w3;
  const ipv6 = new Uint32Array((IPV6_SAMPLE_SIZE + wellKnown6.length) * 4);
  const perBlock = Math.ceil(IPV6_SAMPLE_SIZE / IPV6_BLOCKS.length);
  for (let i = 0; i < IPV6_SAMPLE_SIZE; i++) {
    const [prefix, length] = (IPV6_BLOCKS[Math.floor(i / perBlock)] as string).split('/') as [string, string];
    const first = (parseIp(prefix) as IpAddress).w0;
    const kept = Number(length);
    // The block's bits of the first word, the rest random.
    ipv6[i * 4] = ((first & ~(0xffffffff >>> kept)) | (next() & (0xffffffff >>> kept))) >>> 0;
    for (let w = 1; w < 4; w++) ipv6[i * 4 + w] = next();
  }
  for (const [i, { address }] of wellKnown6.entries()) ipv6.set([address.w0, address.w1, address.w2, address.w3], (IPV6_SAMPLE_SIZE + i) * 4);
  return { ipv4, ipv6, wellKnown };
}
