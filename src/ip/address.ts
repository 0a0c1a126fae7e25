/** @module Parses IP address text strictly into one canonical form and the 16-byte key that MaxMind DB trees are searched by. */
import ipaddr from 'ipaddr.js';
import type { SpecialRange } from './special-ranges';

/**
 * An IP address as the rest of the service sees it.
 *
 * @example
 * parseIpAddress('::FFFF:8.8.8.8');
 * // { version: 4, canonical: '8.8.8.8', bytes: Uint8Array [0, 0, …, 0, 8, 8, 8, 8] }
 */
export interface ParsedIp {
  /** 4 or 6, after IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is folded to IPv4. */
  version: 4 | 6;
  /** Canonical text: dotted quad for IPv4; RFC 5952 for IPv6 (lower case, longest zero run compressed, no leading zeros). */
  canonical: string;
  /** 16 bytes, the address in the IPv6 space; IPv4 a.b.c.d is placed at ::a.b.c.d (bytes 12..15), as MaxMind DB trees hold IPv4. */
  bytes: Uint8Array;
}

/**
 * Why an address was refused.
 *
 * - `invalid`: the text is not an IPv4 or IPv6 address in an accepted form (maps to 400 `IP_ADDRESS_INVALID`).
 * - `reserved`: the address parsed but lies in a special-purpose range (maps to 400 `IP_ADDRESS_RESERVED`);
 *   `range` and `address` are then set.
 *
 * `message` is written for clients: it never echoes the raw input (which may be long or hold control
 * characters), only the canonical address and the range, e.g.
 * `'10.1.2.3 is in 10.0.0.0/8, a private-use network (RFC 1918)'`.
 *
 * @example
 * try { parseAndCheckPublic(text) } catch (error) {
 *   if (error instanceof IpAddressError && error.kind === 'reserved') console.log(error.range?.rfc); // 'RFC 1918'
 * }
 */
export class IpAddressError extends Error {
  override readonly name = 'IpAddressError';
  readonly kind: 'invalid' | 'reserved';
  /** The special-purpose range the address is in; set exactly when `kind` is `reserved`. */
  readonly range?: SpecialRange;
  /** The canonical form of the refused address; set exactly when `kind` is `reserved`. */
  readonly address?: string;

  private constructor(kind: 'invalid' | 'reserved', message: string, address?: string, range?: SpecialRange) {
    super(message);
    this.kind = kind;
    if (address !== undefined) this.address = address;
    if (range !== undefined) this.range = range;
  }

  /** The text is not an address in an accepted form. */
  static invalid(): IpAddressError {
    return new IpAddressError('invalid', 'The value is not a valid IPv4 or IPv6 address.');
  }

  /** `address` (canonical text) lies in the special-purpose `range`. */
  static reserved(address: string, range: SpecialRange): IpAddressError {
    return new IpAddressError('reserved', `${address} is in ${range.cidr}, a ${range.description} (${range.rfc}).`, address, range);
  }
}

/**
 * The longest accepted text: `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`. Checked first so that no
 * regular expression ever runs over an arbitrarily long path segment.
 */
const MAX_ADDRESS_LENGTH = 45;

/** Hex digits, colons and dots only: rules out whitespace, zone ids (`%eth0`), prefixes (`/64`) and brackets at once. */
const ADDRESS_CHARACTERS = /^[0-9A-Fa-f:.]+$/;

/**
 * Parses IPv4 or IPv6 address text.
 *
 * Accepted: IPv4 in strict four-part dotted decimal (`1.2.3.4`; no leading zeros, which some parsers
 * read as octal, no hex, no fewer parts); IPv6 in any RFC 4291 section 2.2 form, either case, full or
 * zero-compressed, with leading zeros in groups, or with the last 32 bits in dotted decimal
 * (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`). Refused: surrounding or inner whitespace, zone ids
 * (`fe80::1%eth0`, which name an interface of the sender, not an address), CIDR suffixes, brackets.
 *
 * IPv4-mapped IPv6 (`::ffff:0:0/96`) is the IPv4 address written for IPv6 sockets, so it is folded to
 * IPv4 (version 4, dotted quad). No other embedding is folded: `::1.2.3.4` is the deprecated
 * IPv4-compatible form and stays IPv6 (`::102:304`).
 *
 * Canonical IPv6 text is always hexadecimal: RFC 5952 section 5 makes mixed notation optional, and the
 * only mixed-notation addresses it recommends it for are folded to IPv4 here or are special-purpose.
 *
 * @throws {IpAddressError} of kind `invalid` when the text is not an address in an accepted form.
 * @example
 * parseIpAddress('2001:0DB8:0:0:1:0:0:1').canonical; // '2001:db8::1:0:0:1'
 * parseIpAddress('::ffff:192.0.2.1');                // { version: 4, canonical: '192.0.2.1', … }
 * parseIpAddress('01.2.3.4');                        // throws IpAddressError (kind 'invalid')
 */
export function parseIpAddress(text: string): ParsedIp {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_ADDRESS_LENGTH) {
    throw IpAddressError.invalid();
  }
  if (!ADDRESS_CHARACTERS.test(text)) throw IpAddressError.invalid();
  return text.includes(':') ? parseIPv6(text) : parseIPv4(text);
}

function parseIPv4(text: string): ParsedIp {
  // isValidFourPartDecimal also rules out the one-, two- and three-part and hex forms that IPv4.isValid allows.
  if (!ipaddr.IPv4.isValidFourPartDecimal(text)) throw IpAddressError.invalid();
  return fromIPv4Octets(ipaddr.IPv4.parse(text).octets);
}

function parseIPv6(text: string): ParsedIp {
  const hexText = text.includes('.') ? replaceDottedTail(text) : text;
  // ipaddr's IPv6 parser handles the dotted tail itself, but accepts hex and leading-zero octets in it and
  // reads `::a.b.c.d` as IPv4-mapped (it is IPv4-compatible), so only an all-hex text reaches it.
  if (hexText === undefined || !ipaddr.IPv6.isValid(hexText)) throw IpAddressError.invalid();
  const address = ipaddr.IPv6.parse(hexText);
  if (address.isIPv4MappedAddress()) return fromIPv4Octets(address.toIPv4Address().octets);
  return { version: 6, canonical: address.toRFC5952String(), bytes: Uint8Array.from(address.toByteArray()) };
}

/**
 * Rewrites a trailing dotted-decimal IPv4 part as two hex groups (`::ffff:1.2.3.4` → `::ffff:102:304`),
 * or returns undefined when the dotted part is not strict four-part decimal.
 */
function replaceDottedTail(text: string): string | undefined {
  const lastColon = text.lastIndexOf(':');
  const head = text.slice(0, lastColon + 1);
  const tail = text.slice(lastColon + 1);
  // A dot before the last colon (`1.2::3.4.5.6`) is left in `head`, where the IPv6 parser refuses it.
  if (!ipaddr.IPv4.isValidFourPartDecimal(tail)) return undefined;
  const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(tail).octets;
  return `${head}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

function fromIPv4Octets(octets: readonly number[]): ParsedIp {
  const bytes = new Uint8Array(16);
  bytes.set(octets, 12);
  return { version: 4, canonical: octets.join('.'), bytes };
}

/**
 * The value of a strict dotted quad (four decimal parts 0..255, no leading zeros: the form of
 * `ipaddr.IPv4.isValidFourPartDecimal`, and its own canonical form), or -1 for any other text.
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
