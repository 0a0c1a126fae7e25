/**
 * @module The address ranges of a sharded database (docs/sharding.md): every address has one position in
 * the database's IPv6 space, and shard k answers the positions of its inclusive range `[first, last]`.
 * Ranges tile the space in order: the first starts at `::`, each next one right after the one before,
 * the last ends at `ffff:…:ffff`. Pure, for the build, the app's routing, the tests and the status.
 */
import { type IpAddress, ipv6Text, parseIp } from '../ip/address.ts';

/** A position in the database's IPv6 space: its 128 bits as unsigned 32-bit words, most significant first (as {@link IpAddress}). */
export interface Position {
  readonly w0: number;
  readonly w1: number;
  readonly w2: number;
  readonly w3: number;
}

/** The positions one shard answers, both ends included. */
export interface ShardRange {
  readonly first: Position;
  readonly last: Position;
}

/** `::`, where the first range starts. */
export const FIRST_POSITION: Position = Object.freeze({ w0: 0, w1: 0, w2: 0, w3: 0 });
/** `ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff`, where the last range ends. */
export const LAST_POSITION: Position = Object.freeze({ w0: 0xffffffff, w1: 0xffffffff, w2: 0xffffffff, w3: 0xffffffff });
/** The one range of an unsharded database (N = 1): everything. */
export const WHOLE_SPACE: readonly ShardRange[] = Object.freeze([Object.freeze({ first: FIRST_POSITION, last: LAST_POSITION })]);

/** Negative, zero or positive as `a` is before, at or after `b`. */
function comparePositions(a: Position, b: Position): number {
  return a.w0 !== b.w0 ? a.w0 - b.w0 : a.w1 !== b.w1 ? a.w1 - b.w1 : a.w2 !== b.w2 ? a.w2 - b.w2 : a.w3 - b.w3;
}

/**
 * Where the search tree answers `address` from: an IPv4 address (the parser folds IPv4-mapped ones to
 * it) at `::a.b.c.d`; a 6to4 address (`2002:AABB:CCDD::/48`) at `::AA.BB.CC.DD`, the IPv4 address it
 * embeds, as the tree aliases 2002::/16 to the IPv4 space; any other IPv6 address at itself.
 *
 * @internal Exported for the tests of the routing; the app's routing to shard Workers
 *   (docs/sharding.md, "Serving") calls it through {@link shardIndexOf}.
 * @example effectivePosition(parseIp('2002:c000:221::1')) // { w0: 0, w1: 0, w2: 0, w3: 0xc0000221 }: ::192.0.2.33
 */
export function effectivePosition(address: IpAddress): Position {
  if (address.version === 4) return { w0: 0, w1: 0, w2: 0, w3: address.w3 };
  if (address.w0 >>> 16 === 0x2002) return { w0: 0, w1: 0, w2: 0, w3: (((address.w0 & 0xffff) << 16) | (address.w1 >>> 16)) >>> 0 };
  return address;
}

/**
 * The index of the range holding `address`'s {@link effectivePosition}, by binary search over ranges
 * that tile the space ({@link parseRanges}); 0 when there is one range.
 *
 * @example shardIndexOf(ranges, parseIp('81.2.69.142')) // 0 when ranges[1] starts after ::81.2.69.142
 */
