/**
 * @module The entries of a geofeed as the build keeps them, in little memory (the largest feed accepted
 * holds near a million lines): each entry's network, prefix length and line in typed arrays, and each
 * distinct place (country, region, city, postal code) once; an entry object is made when asked for.
 * Sorted by network, the entries also give the prefixes given twice and the space the feed covers,
 * each address counted once.
 */

import { isIpv4Network, networkContains, networkText } from '../mmdb/network.ts';
import type { Network } from '../mmdb/search-tree.ts';
import type { Coverage } from '../sources/flag-lists/coverage.ts';

/** Where a line of a geofeed says its prefix is. */
export interface GeofeedPlace {
  /** ISO 3166-1 alpha-2, upper case; '' when the line states no location (empty fields, or `ZZ`: RFC 8805, section 2.1.2). */
  readonly countryCode: string;
  /** The ISO 3166-2 subdivision code without its country (`ENG` of `GB-ENG`), upper case; '' when none. */
  readonly regionCode: string;
  /** The city as written, '' when none. */
  readonly city: string;
  /** The postal code as written, '' when none. */
  readonly postalCode: string;
}

/** One line of a geofeed, checked: where it applies and what it says is there. */
export interface GeofeedEntry extends GeofeedPlace {
  /** The line of the file it is on, from 1. */
  readonly line: number;
  /** The prefix as a network of the search tree's space (IPv4 a.b.c.d/n at ::a.b.c.d/(96+n)). */
  readonly network: Network;
  /** The prefix in canonical text: `81.2.69.0/24`, `2001:db8::/32` (RFC 5952). */
  readonly prefix: string;
}

/** A prefix given again: the entry (its index) and its line, and the line that gave it first. */
export interface GivenTwice {
  readonly index: number;
  readonly line: number;
  readonly first: number;
}

/** The entries of one geofeed, in the order of their lines. */
export class GeofeedEntries implements Iterable<GeofeedEntry> {
  /** Entries held. */
  length = 0;
  private bytes = new Uint8Array(16 * 1024);
  private lengths = new Uint8Array(1024);
  private lines = new Uint32Array(1024);
  private placeIds = new Uint32Array(1024);
  private readonly places: GeofeedPlace[] = [];
  private readonly placeIndex = new Map<string, number>();

  /** Adds an entry; `place` may be left out where only the networks matter (a download's check). */
  add(network: Network, line: number, place?: GeofeedPlace): void {
    if (this.length === this.lengths.length) this.grow();
    const i = this.length++;
    this.bytes.set(network.bytes, 16 * i);
    this.lengths[i] = network.prefixLength;
    this.lines[i] = line;
    if (place !== undefined) this.placeIds[i] = this.placeId(place);
  }

  /** The network of entry `i` (its bytes a view of the store: not to be changed). */
  networkAt(i: number): Network {
    return { bytes: this.bytes.subarray(16 * i, 16 * i + 16), prefixLength: this.lengths[i] as number };
  }

  /** The prefix length of entry `i`, in the tree's space. */
  prefixLengthAt(i: number): number {
    return this.lengths[i] as number;
  }

  /** Entry `i`, made whole. */
  at(i: number): GeofeedEntry {
    const network = this.networkAt(i);
    return { line: this.lines[i] as number, network, prefix: this.prefixAt(i), ...(this.places[this.placeIds[i] as number] as GeofeedPlace) };
  }

  *[Symbol.iterator](): Iterator<GeofeedEntry> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }

  /** Every entry whose prefix an earlier line gave, with that line, in line order. */
  givenTwice(): GivenTwice[] {
    const order = this.byNetwork();
    const twice: GivenTwice[] = [];
    // Equal networks sort by line: the first of each run is the line that gave the prefix first.
    let first = order[0] as number;
    for (let k = 1; k < order.length; k++) {
      const i = order[k] as number;
      if (this.compare(first, i) !== 0) first = i;
      else twice.push({ line: this.lines[i] as number, first: this.lines[first] as number, index: i });
    }
    return twice.sort((x, y) => x.line - y.line);
  }

  /** The prefix of entry `i` in canonical text. */
  prefixAt(i: number): string {
    return networkText(this.networkAt(i));
  }

  /** The space the entries cover together, each address once: IPv4 addresses and IPv6 /64s (`flag-lists/coverage.ts`'s units). */
  coverage(): Coverage {
    let ipv4 = 0;
    let ipv6 = 0;
    let outer: Network | undefined;
    for (const i of this.byNetwork()) {
      const network = this.networkAt(i);
      if (outer !== undefined && networkContains(outer, network)) continue;
      outer = network;
      if (isIpv4Network(network)) ipv4 += 2 ** (128 - network.prefixLength);
      else ipv6 += 2 ** (64 - network.prefixLength);
    }
    return { ipv4, ipv6 };
  }

  /** The entries' indices by first address, a wider network before those it holds, then by line. */
  private byNetwork(): Uint32Array {
    return Uint32Array.from({ length: this.length }, (_, i) => i).sort((a, b) => this.compare(a, b) || a - b);
  }

  private compare(a: number, b: number): number {
    const { bytes } = this;
    for (let k = 0; k < 16; k++) {
      const d = (bytes[16 * a + k] as number) - (bytes[16 * b + k] as number);
      if (d !== 0) return d;
    }
    return (this.lengths[a] as number) - (this.lengths[b] as number);
  }

  private placeId(place: GeofeedPlace): number {
    const key = `${place.countryCode}\0${place.regionCode}\0${place.city}\0${place.postalCode}`;
    let id = this.placeIndex.get(key);
    if (id === undefined) {
      id = this.places.length;
      this.places.push({ countryCode: place.countryCode, regionCode: place.regionCode, city: place.city, postalCode: place.postalCode });
      this.placeIndex.set(key, id);
    }
    return id;
  }

  private grow(): void {
    const size = this.lengths.length * 2;
    const grown = <T extends Uint8Array | Uint32Array>(array: T, make: (n: number) => T, per = 1): T => {
      const next = make(size * per);
      next.set(array);
      return next;
    };
    this.bytes = grown(this.bytes, (n) => new Uint8Array(n), 16);
    this.lengths = grown(this.lengths, (n) => new Uint8Array(n));
    this.lines = grown(this.lines, (n) => new Uint32Array(n));
    this.placeIds = grown(this.placeIds, (n) => new Uint32Array(n));
  }
}
