/**
 * @module Where each ASN's addresses are, by the build's own location data: one pass over the overlay's
 * networks in address order beside every ASN's ranges sorted, counting per ASN and country the IPv4
 * addresses and the IPv6 /64 networks touched (a /64 that the data splits counts once per country
 * that holds part of it). The regions the database answers through an embedded IPv4 address are
 * counted as it answers them: 2002::/16 (6to4) by the country of that address; the IPv4-mapped
 * ::ffff:0:0/96, within the one /64 ::/64, as placed in no country.
 */
import { bytesToBigInt } from '../mmdb/network.ts';
import { type AsnRanges, ipv4ValueOf, lastOf } from './ranges.ts';

/** The country the data places a network in: ISO 3166-1 alpha-2, or '' for none. */
export type CountryKey = string;

/** IPv4 addresses and IPv6 /64s of one ASN in one country. */
export interface CountryCount {
  ipv4: number;
  /** Beyond 2^53 for the largest ranges of MaxMind's test data: counted exactly, answered as the nearest double. */
  ipv6: bigint;
  /** The last /64 counted, so that the next part in the same /64 does not count it again. */
  lastNetwork: bigint;
}

/** Visits every network and empty space of the database in address order with its country ('' for none). */
export type ForEachCountry = (visit: (start: Uint8Array, prefixLength: number, country: CountryKey) => void) => void;

const IPV4_LAST = 0xffffffff;
/** The first position after ::/96. */
const IPV4_END = 0x100000000n;
const SIX_TO_FOUR_FIRST = 0x2002n << 112n;
const SIX_TO_FOUR_LAST = (0x2003n << 112n) - 1n;
const SPACE_LAST = (1n << 128n) - 1n;
/** A country key for the 6to4 region, which the pass resolves through the IPv4 networks. */
const SIX_TO_FOUR = '6to4';

/** One range of one ASN, as the pass meets it: `owner` is the ASN's place in the list given. */
type Item<T extends number | bigint> = { readonly first: T; readonly last: T; readonly owner: number };

/**
 * The countries of every ASN of `asns`: `result[i]` counts `asns[i]`'s addresses by country key.
 *
 * @param forEachCountry the database's networks in address order ({@link ForEachCountry}).
 */
export function countAsnCountries(asns: readonly AsnRanges[], forEachCountry: ForEachCountry): Map<CountryKey, CountryCount>[] {
  const counts = asns.map(() => new Map<CountryKey, CountryCount>());
  const countOf = (owner: number, country: CountryKey): CountryCount => {
    const map = counts[owner] as Map<CountryKey, CountryCount>;
    let count = map.get(country);
    if (count === undefined) {
      count = { ipv4: 0, ipv6: 0n, lastNetwork: -1n };
      map.set(country, count);
    }
    return count;
  };
  /** Adds IPv6 /64s `from`..`to` in `country`, the first not again when it was the last counted there. */
  const addNetworks = (owner: number, country: CountryKey, from: bigint, to: bigint) => {
    const count = countOf(owner, country);
    count.ipv6 += to - from + 1n - (from === count.lastNetwork ? 1n : 0n);
    count.lastNetwork = to;
  };
  const places = new Ipv4Places();
  /** Adds the 6to4 /64s `from`..`to` by the countries of the IPv4 addresses they embed. */
  const sixToFour = (owner: number, from: bigint, to: bigint) => {
    const { byCountry, firstCountry, lastCountry } = places.sixToFour(from, to);
    if (countOf(owner, firstCountry).lastNetwork === from) byCountry.set(firstCountry, (byCountry.get(firstCountry) ?? 1) - 1);
    for (const [country, networks] of byCountry) countOf(owner, country).ipv6 += BigInt(networks);
    countOf(owner, lastCountry).lastNetwork = to;
  };
  const ipv4 = new Sweep<number>(
    asns.flatMap((entry, owner) => entry.ipv4.map((span) => ({ ...span, owner }))),
    (item, country, first, last) => {
      countOf(item.owner, country).ipv4 += last - first + 1;
    },
  );
  const ipv6 = new Sweep<bigint>(
    asns.flatMap((entry, owner) => entry.ipv6.map((span) => ({ ...span, owner }))),
    (item, country, first, last) => {
      if (country !== SIX_TO_FOUR) addNetworks(item.owner, country, first >> 64n, last >> 64n);
      else sixToFour(item.owner, first >> 64n, last >> 64n);
    },
  );
  // Space the walk skips (the IPv4-alias regions): 6to4 through its IPv4 address, the rest in no country.
  const gap = (first: bigint, last: bigint) => {
    const sixFrom = first > SIX_TO_FOUR_FIRST ? first : SIX_TO_FOUR_FIRST;
    const sixTo = last < SIX_TO_FOUR_LAST ? last : SIX_TO_FOUR_LAST;
    if (sixFrom > sixTo) {
      ipv6.part(first, last, '');
      return;
    }
    if (first < sixFrom) ipv6.part(first, sixFrom - 1n, '');
    ipv6.part(sixFrom, sixTo, SIX_TO_FOUR);
    if (sixTo < last) ipv6.part(sixTo + 1n, last, '');
  };

  // IPv6 ranges are all above ::/96 in every source seen; where one is not, the IPv4 networks meet it too.
  const ipv6InIpv4Space = asns.some((entry) => (entry.ipv6[0]?.first ?? IPV4_END) < IPV4_END);
  let expected = 0n;
  forEachCountry((start, prefixLength, country) => {
    const value = ipv4ValueOf(start, prefixLength);
    if (value >= 0) {
      // Within ::/96, which the walk covers without a gap: the IPv4 ranges, by 32-bit values.
      const last = value + 2 ** (128 - prefixLength) - 1;
      places.add(value, country);
      ipv4.part(value, last, country);
      if (ipv6InIpv4Space && ipv6.mayMeet(BigInt(last))) ipv6.part(BigInt(value), BigInt(last), country);
      expected = -1n;
      return;
    }
    const first = bytesToBigInt(start);
    const last = lastOf(first, prefixLength);
    if (expected >= 0n && first > expected) gap(expected, first - 1n);
    expected = last + 1n;
    if (first <= BigInt(IPV4_LAST)) {
      places.add(Number(first), country);
      ipv4.part(Number(first), Math.min(IPV4_LAST, Number(last)), country);
    }
    ipv6.part(first, last, country);
  });
  if (expected >= 0n && expected <= SPACE_LAST) gap(expected, SPACE_LAST);
  return counts;
}

