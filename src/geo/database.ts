/**
 * @module The compiled geolocation database in memory, searched without I/O (`load.ts` loads it
 * from R2 once per isolate).
 *
 * Reads decode only the compact schema's fields, straight from the bytes: a record's parts are found
 * by their offsets (pointers) without being read, map keys are recognised by the offset of their one
 * stored copy, and strings that the data shares are decoded once (`partsAt`, `locationAt`).
 *
 */
import { ProblemError } from '../errors/problem.ts';
import { MmdbFormatError, newField } from '../mmdb/decoder.ts';
import { OffsetCache } from '../mmdb/offset-cache.ts';
import { MmdbReader } from '../mmdb/reader.ts';
import { COORDINATE_SCALE, DATABASE_TYPE } from './schema.ts';

/** Where an address is, decoded from a stored location map (`StoredLocation`). */
export interface GeoLocation {
  /** ISO 3166-1 alpha-2, or ''. */
  readonly countryCode: string;
  readonly regionName: string;
  /** ISO 3166-2 code without the country prefix, or ''. */
  readonly regionCode: string;
  readonly cityName: string;
  readonly postalCode: string;
  /** WGS84 decimal degrees, 0 when unknown. */
  readonly latitude: number;
  readonly longitude: number;
  /** IANA zone of the location, or ''. */
  readonly timeZone: string;
}

/** Who routes an address, decoded from a stored network map (`StoredNetwork`). */
export interface GeoNetwork {
  /** Autonomous system number, 0 when unknown. */
  readonly asn: number;
  readonly organization: string;
}

/** What the database holds for an address, decoded from the compact schema (DESIGN.md section 2). */
export interface GeoFacts extends GeoLocation {
  /** Autonomous system number, 0 when unknown. */
  readonly asn: number;
  readonly asnOrganization: string;
  readonly isProxy: boolean;
}

/**
 * A record's parts, located but not decoded: the data offsets of its location and network maps
 * (-1 when absent), which identify them for caches (records share them by pointer), and its proxy flag.
 */
export interface RecordParts {
  location: number;
  network: number;
  proxy: boolean;
}

/** A location with every field empty, for records without one. */
export const NO_LOCATION: GeoLocation = Object.freeze({
  countryCode: '',
  regionName: '',
  regionCode: '',
  cityName: '',
  postalCode: '',
  latitude: 0,
  longitude: 0,
  timeZone: '',
});

/** A network with every field empty, for records without one. */
export const NO_NETWORK: GeoNetwork = Object.freeze({ asn: 0, organization: '' });

/** The map keys of the compact schema (`schema.ts`), numbered: a read compares small integers, not strings. */
const KEY = {
  location: 0,
  network: 1,
  proxy: 2,
  country_code: 3,
  region: 4,
  region_code: 5,
  city: 6,
  postal_code: 7,
  latitude: 8,
  longitude: 9,
  time_zone: 10,
  asn: 11,
  organization: 12,
} as const;
/** Any other key: stepped over. */
const OTHER_KEY = -1;
const KEY_IDS = new Map<string, number>(Object.entries(KEY));
/**
 * Key ids by the offset of the key's stored copy, for keys stored in the first 4 KiB of the data
 * section (the build writes the keys there, first; other files' keys are decoded where they are).
 */
const KEY_TABLE_SIZE = 4096;
const UNKNOWN_KEY = -2;
/** log2 of the slots of the cache of shared strings (region names, zones, cities written once, pointed to). */
const SHARED_STRING_BITS = 13;

/**
 * A compiled database over its bytes. Reads only the fields of the compact schema (`schema.ts`) and
 * skips any other key, so a newer build with extra fields still reads.
 *
 * @throws ProblemError `DATA_UNAVAILABLE` from the constructor when the bytes are not a compiled
 *   service database, and from every read when the data is corrupt where it reads.
 */
export class GeoDatabase {
  readonly reader: MmdbReader;
  readonly buildEpoch: number;
  private readonly keys = new Int8Array(KEY_TABLE_SIZE).fill(UNKNOWN_KEY);
  private readonly sharedStrings = new OffsetCache<string>(SHARED_STRING_BITS);
  // Scratch fields for the readers below; no read calls another while it holds one.
  private readonly key = newField();
  private readonly value = newField();
  private readonly map = newField();
  /** Where the value read last by `stringAt` or `numberAt` ends. */
  private valueEnd = 0;
  /** What the first read that found the data corrupt saw; `load.ts` then drops this database. */
  damage: string | undefined;

