/**
 * @module The ranges each ASN holds in the build's routing sources, as the ASN object answers them: per
 * family, merged where they overlap or touch, then cut into the fewest CIDR prefixes in address order,
 * with the addresses they hold (IPv4 addresses, IPv6 /64 networks touched). IPv4 ranges are 32-bit
 * values; IPv6 ranges are positions of the search tree's 128-bit space (`data/mmdb/search-tree.ts`).
 */
import type { StoredNetwork } from '../../src/geo/schema.ts';
import { bytesToBigInt, isIpv4Network, rangeToNetworks } from '../mmdb/network.ts';
import type { Network } from '../mmdb/search-tree.ts';
import type { NetworkSource } from '../sources/source.ts';

/** An inclusive range: of IPv4 values (`number`) or of 128-bit positions (`bigint`). */
export interface Span<T extends number | bigint> {
  readonly first: T;
  readonly last: T;
}

/** What the sources say of one ASN. */
export interface AsnRanges {
  readonly asn: number;
  /** The organisation name most of its networks carry (the first read of equals); '' when none names it. */
  readonly organization: string;
  /** Merged ranges of each family, sorted, none touching the next. */
  readonly ipv4: readonly Span<number>[];
  readonly ipv6: readonly Span<bigint>[];
}

/** A prefix as the ASN object stores it: its family, its length, and its network's first `ceil(length / 8)` bytes. */
export interface Prefix {
  readonly ipv4: boolean;
  readonly length: number;
  readonly bytes: Uint8Array;
}

/** Addresses in a network of each prefix length of the 128-bit space, 0 to 128. */
const SIZES = Array.from({ length: 129 }, (_, length) => 1n << BigInt(128 - length));

/** The last position of a network that starts at `first` and is `prefixLength` bits long. */
export function lastOf(first: bigint, prefixLength: number): bigint {
  return first + (SIZES[prefixLength] as bigint) - 1n;
}

/** The IPv4 value of a network of the 128-bit space that lies within ::/96, or -1 for any other. */
export function ipv4ValueOf(bytes: Uint8Array, prefixLength: number): number {
  if (!isIpv4Network({ bytes, prefixLength })) return -1;
  return (((bytes[12] as number) << 24) | ((bytes[13] as number) << 16) | ((bytes[14] as number) << 8) | (bytes[15] as number)) >>> 0;
}

/**
 * Collects every ASN that routing sources name, with its ranges, while the build reads them for the
 * database: {@link watch} gives a source that passes each network on to the collector as it is read,
 * so that the sources are read once. A network without an ASN is left out; one inside ::/96 counts as
 * IPv4 (the database answers it as IPv4), any other as IPv6.
 */
export class AsnRangeCollector {
  private readonly byAsn = new Map<number, { names: Map<string, number>; ipv4: Span<number>[]; ipv6: Span<bigint>[] }>();

  /** `source`, whose networks are also collected here as its `forEach` visits them. */
  watch(source: NetworkSource): NetworkSource {
    return {
      info: source.info,
      forEach: (visit) =>
        source.forEach((network, facts) => {
          this.add(network, facts);
          visit(network, facts);
        }),
    };
  }

  /** Every ASN collected, by number, with its merged ranges and its organisation. */
  ranges(): AsnRanges[] {
    return [...this.byAsn]
      .sort(([a], [b]) => a - b)
      .map(([asn, entry]) => ({ asn, organization: mostCommon(entry.names), ipv4: merged(entry.ipv4, 1), ipv6: merged(entry.ipv6, 1n) }));
  }

  private add(network: Network, facts: StoredNetwork): void {
    if (facts.asn === undefined) return;
    let entry = this.byAsn.get(facts.asn);
    if (entry === undefined) {
      entry = { names: new Map(), ipv4: [], ipv6: [] };
      this.byAsn.set(facts.asn, entry);
    }
    const ipv4 = ipv4ValueOf(network.bytes, network.prefixLength);
    if (ipv4 >= 0) {
      entry.ipv4.push({ first: ipv4, last: ipv4 + 2 ** (128 - network.prefixLength) - 1 });
    } else {
      const first = bytesToBigInt(network.bytes);
      entry.ipv6.push({ first, last: lastOf(first, network.prefixLength) });
    }
    const name = facts.organization ?? '';
    entry.names.set(name, (entry.names.get(name) ?? 0) + 1);
  }
}

/** The key seen most often (the first of equals in insertion order); '' for none. */
function mostCommon(counts: ReadonlyMap<string, number>): string {
  let best = '';
  let most = 0;
  for (const [key, count] of counts) {
    if (count > most) {
      best = key;
      most = count;
    }
  }
  return best;
}

/** Ranges sorted and merged where they overlap or touch (`one` is 1 of their type). */
function merged<T extends number | bigint>(spans: Span<T>[], one: T): Span<T>[] {
  spans.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  const out: { first: T; last: T }[] = [];
  for (const span of spans) {
    const top = out.at(-1);
    if (top !== undefined && span.first <= (top.last as number) + (one as number)) {
      if (span.last > top.last) top.last = span.last;
    } else {
      out.push({ first: span.first, last: span.last });
    }
  }
  return out;
}

/** The fewest CIDR prefixes covering exactly the merged IPv4 ranges `spans`, in address order (IPv4 at ::a.b.c.d/(96+n) in the tree's space). */
export function ipv4Prefixes(spans: readonly Span<number>[]): Prefix[] {
  return spans.flatMap((span) =>
    rangeToNetworks(BigInt(span.first), BigInt(span.last)).map(({ bytes, prefixLength }) => {
      const length = prefixLength - 96;
      return { ipv4: true, length, bytes: bytes.subarray(12, 12 + Math.ceil(length / 8)) };
    }),
  );
}

/** The fewest CIDR prefixes covering exactly the merged IPv6 ranges `spans`, in address order. */
export function ipv6Prefixes(spans: readonly Span<bigint>[]): Prefix[] {
  return spans.flatMap((span) =>
    rangeToNetworks(span.first, span.last).map(({ bytes, prefixLength }) => ({
      ipv4: false,
      length: prefixLength,
      bytes: bytes.subarray(0, Math.ceil(prefixLength / 8)),
    })),
  );
}

/** IPv4 addresses in merged IPv4 ranges. */
export function ipv4Addresses(spans: readonly Span<number>[]): number {
  return spans.reduce((sum, span) => sum + span.last - span.first + 1, 0);
}

/**
 * IPv6 /64 networks that merged IPv6 ranges touch, each counted once: exact up to 2^53 (an ASN holding
 * less than a /11), the nearest double above, as a JSON number carries it.
 */
export function ipv6Networks(spans: readonly Span<bigint>[]): number {
  let count = 0n;
  let lastCounted = -1n;
  for (const span of spans) {
    const from = span.first >> 64n;
    const to = span.last >> 64n;
    count += to - from + 1n - (from === lastCounted ? 1n : 0n);
    lastCounted = to;
  }
  return Number(count);
}
