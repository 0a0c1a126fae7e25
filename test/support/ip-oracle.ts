/**
 * @module Addresses as the service documents them, read with ipaddr.js (not the service's parser):
 * IPv4 only in strict four-part decimal, IPv6 in any RFC 4291 form with a strict dotted tail at most,
 * IPv4-mapped IPv6 folded to IPv4, canonical text RFC 5952; and the special-purpose ranges of the
 * registry table matched by ipaddr.js.
 */
import ipaddr from 'ipaddr.js';
import { SPECIAL_RANGES, type SpecialRange } from '../../src/ip/special-ranges.ts';

/** A parsed address: version, canonical text and its 16 bytes (IPv4 at ::a.b.c.d). */
export type OracleAddress = { version: 4 | 6; canonical: string; bytes: number[] };

/** What `text` is, or 'invalid'. */
export function oracleParse(text: string): OracleAddress | 'invalid' {
  if (/[^0-9A-Fa-f:.]/.test(text) || text.length === 0) return 'invalid';
  const v4 = (octets: number[]): OracleAddress => ({ version: 4, canonical: octets.join('.'), bytes: [...Array(12).fill(0), ...octets] });
  if (!text.includes(':')) return ipaddr.IPv4.isValidFourPartDecimal(text) ? v4(ipaddr.IPv4.parse(text).octets) : 'invalid';
  let hex = text;
  if (text.includes('.')) {
    const tail = text.slice(text.lastIndexOf(':') + 1);
    if (!ipaddr.IPv4.isValidFourPartDecimal(tail)) return 'invalid';
    const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(tail).octets;
    hex = `${text.slice(0, text.lastIndexOf(':') + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  if (!ipaddr.IPv6.isValid(hex)) return 'invalid';
  const address = ipaddr.IPv6.parse(hex);
  if (address.isIPv4MappedAddress()) return v4(address.toIPv4Address().octets);
  return { version: 6, canonical: address.toRFC5952String(), bytes: address.toByteArray() };
}

const COMPILED = SPECIAL_RANGES.map((range) => ({ range, cidr: ipaddr.parseCIDR(range.cidr) }));

/** The most specific range of the registry table that holds the canonical address, or undefined. */
export function oracleRange(canonical: string): SpecialRange | undefined {
  const address = ipaddr.parse(canonical);
  let best: { range: SpecialRange; prefix: number } | undefined;
  for (const { range, cidr } of COMPILED) {
    if (cidr[0].kind() !== address.kind() || !address.match(cidr)) continue;
    if (best === undefined || cidr[1] > best.prefix) best = { range, prefix: cidr[1] };
  }
  return best?.range;
}