  constructor(bytes: ArrayBuffer | Uint8Array) {
    try {
      this.reader = new MmdbReader(bytes);
    } catch (error) {
      throw unavailable(`the database object is not a MaxMind DB (${(error as Error).message})`);
    }
    if (this.reader.metadata.databaseType !== DATABASE_TYPE) {
      throw unavailable(`the database object is a "${this.reader.metadata.databaseType}" database, not "${DATABASE_TYPE}"`);
    }
    this.buildEpoch = this.reader.metadata.buildEpoch;
  }

  /**
   * The data offset for a 16-byte address (IPv4 at ::a.b.c.d), or -1 when the data has none.
   *
   * @throws ProblemError `DATA_UNAVAILABLE` when the tree is corrupt at this address.
   */
  offsetOf(bytes: Uint8Array, ipv4: boolean): number {
    try {
      return this.reader.offsetOf(bytes, ipv4);
    } catch (error) {
      throw this.corrupt(error);
    }
  }

  /**
   * The data offset for an IPv4 address as an unsigned 32-bit integer, or -1.
   *
   * @throws ProblemError `DATA_UNAVAILABLE` when the tree is corrupt at this address.
   */
  offsetOfIpv4(address: number): number {
    try {
      return this.reader.offsetOfIpv4(address);
    } catch (error) {
      throw this.corrupt(error);
    }
  }

  /**
   * {@link offsetOfIpv4} of `count` addresses at once, into `out` (see `MmdbReader#offsetsOfIpv4`:
   * the walks advance together so that their memory reads overlap).
   *
   * @param nodes scratch space of at least `count` entries.
   * @throws ProblemError `DATA_UNAVAILABLE` when the tree is corrupt.
   */
  offsetsOfIpv4(addresses: Uint32Array, count: number, nodes: Int32Array, out: Int32Array): void {
    try {
      this.reader.offsetsOfIpv4(addresses, count, nodes, out);
    } catch (error) {
      throw this.corrupt(error);
    }
  }

  /**
   * Locates the parts of the record at `offset` into `out`, decoding nothing but the map's keys.
   *
   * @throws ProblemError `DATA_UNAVAILABLE` when the record is corrupt.
   */
  partsAt(offset: number, out: RecordParts): RecordParts {
    out.location = -1;
    out.network = -1;
    out.proxy = false;
    try {
      const data = this.reader.data;
      const { map, value } = this;
      data.field(offset, map, false);
      if (map.type !== 7) throw new MmdbFormatError(`record at offset ${offset} is not a map`);
      let at = map.payload;
      for (let i = 0; i < map.size; i++) {
        const key = this.keyAt(at);
        at = this.key.next;
        // The build writes locations and networks before the records, so these are pointers: their
        // targets name them for the caches, and are read only when a cache does not have them.
        const target = key === KEY.location || key === KEY.network ? data.target(at) : -1;
        if (target >= 0 && data.referenceEnd >= 0) {
          at = data.referenceEnd;
          if (key === KEY.location) out.location = target;
          else out.network = target;
          continue;
        }
        data.field(at, value);
        at = value.next;
        if (target >= 0) {
          // A location or network written in place (files not built by `data/compile.ts`).
          if (value.type !== 7) throw new MmdbFormatError(`${key === KEY.location ? 'location' : 'network'} at offset ${value.start} is not a map`);
          if (key === KEY.location) out.location = value.start;
          else out.network = value.start;
        } else if (key === KEY.proxy && value.type === 14) {
          out.proxy = value.size === 1;
        }
      }
    } catch (error) {
      throw this.corrupt(error);
    }
    return out;
  }

  /**
   * Decodes the location map at `offset` (a {@link RecordParts} offset).
   *
   * @throws ProblemError `DATA_UNAVAILABLE` when it is corrupt.
   */
  locationAt(offset: number): GeoLocation {
    let countryCode = '';
    let regionName = '';
    let regionCode = '';
    let cityName = '';
    let postalCode = '';
    let latitude = 0;
    let longitude = 0;
    let timeZone = '';
    try {
      const data = this.reader.data;
      const { map } = this;
      data.field(offset, map, false);
      if (map.type !== 7) throw new MmdbFormatError(`location at offset ${offset} is not a map`);
      let at = map.payload;
      for (let i = 0; i < map.size; i++) {
        const key = this.keyAt(at);
        at = this.key.next;
        switch (key) {
          case KEY.country_code:
            countryCode = this.stringAt(at);
            break;
          case KEY.region:
            regionName = this.stringAt(at);
            break;
          case KEY.region_code:
            regionCode = this.stringAt(at);
            break;
          case KEY.city:
            cityName = this.stringAt(at);
            break;
          case KEY.postal_code:
            postalCode = this.stringAt(at);
            break;
          case KEY.latitude:
            latitude = this.numberAt(at) / COORDINATE_SCALE;
            break;
          case KEY.longitude:
            longitude = this.numberAt(at) / COORDINATE_SCALE;
            break;
          case KEY.time_zone:
            timeZone = this.stringAt(at);
            break;
          default:
            // A field the answer does not use (a newer build's): stepped over, not decoded.
            this.valueEnd = data.skip(at);
        }
        at = this.valueEnd;
      }
    } catch (error) {
      throw this.corrupt(error);
    }
    return { countryCode, regionName, regionCode, cityName, postalCode, latitude, longitude, timeZone };
  }

