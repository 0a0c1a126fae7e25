/** @module The one table of special-purpose address ranges (IANA IPv4 and IPv6 Special-Purpose Address Registries, RFC 6890), which the service refuses to look up, and its classifier. */
import { type IpAddress, parseIp } from './address.ts';

/** Machine names of the kinds of special-purpose range; several ranges can share a name (five are `documentation`). */
export type SpecialRangeName =
  | 'thisNetwork'
  | 'unspecified'
  | 'private'
  | 'carrierGradeNat'
  | 'loopback'
  | 'linkLocal'
  | 'ietfProtocolAssignments'
  | 'serviceContinuity'
  | 'dummy'
  | 'anycast'
  | 'nat64Discovery'
  | 'documentation'
  | 'as112'
  | 'amt'
  | 'relayAnycast'
  | 'benchmarking'
  | 'multicast'
  | 'reserved'
  | 'broadcast'
  | 'ipv4Compatible'
  | 'ipv4Translated'
  | 'translation'
  | 'discard'
  | 'teredo'
  | 'orchid'
  | 'orchid2'
  | 'droneRemoteId'
  | 'segmentRouting'
  | 'uniqueLocal'
  | 'siteLocal';

/**
 * One special-purpose address block.
 *
 * @example
 * { name: 'private', cidr: '10.0.0.0/8', rfc: 'RFC 1918', description: 'private-use network' }
 */
export interface SpecialRange {
  /** The kind of range, e.g. `'private'`. */
  readonly name: SpecialRangeName;
  /** The block in CIDR notation, network address first, e.g. `'10.0.0.0/8'`. */
  readonly cidr: string;
  /** The RFC that defines the block, e.g. `'RFC 1918'`. */
  readonly rfc: string;
  /** A noun phrase, e.g. `'private-use network'`; {@link rangeWithArticle} puts "a" or "an" before it. */
  readonly description: string;
}

/**
 * The range's description after its indefinite article, for a sentence: a description that starts with a
 * vowel sound takes "an" ("an unspecified address", "an ORCHIDv2 prefix"). In this table a vowel letter
 * means a vowel sound, except "uni-", read "you-" ("a unique local address prefix").
 *
 * @example rangeWithArticle({ name: 'unspecified', cidr: '::/128', rfc: 'RFC 4291', description: 'unspecified address' }) // 'an unspecified address'
 */
export function rangeWithArticle(range: SpecialRange): string {
  return `${/^(?!uni)[aeiou]/i.test(range.description) ? 'an' : 'a'} ${range.description}`;
}

const range = (name: SpecialRangeName, cidr: string, rfc: string, description: string): SpecialRange => Object.freeze({ name, cidr, rfc, description });

/**
 * Every range the service refuses, IPv4 then IPv6, each in address order.
 *
 * Source: the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its updates), plus
 * multicast (RFC 5771, RFC 4291) and the IPv6 blocks that the IANA IPv6 Address Space registry keeps
 * out of use (IPv4-compatible, site-local), and SIIT's IPv4-translated block. Blocks nest (0.0.0.0/32
 * in 0.0.0.0/8, the 2001::/23 assignments); an address is reported with the most specific block.
 *
 * Deliberately absent:
 * - IPv4-mapped `::ffff:0:0/96`: folded to IPv4 by {@link parseIp} and classified as IPv4.
 * - 6to4 `2002::/16` (RFC 3056): its addresses embed a public IPv4 address in bits 16..47, and MaxMind DB
 *   trees alias the block to the IPv4 tree, so such an address can be looked up.
 *
 * Deliberately present although the registry marks them globally reachable: the NAT64 well-known prefix
 * `64:ff9b::/96` (RFC 6052; an address there stands for the IPv4 address in its last 32 bits, not for a
 * host of its own), AS112, AMT, the anycast addresses and Teredo — none locates a user.
 *
 * Exported for the tests that hold it against their own copy of the registries, and for the build,
 * which refuses corrections inside these ranges (`data/corrections/geofeed.ts`).
 */
