/**
 * @module Networks and address ranges in the 128-bit space of a MaxMind DB search tree, where an
 * IPv4 address a.b.c.d sits at ::a.b.c.d.
 */
import ipaddr from 'ipaddr.js';
import { ipv6Text } from '../../src/ip/address.ts';
import type { Network } from './search-tree.ts';

/**
 * Parses `a.b.c.d/n` or an IPv6 CIDR into the tree's IPv6 space (IPv4 at ::a.b.c.d/(96+n)).
 *
 * @throws Error when the text is not a CIDR network.
 */
export function parseNetwork(cidr: string): Network {
  const slash = cidr.lastIndexOf('/');
  const [address, prefix] = ipaddr.parseCIDR(`${embeddedIpv4ToHex(cidr.slice(0, slash))}${cidr.slice(slash)}`);
  const bytes = new Uint8Array(16);
  bytes.set(address.toByteArray(), address.kind() === 'ipv4' ? 12 : 0);
  return { bytes, prefixLength: address.kind() === 'ipv4' ? 96 + prefix : prefix };
}

/**
 * Rewrites an IPv6 address's trailing dotted quad as two hex groups (`::1.2.3.4` → `::102:304`):
 * ipaddr.js 2.x reads every embedded IPv4 address as IPv4-mapped (`::ffff:1.2.3.4`), which would
 * move `::1.2.3.4` (where MaxMind DB trees keep IPv4) to a different network.
 */
export function embeddedIpv4ToHex(text: string): string {
  const colon = text.lastIndexOf(':');
  if (colon < 0 || !text.includes('.', colon)) return text;
  const octets = text
    .slice(colon + 1)
    .split('.')
    .map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) return text;
  const [a, b, c, d] = octets as [number, number, number, number];
  return `${text.slice(0, colon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** An address of the 128-bit space (16 bytes) as an unsigned bigint. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  return (view.getBigUint64(0) << 64n) | view.getBigUint64(8);
}

/** The 16 bytes of an unsigned 128-bit bigint. */
function bigIntToBytes(n: bigint): Uint8Array {
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, n >> 64n);
  view.setBigUint64(8, n & 0xffffffffffffffffn);
  return bytes;
}

/** The number of bits of a positive value. */
function bitLength(value: bigint): number {
  return value.toString(2).length;
}

/**
 * The fewest CIDR networks that cover exactly the inclusive range `first..last` of the 128-bit
 * space, in address order.
 *
 * @throws RangeError when `last < first` or either is outside 0..2¹²⁸−1.
 */
export function rangeToNetworks(first: bigint, last: bigint): Network[] {
  const max = (1n << 128n) - 1n;
  if (first < 0n || last > max || last < first) throw new RangeError(`invalid range ${first}..${last}`);
  const networks: Network[] = [];
  for (let start = first; start <= last; ) {
    // The largest block aligned at `start` (its lowest set bit) that does not run past `last`.
    const aligned = start === 0n ? 128 : bitLength(start & -start) - 1;
    const size = Math.min(aligned, bitLength(last - start + 1n) - 1);
    networks.push({ bytes: bigIntToBytes(start), prefixLength: 128 - size });
    start += 1n << BigInt(size);
  }
  return networks;
}

/** The bits of byte `index` that a prefix of `length` bits keeps. */
function maskByte(length: number, index: number): number {
  const bits = Math.min(8, Math.max(0, length - index * 8));
  return (0xff00 >> bits) & 0xff;
}

/** True when `outer` holds all of `inner`. */
export function networkContains(outer: Network, inner: Network): boolean {
  if (outer.prefixLength > inner.prefixLength) return false;
  for (let i = 0; i < 16; i++) {
    const mask = maskByte(outer.prefixLength, i);
    if (((outer.bytes[i] as number) & mask) !== ((inner.bytes[i] as number) & mask)) return false;
  }
  return true;
}

/** True when two networks share an address: CIDR networks share one only when one holds the other. */
export function networksOverlap(a: Network, b: Network): boolean {
  return networkContains(a, b) || networkContains(b, a);
}

/** Whether a network lies in ::/96, where the tree keeps IPv4 (an IPv4 network a.b.c.d/n is ::a.b.c.d/(96+n)). */
export function isIpv4Network(network: { readonly bytes: ArrayLike<number>; readonly prefixLength: number }): boolean {
  if (network.prefixLength < 96) return false;
  for (let i = 0; i < 12; i++) if (network.bytes[i] !== 0) return false;
  return true;
}

/**
 * A network as CIDR text, IPv4 (`::a.b.c.d/96+n`) as `a.b.c.d/n` unless `ipv6` (an entry written in
 * IPv6): `81.2.69.0/24`, `2001:db8::/32`, `::808:808/128`.
 */
export function networkText(network: Network, ipv6 = false): string {
  const { bytes, prefixLength } = network;
  if (!ipv6 && isIpv4Network(network)) return `${[...bytes.subarray(12)].join('.')}/${prefixLength - 96}`;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  return `${ipv6Text({ w0: view.getUint32(0), w1: view.getUint32(4), w2: view.getUint32(8), w3: view.getUint32(12) })}/${prefixLength}`;
}