  /**
   * Decodes the network map at `offset` (a {@link RecordParts} offset).
   *
   * @throws ProblemError `DATA_UNAVAILABLE` when it is corrupt.
   */
  networkAt(offset: number): GeoNetwork {
    let asn = 0;
    let organization = '';
    try {
      const data = this.reader.data;
      const { map } = this;
      data.field(offset, map, false);
      if (map.type !== 7) throw new MmdbFormatError(`network at offset ${offset} is not a map`);
      let at = map.payload;
      for (let i = 0; i < map.size; i++) {
        const key = this.keyAt(at);
        at = this.key.next;
        if (key === KEY.asn) asn = this.numberAt(at);
        else if (key === KEY.organization) organization = this.stringAt(at);
        else this.valueEnd = data.skip(at);
        at = this.valueEnd;
      }
    } catch (error) {
      throw this.corrupt(error);
    }
    return { asn, organization };
  }

  /**
   * Decodes the whole record at a data offset into {@link GeoFacts}.
   *
   * @throws ProblemError `DATA_UNAVAILABLE` when it is corrupt.
   */
  factsAt(offset: number): GeoFacts {
    const parts = this.partsAt(offset, { location: -1, network: -1, proxy: false });
    const location = parts.location < 0 ? NO_LOCATION : this.locationAt(parts.location);
    const network = parts.network < 0 ? NO_NETWORK : this.networkAt(parts.network);
    return { ...location, asn: network.asn, asnOrganization: network.organization, isProxy: parts.proxy };
  }

  /** A read's failure as `DATA_UNAVAILABLE` when it is the data's fault, remembered in {@link damage}. */
  private corrupt(error: unknown): unknown {
    if (!(error instanceof MmdbFormatError)) return error;
    this.damage ??= error.message;
    return unavailable(`the database is corrupt: ${error.message}`);
  }

  /**
   * The string referenced at `at`; the offset past the reference is left in `valueEnd`. A string
   * reached through a pointer is one that the data shares between values (a region, a zone, a city),
   * so it is decoded once per stored copy and then found without reading its bytes at all.
   */
  private stringAt(at: number): string {
    const data = this.reader.data;
    const target = data.target(at);
    const shared = data.referenceEnd >= 0;
    if (shared) {
      const known = this.sharedStrings.get(target);
      if (known !== undefined) {
        this.valueEnd = data.referenceEnd;
        return known;
      }
    }
    const field = data.field(at, this.value);
    const text = data.stringOf(field);
    if (shared) this.sharedStrings.set(target, text);
    this.valueEnd = field.next;
    return text;
  }

  /** The number at `at`; the offset past it is left in `valueEnd`. */
  private numberAt(at: number): number {
    const field = this.reader.data.field(at, this.value);
    this.valueEnd = field.next;
    return this.reader.data.numberOf(field);
  }

  /**
   * The id (`KEY`) of the map key at `offset`, decoded once per stored copy. `this.key.next` is set
   * to the offset just past it; keys are pointers to one copy after their first use, so a known key
   * costs no read of it.
   */
  private keyAt(offset: number): number {
    const data = this.reader.data;
    const target = data.target(offset);
    if (data.referenceEnd >= 0 && target < KEY_TABLE_SIZE) {
      const known = this.keys[target] as number;
      if (known !== UNKNOWN_KEY) {
        this.key.next = data.referenceEnd;
        return known;
      }
    }
    const field = data.field(offset, this.key);
    const id = KEY_IDS.get(data.stringOf(field)) ?? OTHER_KEY;
    if (field.start < KEY_TABLE_SIZE) this.keys[field.start] = id;
    return id;
  }
}

/** The problem answered while the data cannot be read; logs `reason`, which clients never see. */
export function unavailable(reason: string): ProblemError {
  console.error(`geolocation data unavailable: ${reason}`);
  return new ProblemError('DATA_UNAVAILABLE', 'The geolocation data cannot be read at the moment. Try again shortly.', {
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
}

/** Seconds between attempts to load the database after a failure; also sent as `Retry-After`. */
export const RETRY_AFTER_SECONDS = 5;