export const SPECIAL_RANGES: readonly SpecialRange[] = Object.freeze([
  // IPv4
  range('thisNetwork', '0.0.0.0/8', 'RFC 791', '"this network" block'),
  range('unspecified', '0.0.0.0/32', 'RFC 1122', '"this host on this network" (unspecified) address'),
  range('private', '10.0.0.0/8', 'RFC 1918', 'private-use network'),
  range('carrierGradeNat', '100.64.0.0/10', 'RFC 6598', 'shared address space (carrier-grade NAT)'),
  range('loopback', '127.0.0.0/8', 'RFC 1122', 'loopback network'),
  range('linkLocal', '169.254.0.0/16', 'RFC 3927', 'link-local network'),
  range('private', '172.16.0.0/12', 'RFC 1918', 'private-use network'),
  range('ietfProtocolAssignments', '192.0.0.0/24', 'RFC 6890', 'block for IETF protocol assignments'),
  range('serviceContinuity', '192.0.0.0/29', 'RFC 7335', 'IPv4 service continuity prefix'),
  range('dummy', '192.0.0.8/32', 'RFC 7600', 'IPv4 dummy address'),
  range('anycast', '192.0.0.9/32', 'RFC 7723', 'Port Control Protocol anycast address'),
  range('anycast', '192.0.0.10/32', 'RFC 8155', 'Traversal Using Relays around NAT anycast address'),
  range('nat64Discovery', '192.0.0.170/32', 'RFC 7050', 'NAT64/DNS64 discovery address'),
  range('nat64Discovery', '192.0.0.171/32', 'RFC 7050', 'NAT64/DNS64 discovery address'),
  range('documentation', '192.0.2.0/24', 'RFC 5737', 'documentation network (TEST-NET-1)'),
  range('as112', '192.31.196.0/24', 'RFC 7535', 'AS112-v4 network'),
  range('amt', '192.52.193.0/24', 'RFC 7450', 'Automatic Multicast Tunneling network'),
  range('relayAnycast', '192.88.99.0/24', 'RFC 7526', 'deprecated 6to4 relay anycast network'),
  range('relayAnycast', '192.88.99.2/32', 'RFC 6751', '6a44 relay anycast address'),
  range('private', '192.168.0.0/16', 'RFC 1918', 'private-use network'),
  range('as112', '192.175.48.0/24', 'RFC 7534', 'direct delegation AS112 service network'),
  range('benchmarking', '198.18.0.0/15', 'RFC 2544', 'benchmarking network'),
  range('documentation', '198.51.100.0/24', 'RFC 5737', 'documentation network (TEST-NET-2)'),
  range('documentation', '203.0.113.0/24', 'RFC 5737', 'documentation network (TEST-NET-3)'),
  range('multicast', '224.0.0.0/4', 'RFC 5771', 'multicast network'),
  range('reserved', '240.0.0.0/4', 'RFC 1112', 'network reserved for future use'),
  range('broadcast', '255.255.255.255/32', 'RFC 919', 'limited broadcast address'),
  // IPv6
  range('unspecified', '::/128', 'RFC 4291', 'unspecified address'),
  range('loopback', '::1/128', 'RFC 4291', 'loopback address'),
  range('ipv4Compatible', '::/96', 'RFC 4291', 'deprecated IPv4-compatible IPv6 address'),
  range('ipv4Translated', '::ffff:0:0:0/96', 'RFC 2765', 'IPv4-translated (SIIT) address'),
  range('translation', '64:ff9b::/96', 'RFC 6052', 'IPv4/IPv6 translation (NAT64) well-known prefix'),
  range('translation', '64:ff9b:1::/48', 'RFC 8215', 'local-use IPv4/IPv6 translation prefix'),
  range('discard', '100::/64', 'RFC 6666', 'discard-only address block'),
  range('dummy', '100:0:0:1::/64', 'RFC 9780', 'dummy IPv6 prefix'),
  range('ietfProtocolAssignments', '2001::/23', 'RFC 2928', 'block for IETF protocol assignments'),
  range('teredo', '2001::/32', 'RFC 4380', 'Teredo tunnelling prefix'),
  range('anycast', '2001:1::1/128', 'RFC 7723', 'Port Control Protocol anycast address'),
  range('anycast', '2001:1::2/128', 'RFC 8155', 'Traversal Using Relays around NAT anycast address'),
  range('anycast', '2001:1::3/128', 'RFC 9665', 'DNS-SD Service Registration Protocol anycast address'),
  range('benchmarking', '2001:2::/48', 'RFC 5180', 'benchmarking prefix'),
  range('amt', '2001:3::/32', 'RFC 7450', 'Automatic Multicast Tunneling prefix'),
  range('as112', '2001:4:112::/48', 'RFC 7535', 'AS112-v6 prefix'),
  range('orchid', '2001:10::/28', 'RFC 4843', 'deprecated ORCHID prefix'),
  range('orchid2', '2001:20::/28', 'RFC 7343', 'ORCHIDv2 prefix'),
  range('droneRemoteId', '2001:30::/28', 'RFC 9374', 'drone remote ID protocol entity tag (DET) prefix'),
  range('documentation', '2001:db8::/32', 'RFC 3849', 'documentation prefix'),
  range('as112', '2620:4f:8000::/48', 'RFC 7534', 'direct delegation AS112 service prefix'),
  range('documentation', '3fff::/20', 'RFC 9637', 'documentation prefix'),
  range('segmentRouting', '5f00::/16', 'RFC 9602', 'segment routing (SRv6) SID prefix'),
  range('uniqueLocal', 'fc00::/7', 'RFC 4193', 'unique local address prefix'),
  range('linkLocal', 'fe80::/10', 'RFC 4291', 'link-local prefix'),
  range('siteLocal', 'fec0::/10', 'RFC 3879', 'deprecated site-local prefix'),
  range('multicast', 'ff00::/8', 'RFC 4291', 'multicast prefix'),
]);

