/**
 * @module What a client asks of the ASN routes, parsed with its bounds: an AS number (asplain, RFC 5396:
 * a decimal from 0 to 4294967295, with or without `AS`), and a page of its prefixes.
 */

/** The largest AS number: 32 bits (RFC 6793). */
const MAX_ASN = 4_294_967_295;
/** The most pages an ASN's prefixes make in the ASN object (a page number is 16 bits there). */
export const MAX_PAGE = 65_535;

/**
 * The AS number that `text` names, or undefined: decimal digits without leading zeros (`0` alone is
 * AS0), optionally after `AS` in either case, from 0 to {@link MAX_ASN}.
 *
 * @example parseAsn('AS13335') // 13335
 * @example parseAsn('013335')  // undefined
 */
export function parseAsn(text: string): number | undefined {
  const match = /^(?:as)?(0|[1-9]\d{0,9})$/i.exec(text);
  if (match === null) return undefined;
  const value = Number(match[1]);
  return value <= MAX_ASN ? value : undefined;
}

/**
 * The page that `page=` asks for, from 1 (1 when absent), or undefined for anything but a whole
 * decimal number from 1 to {@link MAX_PAGE} without leading zeros.
 *
 * @example parsePage(undefined) // 1
 * @example parsePage('2')       // 2
 */
export function parsePage(text: string | undefined): number | undefined {
  if (text === undefined) return 1;
  if (!/^[1-9]\d{0,4}$/.test(text)) return undefined;
  const value = Number(text);
  return value <= MAX_PAGE ? value : undefined;
}
