/**
 * @module The IPv4 host behind an IPv6 transition address: a 6to4 address (`2002::/16`, RFC 3056)
 * carries its site's IPv4 address in bits 16 to 47; a Teredo address (`2001::/32`, RFC 4380) carries
 * its client's public IPv4 address in the last 32 bits, each bit inverted.
 */
import { type IpAddress, ipv4Text } from './address.ts';

/** An IPv6 address that stands for an IPv4 host, and which transition mechanism made it. */
export interface TunnelledIpv4 {
  readonly tunnel: '6to4' | 'teredo';
  /** The IPv4 host, as {@link IpAddress} of version 4. */
  readonly ipv4: IpAddress;
}

/**
 * The IPv4 host that a 6to4 or Teredo address stands for, or null for any other address.
 *
 * @example tunnelledIpv4(parseIpAddress('2002:cb00:7107:1::1'))?.ipv4.canonical // '203.0.113.7'
 * @example tunnelledIpv4(parseIpAddress('2001:0:4136:e378:8000:63bf:3fff:fdd2'))?.ipv4.canonical // '192.0.2.45'
 */
export function tunnelledIpv4(address: IpAddress): TunnelledIpv4 | null {
  if (address.version !== 6) return null;
  if (address.w0 >>> 16 === 0x2002) return { tunnel: '6to4', ipv4: ipv4Of((((address.w0 & 0xffff) << 16) | (address.w1 >>> 16)) >>> 0) };
  if (address.w0 === 0x20010000) return { tunnel: 'teredo', ipv4: ipv4Of(~address.w3 >>> 0) };
  return null;
}

function ipv4Of(value: number): IpAddress {
  return { version: 4, canonical: ipv4Text(value), w0: 0, w1: 0, w2: 0, w3: value };
}
