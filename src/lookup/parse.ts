/**
 * @module The lookup's address parser: the forms clients send almost always (a strict dotted quad, an
 * RFC 5952 IPv6 text) are read here in one pass without allocating, and everything else goes to
 * {@link parseAndCheckPublic} (`ip/`), which stays the one definition of what is accepted, how it is
 * written canonically, and why an address is refused.
 *
 * The fast paths accept exactly texts that are already canonical, so the canonical form is the text
 * itself. A text they do not accept, and an address in a special-purpose range, take the full path,
 * which answers the same address or throws the same {@link IpAddressError} it always did.
 */
import ipaddr from 'ipaddr.js';
import { dottedQuad } from '../ip/address.ts';
import { parseAndCheckPublic, SPECIAL_RANGES } from '../ip/special-ranges.ts';

/** A public address, parsed. Reused by the caller: one per isolate, filled per lookup. */
export interface PublicAddress {
  /** 4 or 6, after IPv4-mapped IPv6 is folded to IPv4. */
  version: 4 | 6;
  /** Canonical text: dotted quad, or RFC 5952. */
  canonical: string;
  /** The IPv4 address as an unsigned 32-bit integer (version 4). */
  ipv4: number;
  /** The IPv6 address (version 6): 16 bytes, owned by this object. */
  readonly bytes: Uint8Array;
}

/** A fresh {@link PublicAddress} to reuse. */
export function newPublicAddress(): PublicAddress {
  return { version: 4, canonical: '', ipv4: 0, bytes: new Uint8Array(16) };
}

/**
 * Parses `text` as a public IPv4 or IPv6 address into `out`.
 *
 * @throws {IpAddressError} of kind `invalid` or `reserved`, exactly as {@link parseAndCheckPublic}.
 */
export function parsePublicAddress(text: string, out: PublicAddress): PublicAddress {
  const ipv4 = dottedQuad(text);
  if (ipv4 >= 0) {
    if (!reservedIpv4(ipv4)) {
      out.version = 4;
      out.canonical = text;
      out.ipv4 = ipv4;
      return out;
    }
  } else if (canonicalIpv6(text, out.bytes) && !reservedIpv6(out.bytes)) {
    out.version = 6;
    out.canonical = text;
    return out;
  }
  const parsed = parseAndCheckPublic(text);
  out.version = parsed.version;
  out.canonical = parsed.canonical;
  const b = parsed.bytes;
  if (parsed.version === 4) out.ipv4 = (((b[12] as number) << 24) | ((b[13] as number) << 16) | ((b[14] as number) << 8) | (b[15] as number)) >>> 0;
  else out.bytes.set(b);
  return out;
}

/**
 * Reads an IPv6 text in RFC 5952 form (lower-case hex, no leading zeros, the one run of two or more
 * zero groups written `::`, no dotted tail) into `bytes`.
 *
 * @returns false for any other text (it may still be a valid address in another form).
 */
