/** @module The one address parser: IPv4 and IPv6 text to its version, its canonical text and its 128 bits as four 32-bit words. */

/**
 * A parsed address. IPv4 a.b.c.d lies at ::a.b.c.d (`w0`, `w1`, `w2` zero, `w3` the IPv4 value), where
 * MaxMind DB trees hold IPv4; IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is folded to that IPv4 address.
 *
 * @example parseIp('::FFFF:8.8.8.8') // { version: 4, canonical: '8.8.8.8', w0: 0, w1: 0, w2: 0, w3: 0x08080808 }
 */
export interface IpAddress {
  readonly version: 4 | 6;
  /** Dotted quad for IPv4; RFC 5952 for IPv6 (lower case, no leading zeros, the first longest zero run as `::`). */
  readonly canonical: string;
  /** The 128 bits as unsigned 32-bit words, most significant first. */
  readonly w0: number;
  readonly w1: number;
  readonly w2: number;
  readonly w3: number;
}

/** The longest accepted text: `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`. */
const MAX_ADDRESS_LENGTH = 45;

/**
 * Parses IPv4 or IPv6 address text, or answers undefined for any other text.
 *
 * Accepted: IPv4 in strict four-part dotted decimal (`1.2.3.4`; no leading zeros, which some parsers
 * read as octal, no hex, no fewer parts); IPv6 in any RFC 4291 section 2.2 form, either case, full or
 * zero-compressed, with leading zeros in groups, or with the last 32 bits in dotted decimal. Refused:
 * whitespace, zone ids (`fe80::1%eth0`, which name an interface of the sender), CIDR suffixes, brackets.
 * Only IPv4-mapped IPv6 is folded to IPv4; `::1.2.3.4` (IPv4-compatible, deprecated) stays IPv6.
 * A text already canonical is its own canonical form, so the common case builds no string.
 *
 * @example
 * parseIp('2001:0DB8:0:0:1:0:0:1')?.canonical // '2001:db8::1:0:0:1'
 * parseIp('01.2.3.4')                         // undefined
 */
export function parseIp(text: string): IpAddress | undefined {
  const ipv4 = dottedQuad(text);
  if (ipv4 >= 0) return { version: 4, canonical: text, w0: 0, w1: 0, w2: 0, w3: ipv4 };
  if (text.length > MAX_ADDRESS_LENGTH || text.indexOf(':') < 0) return undefined;
  return parseIpv6(text);
}

/**
 * The value of a strict dotted quad (four decimal parts 0..255 without leading zeros, its own
 * canonical form) as an unsigned 32-bit integer, or -1 for any other text.
 */
export function dottedQuad(text: string): number {
  const length = text.length;
  if (length < 7 || length > 15) return -1;
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = 0; i <= length; i++) {
    const c = i < length ? text.charCodeAt(i) : 46;
    if (c === 46) {
      if (digits === 0 || parts === 4) return -1;
      value = value * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && part === 0) return -1; // a leading zero
      part = part * 10 + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else {
      return -1;
    }
  }
  return parts === 4 ? value : -1;
}

/**
 * The dotted quad of an unsigned 32-bit IPv4 value.
 *
 * @example ipv4Text(0xcb007107) // '203.0.113.7'
 */
export function ipv4Text(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

function parseIpv6(text: string): IpAddress | undefined {
  const length = text.length;
  const groups = [0, 0, 0, 0, 0, 0, 0, 0];
  let count = 0;
  let gap = -1; // the index in `groups` where `::` stands
  let canonical = true; // lower case, no leading zeros, no dotted tail (the zero runs are checked below)
  let i = 0;
  if (text.charCodeAt(0) === 58) {
    if (text.charCodeAt(1) !== 58) return undefined;
    gap = 0;
    i = 2;
  }
  while (i < length) {
    const start = i;
    let group = 0;
    for (; i < length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 48 && c <= 57) group = group * 16 + c - 48;
      else if (c >= 97 && c <= 102) group = group * 16 + c - 87;
      else if (c >= 65 && c <= 70) {
        group = group * 16 + c - 55;
        canonical = false;
      } else break;
    }
    if (i < length && text.charCodeAt(i) === 46) {
      // The last 32 bits in dotted decimal.
      const ipv4 = dottedQuad(text.slice(start));
      if (ipv4 < 0 || count > 6) return undefined;
      groups[count++] = ipv4 >>> 16;
      groups[count++] = ipv4 & 0xffff;
      canonical = false;
      break;
    }
    const digits = i - start;
    if (digits === 0 || digits > 4 || count === 8) return undefined;
    if (digits > 1 && text.charCodeAt(start) === 48) canonical = false;
    groups[count++] = group;
    if (i === length) break;
    if (text.charCodeAt(i) !== 58 || ++i === length) return undefined; // another character, or a lone trailing `:`
    if (text.charCodeAt(i) === 58) {
      if (gap >= 0) return undefined; // a second `::`
      gap = count;
      i++;
    }
  }
  // `::` stands for one group or more; without it there are exactly eight.
  if (gap >= 0 ? count > 7 : count !== 8) return undefined;
  if (gap >= 0) {
    const zeros = 8 - count;
    groups.copyWithin(gap + zeros, gap, count);
    groups.fill(0, gap, gap + zeros);
  }
  const w0 = ((groups[0] as number) * 0x10000 + (groups[1] as number)) >>> 0;
  const w1 = ((groups[2] as number) * 0x10000 + (groups[3] as number)) >>> 0;
  const w2 = ((groups[4] as number) * 0x10000 + (groups[5] as number)) >>> 0;
  const w3 = ((groups[6] as number) * 0x10000 + (groups[7] as number)) >>> 0;
  if (w0 === 0 && w1 === 0 && w2 === 0xffff) return { version: 4, canonical: ipv4Text(w3), w0: 0, w1: 0, w2: 0, w3 };
  const [runStart, runLength] = longestZeroRun(groups);
  const compressedAsCanonical = runLength === 0 ? gap < 0 : gap === runStart && 8 - count === runLength;
  return { version: 6, canonical: canonical && compressedAsCanonical ? text : rfc5952(groups, runStart, runLength), w0, w1, w2, w3 };
}