/**
 * Ranges sorted by their first address, met by the parts of the space in address order: each part
 * counts, for every range it overlaps, the overlap in the part's country.
 */
class Sweep<T extends number | bigint> {
  private next = 0;
  private active: Item<T>[] = [];
  private readonly items: Item<T>[];

  constructor(
    items: Item<T>[],
    private readonly count: (item: Item<T>, country: CountryKey, first: T, last: T) => void,
  ) {
    this.items = items.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  }

  /** Whether a part that ends at `last` may overlap a range: one is under way, or the next starts by then. */
  mayMeet(last: T): boolean {
    return this.active.length > 0 || (this.next < this.items.length && (this.items[this.next] as Item<T>).first <= last);
  }

  /** The part `first`..`last` of the space (after every part before it), in `country`. */
  part(first: T, last: T, country: CountryKey): void {
    while (this.next < this.items.length && (this.items[this.next] as Item<T>).first <= last) this.active.push(this.items[this.next++] as Item<T>);
    if (this.active.length === 0) return;
    let kept = 0;
    for (const item of this.active) {
      const from = item.first > first ? item.first : first;
      const to = item.last < last ? item.last : last;
      if (from <= to) this.count(item, country, from, to);
      if (item.last > last) this.active[kept++] = item;
    }
    this.active.length = kept;
  }
}

/** The countries of the IPv4 space, network by network in address order, for the 6to4 region that embeds it. */
class Ipv4Places {
  private starts = new Uint32Array(1 << 16);
  private places = new Uint16Array(1 << 16);
  private size = 0;
  private readonly keys: CountryKey[] = [];
  private readonly keyIndex = new Map<CountryKey, number>();

  /** The key of the last country added: consecutive networks are mostly of one. */
  private lastCountry: CountryKey | undefined;
  private lastKey = 0;

  /** Records that the IPv4 addresses from `start` up to the next start are in `country`. */
  add(start: number, country: CountryKey): void {
    if (this.size === this.starts.length) {
      const starts = new Uint32Array(this.size * 2);
      starts.set(this.starts);
      this.starts = starts;
      const places = new Uint16Array(this.size * 2);
      places.set(this.places);
      this.places = places;
    }
    if (country !== this.lastCountry) {
      let key = this.keyIndex.get(country);
      if (key === undefined) {
        key = this.keys.length;
        this.keys.push(country);
        this.keyIndex.set(country, key);
      }
      this.lastCountry = country;
      this.lastKey = key;
    }
    this.starts[this.size] = start;
    this.places[this.size] = this.lastKey;
    this.size++;
  }

  /**
   * The /64 networks `from`..`to` of 2002::/16 by the country of the IPv4 address each embeds
   * (2002:AABB:CCDD::/48 is AA.BB.CC.DD, 2^16 /64s), and the countries of the first and the last.
   */
  sixToFour(from: bigint, to: bigint): { byCountry: Map<CountryKey, number>; firstCountry: CountryKey; lastCountry: CountryKey } {
    const firstAddress = Number((from >> 16n) & 0xffffffffn);
    const lastAddress = Number((to >> 16n) & 0xffffffffn);
    // The /64s of the first and the last address that lie before `from` and after `to`.
    const before = Number(from & 0xffffn);
    const after = 0xffff - Number(to & 0xffffn);
    const byCountry = new Map<CountryKey, number>();
    let firstCountry: CountryKey = '';
    let lastCountry: CountryKey = '';
    for (let index = this.indexOf(firstAddress); index < this.size; index++) {
      const start = Math.max(this.starts[index] as number, firstAddress);
      if (start > lastAddress) break;
      const end = Math.min(index + 1 < this.size ? (this.starts[index + 1] as number) - 1 : IPV4_LAST, lastAddress);
      const country = this.keys[this.places[index] as number] as CountryKey;
      const networks = (end - start + 1) * 0x10000 - (start === firstAddress ? before : 0) - (end === lastAddress ? after : 0);
      byCountry.set(country, (byCountry.get(country) ?? 0) + networks);
      if (start === firstAddress) firstCountry = country;
      lastCountry = country;
    }
    return { byCountry, firstCountry, lastCountry };
  }

  /** The network that holds IPv4 address `address` (its index; 0 before the first). */
  private indexOf(address: number): number {
    let low = 0;
    let high = this.size - 1;
    let found = 0;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if ((this.starts[middle] as number) <= address) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  }
}
