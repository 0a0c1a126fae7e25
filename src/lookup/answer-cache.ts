/**
 * @module The answers of one loaded database: data offset → the parts of `answers.ts` that render it,
 * and the texts of single JSON answers, through caches of fixed size. Each cache is set associative:
 * an offset's hash picks a set of two (records) or four slots (the others), the one used least
 * recently is replaced, so memory stays bounded whatever is asked (measured by `npm run bench:memory`:
 * about 21 MiB when full with JSON answers, 28 MiB with JSON and XML answers).
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
 *   full (the isolate at 86.7 MiB after 800,000 lookups, half JSON and half XML);
 * - sets of four slots instead of two for locations and networks ({@link PART_WAYS}, same memory): their
 *   misses fell from 5.5% to 3.0% and from 1.7% to 0.4%; in three `bench:ab` runs (A and B swapped in
 *   one), bulk requests gained 7.6%, −1.3% and 3.3%, single lookups 5.0%, 0.9% and 1.6%;
 * - `locationJsons`, the single JSON answer's text of each location ({@link Answers.selectJson}, about
 *   600 bytes, most of it the country's facts): the sample's 19,807 locations miss 11.0% of them in
 *   2^14 slots and 3.0% in 2^15, but 2^15 slots took the isolate with full caches to 92.3 MiB over
 *   the empty one against 84.2 MiB with 2^14 (78.7 MiB without these texts), too close to 100 MB.
 *   A miss makes the text again from the cached location part.
 */
export const CACHE_BITS = { records: 17, locations: 15, networks: 16, locationJsons: 14 } as const;

/** Slots per set of the location and network caches (fewer when a cache has fewer slots). */
export const PART_WAYS = 4;

/** The parts of a record without a location or without a network. */
const EMPTY_LOCATION = new LocationPart(NO_LOCATION);
const EMPTY_NETWORK = new NetworkPart(NO_NETWORK);
const EMPTY_LOCATION_JSON = EMPTY_LOCATION.runJson();

/**
 * A bounded cache of parts by data offset, set associative: an offset's hash picks a set of `ways`
 * slots, kept in order of use, the most recent first; a part found in the set moves to the front, and
 * a new part takes the front and drops the last. Each slot is a pair of entries in one array, the
 * offset and the part, so that a set's offsets lie together (a set of four is 32 bytes) and finding
 * a part reads no other part.
 */
export class PartCache<Part> {
  /** Per slot: the part's offset, then the part; both -1 while the slot is empty. */
  private readonly slots: (number | Part)[];
  private readonly shift: number;
  private readonly setMask: number;

  /**
   * @param bits log2 of the slots, at least log2 of `ways`.
   * @param ways slots per set: 1, 2, 4 or 8.
   */
  constructor(
    bits: number,
    private readonly make: (offset: number) => Part,
    private readonly ways = PART_WAYS,
  ) {
    if (![1, 2, 4, 8].includes(ways) || 1 << bits < ways) throw new RangeError(`a cache of 2^${bits} slots cannot have sets of ${ways}`);
    // Every entry -1, offsets and parts alike: an empty slot's offset matches no part's, so its part
    // is never read. One builtin fill, not a loop that would run in the interpreter on first use.
    this.slots = new Array<number | Part>(2 << bits).fill(-1);
    this.shift = 32 - bits;
    this.setMask = ~(ways - 1);
  }

  /** The part at `offset`, made (and cached) when it is not cached. */
  get(offset: number): Part {
    const slots = this.slots;
    const set = ((Math.imul(offset, 0x9e3779b1) >>> this.shift) & this.setMask) << 1;
    if (slots[set] === offset) return slots[set + 1] as Part;
    const end = set + 2 * this.ways;
    let at = set + 2;
    while (at < end && slots[at] !== offset) at += 2;
    const part = at < end ? (slots[at + 1] as Part) : this.make(offset);
    // Move the slots before it (or all but the last) one place back, and put it first.
    for (let from = Math.min(at, end - 2) - 2; from >= set; from -= 2) {
      slots[from + 2] = slots[from] as number;
      slots[from + 3] = slots[from + 1] as number | Part;
    }
    slots[set] = offset;
    slots[set + 1] = part;
    return part;
  }
}