export function shardIndexOf(ranges: readonly ShardRange[], address: IpAddress): number {
  if (ranges.length === 1) return 0;
  const position = effectivePosition(address);
  // The last range whose first position is at or before the address.
  let low = 0;
  let high = ranges.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (comparePositions((ranges[middle] as ShardRange).first, position) <= 0) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * The RFC 5952 text of a position; positions in `::/96` (IPv4 as the tree stores it) and in
 * `::ffff:0:0/96` end in dotted decimal (RFC 5952 section 5), `::` itself excepted.
 *
 * @example formatPosition({ w0: 0, w1: 0, w2: 0, w3: 0x5102458e }) // '::81.2.69.142'
 */
export function formatPosition(position: Position): string {
  const { w0, w1, w2, w3 } = position;
  if (w0 === 0 && w1 === 0 && (w2 === 0 || w2 === 0xffff) && (w2 !== 0 || w3 !== 0)) {
    return `::${w2 === 0 ? '' : 'ffff:'}${w3 >>> 24}.${(w3 >>> 16) & 255}.${(w3 >>> 8) & 255}.${w3 & 255}`;
  }
  return ipv6Text(position);
}

/** The range of the whole database, covering everything: `::` to `ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff`. */
export const WHOLE_RANGE: { readonly first: string; readonly last: string } = Object.freeze({
  first: formatPosition(FIRST_POSITION),
  last: formatPosition(LAST_POSITION),
});

/**
 * The position that IPv6 `text` names (any form {@link parseIp} accepts), or undefined for other text.
 * Unlike an address, `::ffff:a.b.c.d` stays where it is written, and IPv4 text is no position.
 *
 * @internal Exported for its tests; production code reads positions through {@link parseRanges}.
 * @example parsePosition('::81.2.69.142') // { w0: 0, w1: 0, w2: 0, w3: 0x5102458e }
 */
export function parsePosition(text: string): Position | undefined {
  if (!text.includes(':')) return undefined;
  const address = parseIp(text);
  if (address === undefined) return undefined;
  // The parser folds IPv4-mapped text to IPv4 (the only IPv6 it folds): unfold it.
  const { w0, w1, w2, w3 } = address;
  return address.version === 4 ? { w0: 0, w1: 0, w2: 0xffff, w3 } : { w0, w1, w2, w3 };
}

/**
 * Ranges from their text ends, checked: each end a position ({@link parsePosition}), each range not
 * empty, the first starting at `::`, each next one right after the one before, the last ending at
 * `ffff:…:ffff`.
 *
 * @returns the ranges, or what is wrong with them in words.
 * @example parseRanges([{ first: '::', last: '::127.255.255.255' }, { first: '::128.0.0.0', last: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff' }])
 */
export function parseRanges(ends: readonly { readonly first: string; readonly last: string }[]): ShardRange[] | { error: string } {
  const ranges: ShardRange[] = [];
  let expected: Position | undefined = FIRST_POSITION;
  for (const [index, end] of ends.entries()) {
    const first = parsePosition(end.first);
    const last = parsePosition(end.last);
    if (first === undefined || last === undefined) return { error: `shard ${index}: ${JSON.stringify(first ? end.last : end.first)} is not an IPv6 position` };
    if (expected === undefined || comparePositions(first, expected) !== 0) {
      return { error: `shard ${index} starts at ${end.first}, not ${expected ? formatPosition(expected) : 'after the end of the space'}` };
    }
    if (comparePositions(first, last) > 0) return { error: `shard ${index} ends at ${end.last}, before it starts` };
    ranges.push({ first, last });
    expected = nextPosition(last);
  }
  if (ranges.length === 0) return { error: 'no shard' };
  if (expected !== undefined) return { error: `the last shard ends at ${ends.at(-1)?.last}, not ${formatPosition(LAST_POSITION)}` };
  return ranges;
}

/** The position right after `position`, or undefined after the last one. */
function nextPosition(position: Position): Position | undefined {
  const words = [position.w0, position.w1, position.w2, position.w3];
  for (let i = 3; i >= 0; i--) {
    if (words[i] !== 0xffffffff) {
      words[i] = ((words[i] as number) + 1) >>> 0;
      return { w0: words[0] as number, w1: words[1] as number, w2: words[2] as number, w3: words[3] as number };
    }
    words[i] = 0;
  }
  return undefined;
}

/** The position right before `position`, or undefined before `::`. */
export function previousPosition(position: Position): Position | undefined {
  const words = [position.w0, position.w1, position.w2, position.w3];
  for (let i = 3; i >= 0; i--) {
    if (words[i] !== 0) {
      words[i] = ((words[i] as number) - 1) >>> 0;
      return { w0: words[0] as number, w1: words[1] as number, w2: words[2] as number, w3: words[3] as number };
    }
    words[i] = 0xffffffff;
  }
  return undefined;
}
