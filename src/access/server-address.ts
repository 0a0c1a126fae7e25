/**
 * @module Which addresses a customer's server can send requests from, as Cloudflare's `CF-Connecting-IP`
 * shows them (docs/accounts.md, "The tool"): what `allow-ip` whitelists, and what the access check
 * honours when a request arrives, so that an entry written before a refusal existed grants nothing.
 */
import type { IpAddress } from '../ip/address.ts';
import { type SpecialRangeName, specialRangeOf } from '../ip/special-ranges.ts';
import { tunnelledIpv4 } from '../ip/tunnelled.ts';

/**
 * The `CF-Connecting-IP` that Cloudflare gives every request made by a Worker of another zone
 * (https://developers.cloudflare.com/fundamentals/reference/http-headers/, "CF-Connecting-IP in Worker
 * subrequests"): whitelisted, it would open an account to every Worker on Cloudflare.
 */
const CROSS_ZONE_WORKER_ADDRESS = '2a06:98c0:3600::103';

/**
 * Kinds of special-purpose range (`ip/special-ranges.ts`) that no server sends from over the Internet,
 * so that `CF-Connecting-IP` never carries them: private-use (and IPv6's unique local and deprecated
 * site-local, and the shared address space behind carrier-grade NAT), loopback, link-local, unspecified
 * ("this network"), multicast and broadcast; the deprecated IPv4-compatible `::/96` and the NAT64
 * prefixes (an address there stands for an IPv4 host, which reaches Cloudflare by IPv4); the reserved
 * `240.0.0.0/4` and the benchmarking ranges. Documentation ranges are not among them: tests and
 * examples whitelist them.
 */
const NOT_SENT_FROM: ReadonlySet<SpecialRangeName> = new Set<SpecialRangeName>([
  'private',
  'uniqueLocal',
  'siteLocal',
  'carrierGradeNat',
  'loopback',
  'linkLocal',
  'unspecified',
  'thisNetwork',
  'multicast',
  'broadcast',
  'ipv4Compatible',
  'translation',
  'reserved',
  'benchmarking',
]);

/** The kinds of range inside `192.0.0.0/24`, the IPv4 block of IETF protocol assignments (RFC 6890), which is refused whole. */
const IETF_IPV4_BLOCK: ReadonlySet<SpecialRangeName> = new Set<SpecialRangeName>([
  'ietfProtocolAssignments',
  'serviceContinuity',
  'dummy',
  'anycast',
  'nat64Discovery',
]);

/**
 * Why no request can carry `address` in `CF-Connecting-IP` from a customer's server, as a sentence
 * that starts with the address; or null when it can. A 6to4 or Teredo address is refused when the IPv4
 * address it stands for is.
 *
 * @example serverAddressRefusal(parseIpAddress('2002:7f00:1::1')) // '2002:7f00:1::1 is a 6to4 address (RFC 3056) of 127.0.0.1, which is in 127.0.0.0/8 (loopback network, RFC 1122): …'
 */
export function serverAddressRefusal(address: IpAddress): string | null {
  if (address.canonical === CROSS_ZONE_WORKER_ADDRESS) {
    return `${address.canonical} is the CF-Connecting-IP that Cloudflare gives every request made by a Worker of another zone: whitelisted, it would let every Worker on Cloudflare use the account.`;
  }
  const tunnelled = tunnelledIpv4(address);
  if (tunnelled !== null) {
    const inner = serverAddressRefusal(tunnelled.ipv4);
    const what = tunnelled.tunnel === '6to4' ? 'a 6to4 address (RFC 3056) of' : 'a Teredo address (RFC 4380) of the client';
    return inner === null ? null : `${address.canonical} is ${what} ${tunnelled.ipv4.canonical}, which${inner.slice(tunnelled.ipv4.canonical.length)}`;
  }
  const range = specialRangeOf(address);
  if (range === undefined || !(NOT_SENT_FROM.has(range.name) || (address.version === 4 && IETF_IPV4_BLOCK.has(range.name)))) return null;
  const block = IETF_IPV4_BLOCK.has(range.name)
    ? `192.0.0.0/24 (the block of IETF protocol assignments, RFC 6890; here ${range.cidr}, ${range.description})`
    : `${range.cidr} (${range.description}, ${range.rfc})`;
  return `${address.canonical} is in ${block}: no server sends from it over the Internet, so no request carries it in CF-Connecting-IP.`;
}