/**
 * The answers of one loaded database (offsets mean nothing in another), through these caches:
 *
 * - records: data offset → the offsets of its location and network and its proxy flag, in a typed
 *   array allocated once (it holds numbers, not objects, so it keeps nothing else alive), two-way
 *   set associative (a set of two slots is 32 bytes, one cache line);
 * - locations and networks: their offset → their part ({@link PartCache}), each part shared by every
 *   record that points to it (far fewer than records: a location is shared by about four records, a
 *   network by six);
 * - the single JSON answer's texts ({@link selectJson}): location offset → its run of the answer as
 *   one string, network offset → its part's JSON text (the same string, kept while the part is not).
 *
 * {@link select} leaves the answer in `location`, `network` and `isProxy`, so that a lookup allocates
 * nothing here unless a part has to be decoded.
 */
export class Answers {
  /** The parts of the record last selected ({@link select}). */
  location: LocationPart = EMPTY_LOCATION;
  network: NetworkPart = EMPTY_NETWORK;
  /** The texts of the record last selected for a single JSON answer ({@link selectJson}). */
  locationJson = EMPTY_LOCATION_JSON;
  networkJson = EMPTY_NETWORK.json;
  /** The proxy flag of the record last selected, either way. */
  isProxy = false;

  /**
   * Per slot: [record offset, location offset, network offset, proxy flag]; a pair of slots per hash
   * (32 bytes, one cache line), the more recently used first.
   */
  private readonly records: Int32Array;
  private readonly recordShift: number;
  private readonly locations: PartCache<LocationPart>;
  private readonly networks: PartCache<NetworkPart>;
  /** By location offset: its {@link LocationPart.runJson}. By network offset: its {@link NetworkPart.json}. */
  private readonly locationJsons: PartCache<string>;
  private readonly networkJsons: PartCache<string>;
  private readonly parts: RecordParts = { location: -1, network: -1, proxy: false };
  /** The location and network offsets of the record last read (-1: none). */
  private locationOffset = -1;
  private networkOffset = -1;

  /** @param bits log2 of each cache's slots, at least 1 (a test makes them tiny to see evictions). */
  constructor(
    readonly database: GeoDatabase,
    bits: { readonly [cache in keyof typeof CACHE_BITS]: number } = CACHE_BITS,
  ) {
    this.records = new Int32Array(4 << bits.records).fill(-1);
    this.recordShift = 32 - bits.records;
    const ways = (cacheBits: number) => Math.min(PART_WAYS, 1 << cacheBits);
    this.locations = new PartCache(bits.locations, (offset) => new LocationPart(database.locationAt(offset)), ways(bits.locations));
    this.networks = new PartCache(bits.networks, (offset) => new NetworkPart(database.networkAt(offset)), ways(bits.networks));
    this.locationJsons = new PartCache(bits.locationJsons, (offset) => this.locations.get(offset).runJson(), ways(bits.locationJsons));
    this.networkJsons = new PartCache(bits.networks, (offset) => this.networks.get(offset).json, ways(bits.networks));
  }

  /**
   * Selects the answer for the record at `offset` into `location`, `network` and `isProxy`.
   *
   * @throws ProblemError `DATA_UNAVAILABLE` when the record is corrupt.
   */
  select(offset: number): this {
    this.readRecord(offset);
    this.location = this.locationOffset < 0 ? EMPTY_LOCATION : this.locations.get(this.locationOffset);
    this.network = this.networkOffset < 0 ? EMPTY_NETWORK : this.networks.get(this.networkOffset);
    return this;
  }

  /**
   * Selects the texts of the single JSON answer for the record at `offset` into `locationJson`,
   * `networkJson` and `isProxy`, without reading the parts themselves when the texts are cached.
   * Between requests the runtime's own work evicts this data from the processor's caches, so each
   * object a lookup reads costs it a memory access: this way a lookup reads the record's slot, two
   * sets of slots and two texts, where {@link select} and the parts' texts were ten places.
   *
   * @throws ProblemError `DATA_UNAVAILABLE` when the record is corrupt.
   */
  selectJson(offset: number): this {
    this.readRecord(offset);
    this.locationJson = this.locationOffset < 0 ? EMPTY_LOCATION_JSON : this.locationJsons.get(this.locationOffset);
    this.networkJson = this.networkOffset < 0 ? EMPTY_NETWORK.json : this.networkJsons.get(this.networkOffset);
    return this;
  }

  /** Reads the record at `offset` from its slot (filled first if it was not cached) into `locationOffset`, `networkOffset` and `isProxy`. */
  private readRecord(offset: number): void {
    const records = this.records;
    const first = ((Math.imul(offset, 0x9e3779b1) >>> this.recordShift) << 2) & ~7;
    if (records[first] !== offset) this.recordMiss(offset, first);
    this.locationOffset = records[first + 1] as number;
    this.networkOffset = records[first + 2] as number;
    this.isProxy = records[first + 3] === 1;
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