/**
 * The network of `prefixLength` bits that holds `address`, as CIDR text: an IPv4 address's in the
 * IPv4 space (`a.b.c.d/n`, n from 0 to 32), an IPv6 address's in RFC 5952 (`2001:db8::/32`).
 *
 * @example cidrText(parseIp('81.2.69.142'), 24)  // '81.2.69.0/24'
 * @example cidrText(parseIp('2001:db8::1'), 32) // '2001:db8::/32'
 */
export function cidrText(address: IpAddress, prefixLength: number): string {
  /** The bits of word `index` (0 = most significant) that the prefix keeps. */
  const masked = (word: number, index: number) => {
    const kept = prefixLength - index * 32;
    return kept >= 32 ? word : kept <= 0 ? 0 : (word & ~(0xffffffff >>> kept)) >>> 0;
  };
  if (address.version === 4) return `${ipv4Text(masked(address.w3, 0))}/${prefixLength}`;
  const { w0, w1, w2, w3 } = address;
  return `${ipv6Text({ w0: masked(w0, 0), w1: masked(w1, 1), w2: masked(w2, 2), w3: masked(w3, 3) })}/${prefixLength}`;
}

/**
 * The RFC 5952 text of 128 bits given as four words, in hexadecimal groups only (no dotted tail).
 *
 * @example ipv6Text({ w0: 0x20010db8, w1: 0, w2: 0, w3: 1 }) // '2001:db8::1'
 */
export function ipv6Text({ w0, w1, w2, w3 }: Pick<IpAddress, 'w0' | 'w1' | 'w2' | 'w3'>): string {
  const groups = [w0 >>> 16, w0 & 0xffff, w1 >>> 16, w1 & 0xffff, w2 >>> 16, w2 & 0xffff, w3 >>> 16, w3 & 0xffff];
  const [runStart, runLength] = longestZeroRun(groups);
  return rfc5952(groups, runStart, runLength);
}

/** The first longest run of two or more zero groups (RFC 5952 section 4.2): its start and length, or length 0. */
function longestZeroRun(groups: readonly number[]): [number, number] {
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let end = i;
    while (end < 8 && groups[end] === 0) end++;
    if (end - i > bestLength && end - i >= 2) {
      bestStart = i;
      bestLength = end - i;
    }
    i = end;
  }
  return [bestStart, bestLength];
}

/** RFC 5952 text of eight groups, with the run found by {@link longestZeroRun} written `::`. */
function rfc5952(groups: readonly number[], runStart: number, runLength: number): string {
  let text = '';
  let afterGap = false;
  for (let i = 0; i < 8; i++) {
    if (i === runStart) {
      text += '::';
      i += runLength - 1;
      afterGap = true;
      continue;
    }
    if (i > 0 && !afterGap) text += ':';
    afterGap = false;
    text += (groups[i] as number).toString(16);
  }
  return text;
}

/** Text that is not an IPv4 or IPv6 address in an accepted form ({@link parseIp}). */
export class IpAddressError extends Error {
  override readonly name = 'IpAddressError';
  readonly kind = 'invalid';
  constructor() {
    super('The value is not a valid IPv4 or IPv6 address.');
  }
}

/**
 * {@link parseIp}, for callers that want an exception (account whitelists, client keys).
 *
 * @throws {IpAddressError} when the text is not an address.
 * @example parseIpAddress('2001:db8::1') // { version: 6, canonical: '2001:db8::1', w0: 0x20010db8, w1: 0, w2: 0, w3: 1 }
 */
export function parseIpAddress(text: string): IpAddress {
  const address = typeof text === 'string' ? parseIp(text) : undefined;
  if (address === undefined) throw new IpAddressError();
  return address;
}