export function canonicalIpv6(text: string, bytes: Uint8Array): boolean {
  const length = text.length;
  if (length < 3 || length > 39) return false; // `::` (2 characters) is special-purpose anyway
  const groups = GROUPS;
  let count = 0;
  let gap = -1; // index in `groups` where `::` stands
  let i = 0;
  if (text.charCodeAt(0) === 58) {
    if (text.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  for (;;) {
    let group = 0;
    let digits = 0;
    let c = 0;
    for (; i < length; i++) {
      c = text.charCodeAt(i);
      let nibble: number;
      if (c >= 48 && c <= 57) nibble = c - 48;
      else if (c >= 97 && c <= 102) nibble = c - 87;
      else break;
      if (digits === 4 || (digits !== 0 && group === 0)) return false; // too long, or a leading zero
      group = (group << 4) | nibble;
      digits++;
    }
    // An empty group (`:::`, a lone `:` at either end), a ninth group, or a character not in the form.
    if (digits === 0 || count === 8) return false;
    groups[count++] = group;
    if (i === length) break;
    if (c !== 58) return false;
    i++;
    if (i === length) return false;
    if (text.charCodeAt(i) === 58) {
      if (gap >= 0) return false; // a second `::`
      gap = count;
      i++;
      if (i === length) break; // a trailing `::`
    }
  }
  // `::` must stand for two or more groups; without it there must be exactly eight.
  if (gap >= 0 ? count > 6 : count !== 8) return false;
  if (!zeroRunsCanonical(groups, count, gap)) return false;
  const zeros = gap < 0 ? 0 : 8 - count;
  for (let g = 0, k = 0; g < 8; g++) {
    const value = gap >= 0 && g >= gap && g < gap + zeros ? 0 : (groups[k++] as number);
    bytes[g * 2] = value >> 8;
    bytes[g * 2 + 1] = value & 0xff;
  }
  return true;
}

const GROUPS = new Uint16Array(8);

/**
 * RFC 5952 section 4.2: the zero run written `::` is maximal, and no other run of two or more zero
 * groups is left uncompressed. A text with two such runs is not taken here even when it compresses
 * the right one: which of two equal runs is "first" is where implementations differ (ipaddr.js picks a
 * later run over one at the very start), so the full path decides those.
 */
function zeroRunsCanonical(groups: Uint16Array, count: number, gap: number): boolean {
  if (gap > 0 && groups[gap - 1] === 0) return false;
  if (gap >= 0 && gap < count && groups[gap] === 0) return false;
  for (let k = 1; k < count; k++) {
    if (k !== gap && groups[k] === 0 && groups[k - 1] === 0) return false;
  }
  return true;
}

interface Ipv4Block {
  readonly network: number;
  readonly mask: number;
}

/** The special-purpose IPv4 blocks by first octet (most octets have none). */
const IPV4_BY_FIRST_OCTET: readonly (readonly Ipv4Block[] | undefined)[] = (() => {
  const table: Ipv4Block[][] = [];
  for (const range of SPECIAL_RANGES) {
    if (range.cidr.includes(':')) continue;
    const [address = '', prefix = ''] = range.cidr.split('/');
    const length = Number(prefix);
    const mask = length === 0 ? 0 : (0xffffffff << (32 - length)) | 0;
    const network = dottedQuad(address) & mask;
    const first = network >>> 24;
    const span = length >= 8 ? 1 : 2 ** (8 - length);
    for (let octet = first; octet < first + span; octet++) {
      table[octet] = [...(table[octet] ?? []), { network, mask }];
    }
  }
  return Array.from({ length: 256 }, (_, octet) => table[octet]);
})();

function reservedIpv4(address: number): boolean {
  const blocks = IPV4_BY_FIRST_OCTET[address >>> 24];
  if (blocks === undefined) return false;
  for (const block of blocks) if ((address & block.mask) === block.network) return true;
  return false;
}

interface Ipv6Block {
  readonly network: Uint8Array;
  readonly prefixLength: number;
}

/** The special-purpose IPv6 blocks by first byte (most bytes, 0x20 to 0x2f among them, have few or none). */
const IPV6_BY_FIRST_BYTE: readonly (readonly Ipv6Block[] | undefined)[] = (() => {
  const table: Ipv6Block[][] = [];
  for (const range of SPECIAL_RANGES) {
    if (!range.cidr.includes(':')) continue;
    const [address, prefixLength] = ipaddr.parseCIDR(range.cidr);
    const network = Uint8Array.from(address.toByteArray());
    const first = network[0] as number;
    const span = prefixLength >= 8 ? 1 : 2 ** (8 - prefixLength);
    for (let byte = first; byte < first + span; byte++) {
      table[byte] = [...(table[byte] ?? []), { network, prefixLength }];
    }
  }
  return Array.from({ length: 256 }, (_, byte) => table[byte]);
})();

/** Any special-purpose IPv6 block, or IPv4-mapped (::ffff:0:0/96, which the full path folds to IPv4). */
function reservedIpv6(bytes: Uint8Array): boolean {
  if (bytes[0] === 0 && ipv4Mapped(bytes)) return true;
  const blocks = IPV6_BY_FIRST_BYTE[bytes[0] as number];
  if (blocks === undefined) return false;
  for (const block of blocks) if (inPrefix(bytes, block.network, block.prefixLength)) return true;
  return false;
}

function ipv4Mapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

function inPrefix(address: Uint8Array, network: Uint8Array, prefixLength: number): boolean {
  const whole = prefixLength >> 3;
  for (let i = 0; i < whole; i++) if (address[i] !== network[i]) return false;
  const rest = prefixLength & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((address[whole] as number) & mask) === (network[whole] as number);
}
