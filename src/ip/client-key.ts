/**
 * @module The rate-limit identity of a client: its IPv4 address, or its IPv6 /64 (one subscriber holds a
 * whole /64) counted inside the /48 that holds it, so that one counter sees the /64, its /56 and the /48;
 * a 6to4 or Teredo address counts as the IPv4 host it stands for (`tunnelled.ts`).
 */
import { dottedQuad, ipv6Text, parseIpAddress } from './address.ts';
import { tunnelledIpv4 } from './tunnelled.ts';

/**
 * Where the free plan counts a client's requests (docs/api.md, "The free plan's limits").
 *
 * - IPv4 (and IPv4-mapped IPv6, folded to IPv4): `network` is the canonical dotted quad and `subnet` is
 *   null; the address is counted alone.
 * - 6to4 (`2002::/16`) and Teredo (`2001::/32`): the IPv4 address the IPv6 address stands for (the 6to4
 *   site's, the Teredo client's), keyed as that IPv4 address is, so that both share one allowance: a
 *   6to4 site would otherwise get a /48 of its own from one IPv4 address, and every client of a Teredo
 *   server would share that server's /64.
 * - IPv6: `network` is the /48 in RFC 5952 form with a `/48` suffix, and `subnet` the client's /64
 *   within it (bits 48 to 63 of the address, 0 to 65535; its high 8 bits name the /56). A subscriber is
 *   normally given a /64 at least and picks addresses in it freely (privacy extensions rotate them), so
 *   the client is the /64; its /56 and /48 are the networks an ISP hands a household or an office.
 *
 * The two forms of `network` cannot collide, since only IPv6 ones contain `:`.
 */
export interface ClientKey {
  /** The name of the counter (a Durable Object), e.g. `203.0.113.7` or `2001:db8:1::/48`. */
  readonly network: string;
  /** The client's /64 within an IPv6 `network` (0 to 65535); null for an IPv4 client. */
  readonly subnet: number | null;
}

/**
 * The key that the free plan's rate counters are kept under, from the client's `CF-Connecting-IP`.
 * Special-purpose addresses are keyed like any other: `wrangler dev` and tests connect from loopback.
 *
 * @throws {IpAddressError} of kind `invalid` when the text is not an address.
 * @example
 * clientKey('203.0.113.7');          // { network: '203.0.113.7', subnet: null }
 * clientKey('::ffff:203.0.113.7');   // { network: '203.0.113.7', subnet: null }
 * clientKey('2001:db8:1:2:a:b:c:d'); // { network: '2001:db8:1::/48', subnet: 2 }
 * clientKey('2002:cb00:7107:1::1');  // { network: '203.0.113.7', subnet: null }
 */
export function clientKey(address: string): ClientKey {
  // A strict dotted quad, what Cloudflare sends for IPv4, is its own canonical form.
  if (dottedQuad(address) >= 0) return { network: address, subnet: null };
  const parsed = parseIpAddress(address);
  if (parsed.version === 4) return { network: parsed.canonical, subnet: null };
  const tunnelled = tunnelledIpv4(parsed);
  if (tunnelled !== null) return { network: tunnelled.ipv4.canonical, subnet: null };
  return { network: `${ipv6Text({ w0: parsed.w0, w1: (parsed.w1 & 0xffff0000) >>> 0, w2: 0, w3: 0 })}/48`, subnet: parsed.w1 & 0xffff };
}
