/**
 * @module The compiled geolocation database in memory: loaded from R2 once per isolate (one shared
 * load for concurrent first requests), then searched without I/O.
 *
 * A failed load is not cached: the next request after {@link RETRY_AFTER_SECONDS} tries again, so the
 * service recovers by itself once the object is readable, without hammering R2 meanwhile.
 */
import { ProblemError } from '../errors/problem.ts';
import { type MmdbField, MmdbFormatError, newField } from '../mmdb/decoder.ts';
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

/** Key strings seen, by the offset of their one stored copy; bounded for a hostile file. */
const MAX_KNOWN_KEYS = 256;
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
  private readonly keys = new Map<number, string>();
  private readonly sharedStrings = new OffsetCache<string>(SHARED_STRING_BITS);
  // Scratch fields for the readers below; no read calls another while it holds one.
  private readonly key = newField();
  private readonly value = newField();
  private readonly map = newField();

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
      throw corrupt(error);
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
      throw corrupt(error);
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
        data.field(this.key.next, value);
        at = value.next;
        if (key === 'location' && value.type === 7) out.location = value.start;
        else if (key === 'network' && value.type === 7) out.network = value.start;
        else if (key === 'proxy' && value.type === 14) out.proxy = value.size === 1;
      }
    } catch (error) {
      throw corrupt(error);
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
      const { map, value } = this;
      data.field(offset, map, false);
      if (map.type !== 7) throw new MmdbFormatError(`location at offset ${offset} is not a map`);
      let at = map.payload;
      for (let i = 0; i < map.size; i++) {
        const key = this.keyAt(at);
        const valueAt = this.key.next;
        data.field(valueAt, value);
        at = value.next;
        switch (key) {
          case 'country_code':
            countryCode = this.string(value, valueAt);
            break;
          case 'region':
            regionName = this.string(value, valueAt);
            break;
          case 'region_code':
            regionCode = this.string(value, valueAt);
            break;
          case 'city':
            cityName = this.string(value, valueAt);
            break;
          case 'postal_code':
            postalCode = this.string(value, valueAt);
            break;
          case 'latitude':
            latitude = data.numberOf(value) / COORDINATE_SCALE;
            break;
          case 'longitude':
            longitude = data.numberOf(value) / COORDINATE_SCALE;
            break;
          case 'time_zone':
            timeZone = this.string(value, valueAt);
            break;
        }
      }
    } catch (error) {
      throw corrupt(error);
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
      const { map, value } = this;
      data.field(offset, map, false);
      if (map.type !== 7) throw new MmdbFormatError(`network at offset ${offset} is not a map`);
      let at = map.payload;
      for (let i = 0; i < map.size; i++) {
        const key = this.keyAt(at);
        data.field(this.key.next, value);
        at = value.next;
        if (key === 'asn') asn = data.numberOf(value);
        else if (key === 'organization') organization = data.stringOf(value);
      }
    } catch (error) {
      throw corrupt(error);
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

  /**
   * The string of a field read at `at`. A string reached through a pointer is one that the data
   * shares between values (a region, a zone, a city name), so it is decoded once per stored copy.
   */
  private string(field: MmdbField, at: number): string {
    if (field.start === at) return this.reader.data.stringOf(field);
    let text = this.sharedStrings.get(field.start);
    if (text === undefined) {
      text = this.reader.data.stringOf(field);
      this.sharedStrings.set(field.start, text);
    }
    return text;
  }

  /** The map key at `offset` (into `this.key`), decoded once per stored copy. */
  private keyAt(offset: number): string {
    const data = this.reader.data;
    const field = data.field(offset, this.key);
    let key = this.keys.get(field.start);
    if (key === undefined) {
      key = data.stringOf(field);
      if (this.keys.size < MAX_KNOWN_KEYS) this.keys.set(field.start, key);
    }
    return key;
  }
}

function corrupt(error: unknown): unknown {
  return error instanceof MmdbFormatError ? unavailable(`the database is corrupt: ${error.message}`) : error;
}

function unavailable(reason: string): ProblemError {
  console.error(`geolocation data unavailable: ${reason}`);
  return new ProblemError('DATA_UNAVAILABLE', 'The geolocation data cannot be read at the moment. Try again shortly.', {
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
}

/** Seconds between attempts to load the database after a failure; also sent as `Retry-After`. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * The R2 binding and object key the database is read from. Only the part of `R2Bucket` that the load
 * uses is named, so that this module type-checks in Node too (the benchmarks and the build read it).
 */
export interface DatabaseEnv {
  readonly GEO_DATA: { get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null> };
  readonly DATA_OBJECT_KEY: string;
}

let loaded: GeoDatabase | undefined;
let loading: Promise<GeoDatabase> | undefined;
let failedAt = Number.NEGATIVE_INFINITY;

/**
 * The database of this isolate, loading it from R2 on first use.
 *
 * @throws ProblemError `DATA_UNAVAILABLE` when the object is missing, unreadable or not a compiled
 *   database, or while a failed load is cooling down.
 */
export function loadDatabase(env: DatabaseEnv): GeoDatabase | Promise<GeoDatabase> {
  if (loaded) return loaded;
  if (loading) return loading;
  if (Date.now() - failedAt < RETRY_AFTER_SECONDS * 1000) {
    return Promise.reject(unavailable('a recent load failed; waiting before the next attempt'));
  }
  loading = (async () => {
    let object: { arrayBuffer(): Promise<ArrayBuffer> } | null;
    try {
      object = await env.GEO_DATA.get(env.DATA_OBJECT_KEY);
    } catch (error) {
      throw unavailable(`R2 get of ${env.DATA_OBJECT_KEY} failed: ${(error as Error).message}`);
    }
    if (object === null) throw unavailable(`R2 has no object ${env.DATA_OBJECT_KEY}; upload it (README, "Data")`);
    return new GeoDatabase(await object.arrayBuffer());
  })().then(
    (database) => {
      loaded = database;
      loading = undefined;
      return database;
    },
    (error: unknown) => {
      loading = undefined;
      failedAt = Date.now();
      throw error instanceof ProblemError ? error : unavailable(String(error));
    },
  );
  return loading;
}

/** Forgets the loaded database (tests use it to exercise loading and failures). */
export function resetDatabaseForTests(): void {
  loaded = undefined;
  loading = undefined;
  failedAt = Number.NEGATIVE_INFINITY;
}