/** A range compiled for matching: its network and mask as four 32-bit words (IPv4 in the last). */
interface CompiledRange {
  readonly range: SpecialRange;
  readonly prefixLength: number;
  readonly network: readonly [number, number, number, number];
  readonly mask: readonly [number, number, number, number];
}

function compile(range: SpecialRange): { version: 4 | 6; compiled: CompiledRange } {
  const [text = '', prefix = ''] = range.cidr.split('/');
  const address = parseIp(text);
  if (address === undefined) throw new Error(`special range ${range.cidr} is not a CIDR block`);
  const prefixLength = Number(prefix) + (address.version === 4 ? 96 : 0);
  const mask = [0, 1, 2, 3].map((k) => {
    const bits = Math.min(32, Math.max(0, prefixLength - 32 * k));
    return bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  }) as [number, number, number, number];
  const network = [address.w0, address.w1, address.w2, address.w3] as [number, number, number, number];
  // A typo that leaves host bits set would make the CIDR shown to clients disagree with what is matched.
  if (network.some((word, k) => (word & (mask[k] as number)) >>> 0 !== word)) throw new Error(`special range ${range.cidr} has host bits set`);
  return { version: address.version, compiled: { range, prefixLength, network, mask } };
}

/** The ranges of each family by the address's first byte, most specific (longest prefix) first. */
const BY_FIRST_BYTE: { readonly [version in 4 | 6]: readonly (readonly CompiledRange[])[] } = (() => {
  const tables = { 4: Array.from({ length: 256 }, (): CompiledRange[] => []), 6: Array.from({ length: 256 }, (): CompiledRange[] => []) };
  for (const range of SPECIAL_RANGES) {
    const { version, compiled } = compile(range);
    const word = version === 4 ? compiled.network[3] : compiled.network[0];
    const first = word >>> 24;
    const familyPrefix = compiled.prefixLength - (version === 4 ? 96 : 0);
    const span = familyPrefix >= 8 ? 1 : 2 ** (8 - familyPrefix);
    for (let byte = first; byte < first + span; byte++) tables[version][byte]?.push(compiled);
  }
  for (const table of [tables[4], tables[6]]) for (const list of table) list.sort((a, b) => b.prefixLength - a.prefixLength);
  return tables;
})();

/**
 * The most specific special-purpose range that holds `address`, or undefined for a public address.
 * IPv4 addresses (IPv4-mapped IPv6 included, which {@link parseIp} folds) are matched against the IPv4
 * registry only, IPv6 against the IPv6 registry only: IPv4 0.0.0.1 and IPv6 ::1 share their bits.
 *
 * @example
 * specialRangeOf(parseIp('192.168.1.1')!)     // { name: 'private', cidr: '192.168.0.0/16', rfc: 'RFC 1918', … }
 * specialRangeOf(parseIp('2002:808:808::1')!) // undefined (6to4 is looked up)
 */
export function specialRangeOf(address: IpAddress): SpecialRange | undefined {
  const { w0, w1, w2, w3 } = address;
  const candidates = BY_FIRST_BYTE[address.version][(address.version === 4 ? w3 : w0) >>> 24] as readonly CompiledRange[];
  for (const { range, network, mask } of candidates) {
    if (
      (w3 & mask[3]) >>> 0 === network[3] &&
      (w0 & mask[0]) >>> 0 === network[0] &&
      (w1 & mask[1]) >>> 0 === network[1] &&
      (w2 & mask[2]) >>> 0 === network[2]
    ) {
      return range;
    }
  }
  return undefined;
}
