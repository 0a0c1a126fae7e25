/** @module The rate-limit identity of a client: its IPv4 address, or its IPv6 /64, since one subscriber holds a whole /64. */
import ipaddr from 'ipaddr.js';
import { dottedQuad, parseIpAddress } from './address';

/**
 * The key that the free plan's rate counters are kept under, from the client's `CF-Connecting-IP`.
 *
 * - IPv4 (and IPv4-mapped IPv6, folded to IPv4): the canonical dotted quad.
 * - IPv6: the /64 network in RFC 5952 form with a `/64` suffix. An IPv6 subscriber is normally given at
 *   least a /64 and picks addresses in it freely (privacy extensions rotate them), so keying on the full
 *   address would hand each client an unlimited supply of fresh limits.
 *
 * Special-purpose addresses are keyed like any other: `wrangler dev` and tests connect from loopback.
 * The two forms cannot collide, since only IPv6 keys contain `:`.
 *
 * @throws {IpAddressError} of kind `invalid` when the text is not an address.
 * @example
 * clientKey('203.0.113.7');          // '203.0.113.7'
 * clientKey('::ffff:203.0.113.7');   // '203.0.113.7'
 * clientKey('2001:db8:1:2:a:b:c:d'); // '2001:db8:1:2::/64'
 */
export function clientKey(address: string): string {
  // A strict dotted quad, what Cloudflare sends for IPv4, is its own canonical form.
  if (dottedQuad(address) >= 0) return address;
  const parsed = parseIpAddress(address);
  if (parsed.version === 4) return parsed.canonical;
  const network = new ipaddr.IPv6([parsed.w0 >>> 16, parsed.w0 & 0xffff, parsed.w1 >>> 16, parsed.w1 & 0xffff, 0, 0, 0, 0]);
  return `${network.toRFC5952String()}/64`;
}
