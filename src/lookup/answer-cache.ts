/**
 * @module The answers of one loaded database: data offset → the parts of `answers.ts` that render it,
 * through caches of fixed size. Each cache is two-way set associative: an offset's hash picks two
 * slots, the one used less recently is replaced, so memory stays bounded whatever is asked (about
 * 20 MB when full with JSON and XML texts, measured by `npm run bench:memory`).
 */
import { type GeoDatabase, NO_LOCATION, NO_NETWORK, type RecordParts } from '../geo/database.ts';
import { LocationPart, NetworkPart } from './answers.ts';

/**
 * log2 of the slots of the per-database caches. Records cost 16 bytes a slot (2 MB), allocated with
 * the caches; locations about 430 bytes per filled slot with their JSON text (800 with XML too),
 * networks about 200. Chosen by measurement:
 *
 * - the single lookup route over random addresses gained about 5 points of the trivial route's rate
 *   from 2^14 locations and 2^13 networks to 2^15 and 2^14, the isolate 10 MB;
 * - two slots per hash instead of one (same memory) cut the misses of the benchmark's 120,000
 *   addresses from 11.9% to 5.4% (records), 9.1% to 5.5% (locations) and 14.3% to 11.2% (networks);
 * - those addresses reach 19,188 networks, more than 2^14 slots hold; with 2^16 network slots their
 *   misses fell from 11.2% to 1.7%, and in two same-run `npm run bench:ab` runs, A and B swapped,
 *   bulk requests gained 4.5% and 7.8% and single lookups 1.6% and 3.3%, for about 7 MB more when
 *   full (the isolate at 86.7 MiB after 800,000 lookups, half JSON and half XML).
 */
export const CACHE_BITS = { records: 17, locations: 15, networks: 16 } as const;

/** The parts of a record without a location or without a network. */
const EMPTY_LOCATION = new LocationPart(NO_LOCATION);
const EMPTY_NETWORK = new NetworkPart(NO_NETWORK);

/**
 * A bounded cache of parts by data offset, two-way set associative: an offset's hash picks a pair of
 * adjacent slots (one cache line), the more recently used first; a new part takes the first slot and
 * moves the other entry to the second, whose entry is dropped.
 */
export class PartCache<Part extends { readonly offset: number }> {
  private readonly slots: (Part | undefined)[];
  private readonly shift: number;

  /** @param bits log2 of the slots. */
  constructor(
    bits: number,
    private readonly make: (offset: number) => Part,
  ) {
    this.slots = new Array<Part | undefined>(1 << bits).fill(undefined);
    this.shift = 32 - bits;
  }

  /** The part at `offset`, made (and cached) when it is not cached. */
  get(offset: number): Part {
    const slots = this.slots;
    const first = (Math.imul(offset, 0x9e3779b1) >>> this.shift) & ~1;
    const recent = slots[first];
    if (recent?.offset === offset) return recent;
    const other = slots[first + 1];
    if (other?.offset === offset) {
      slots[first + 1] = recent;
      slots[first] = other;
      return other;
    }
    const part = this.make(offset);
    slots[first + 1] = recent;
    slots[first] = part;
    return part;
  }
}

/**
 * The answers of one loaded database (offsets mean nothing in another), through three caches:
 *
 * - records: data offset → the offsets of its location and network and its proxy flag, in a typed
 *   array allocated once (it holds numbers, not objects, so it keeps nothing else alive), two-way
 *   set associative as {@link PartCache};
 * - locations and networks: their offset → their part ({@link PartCache}), each part shared by every
 *   record that points to it (far fewer than records: a location is shared by about four records, a
 *   network by six).
 *
 * {@link select} leaves the answer in `location`, `network` and `isProxy`, so that a lookup allocates
 * nothing here unless a part has to be decoded.
 */
export class Answers {
  /** The parts of the record last selected. */
  location: LocationPart = EMPTY_LOCATION;
  network: NetworkPart = EMPTY_NETWORK;
  isProxy = false;

  /**
   * Per slot: [record offset, location offset, network offset, proxy flag]; a pair of slots per hash
   * (32 bytes, one cache line), the more recently used first.
   */
  private readonly records: Int32Array;
  private readonly recordShift: number;
  private readonly locations: PartCache<LocationPart>;
  private readonly networks: PartCache<NetworkPart>;
  private readonly parts: RecordParts = { location: -1, network: -1, proxy: false };

  /** @param bits log2 of each cache's slots, at least 1 (a test makes them tiny to see evictions). */
  constructor(
    readonly database: GeoDatabase,
    bits: { readonly [cache in keyof typeof CACHE_BITS]: number } = CACHE_BITS,
  ) {
    this.records = new Int32Array(4 << bits.records).fill(-1);
    this.recordShift = 32 - bits.records;
    this.locations = new PartCache(bits.locations, (offset) => new LocationPart(database.locationAt(offset), offset));
    this.networks = new PartCache(bits.networks, (offset) => new NetworkPart(database.networkAt(offset), offset));
  }

  /**
   * Selects the answer for the record at `offset` into `location`, `network` and `isProxy`.
   *
   * @throws ProblemError `DATA_UNAVAILABLE` when the record is corrupt.
   */
  select(offset: number): this {
    const records = this.records;
    const first = ((Math.imul(offset, 0x9e3779b1) >>> this.recordShift) << 2) & ~7;
    if (records[first] !== offset) this.recordMiss(offset, first);
    const location = records[first + 1] as number;
    const network = records[first + 2] as number;
    this.isProxy = records[first + 3] === 1;
    this.location = location < 0 ? EMPTY_LOCATION : this.locations.get(location);
    this.network = network < 0 ? EMPTY_NETWORK : this.networks.get(network);
    return this;
  }

  /**
   * Puts the record at `offset` in the first slot of its pair (`first`), from the second slot or
   * decoded, and moves the first slot's entry to the second.
   */
  private recordMiss(offset: number, first: number): void {
    const records = this.records;
    const second = first + 4;
    let location: number;
    let network: number;
    let proxy: number;
    if (records[second] === offset) {
      location = records[second + 1] as number;
      network = records[second + 2] as number;
      proxy = records[second + 3] as number;
    } else {
      const parts = this.database.partsAt(offset, this.parts);
      location = parts.location;
      network = parts.network;
      proxy = parts.proxy ? 1 : 0;
    }
    records.copyWithin(second, first, second);
    records[first] = offset;
    records[first + 1] = location;
    records[first + 2] = network;
    records[first + 3] = proxy;
  }
}
