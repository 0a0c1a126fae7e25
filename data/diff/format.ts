/** @module How a diff's tables write figures: shares to three significant digits, counts with thousands separators. */
import { markdownText } from '../markdown.ts';

/** `0.412%`: three significant digits, or `0%`. */
export function percent(share: number): string {
  if (share === 0) return '0%';
  return `${Number((share * 100).toPrecision(3))}%`;
}

/** `1,048,576`: rounded, with separators. */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** A size in its family's unit: IPv4 addresses as {@link count}, IPv6 /64s from ten million on as `8.80e+12`. */
export function sized(n: number, family: 'ipv4' | 'ipv6'): string {
  return family === 'ipv6' && n >= 1e7 ? n.toExponential(2) : count(n);
}

/** `IPv4`, `IPv6`. */
export const FAMILY = { ipv4: 'IPv4', ipv6: 'IPv6' } as const;

/** The unit each family's sizes are counted in. */
export const UNIT = { ipv4: 'addresses', ipv6: '/64s' } as const;

/** A source's text as one Markdown table cell: control characters as spaces, cut to `most` characters (with `…`), as literal text (`markdownText`). */
export function cellText(text: string, most: number): string {
  const line = [...text.replace(/\p{Cc}/gu, ' ')];
  return markdownText(line.length > most ? `${line.slice(0, most - 1).join('')}…` : line.join(''));
}
