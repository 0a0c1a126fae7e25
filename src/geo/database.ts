/**
 * @module The compiled geolocation database in memory: loaded from R2 once per isolate (one shared
 * load for concurrent first requests), then searched without I/O.
 *
 * A failed load is not cached: the next request after {@link RETRY_AFTER_SECONDS} tries again, so the
 * service recovers by itself once the object is readable, without hammering R2 meanwhile.
 */
import { ProblemError } from '../errors/problem.ts';
import { MmdbFormatError } from '../mmdb/decoder.ts';
import { type MmdbLookup, MmdbReader } from '../mmdb/reader.ts';
import { COORDINATE_SCALE, DATABASE_TYPE, type StoredRecord } from './schema.ts';

/** What the database holds for an address, decoded from the compact schema (DESIGN.md section 2). */
export interface GeoFacts {
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
  /** Autonomous system number, 0 when unknown. */
  readonly asn: number;
  readonly asnOrganization: string;
  readonly isProxy: boolean;
}

/** A database search result: the data offset identifies the record (for caches). */
export interface GeoMatch {
  readonly offset: number;
  readonly facts: GeoFacts;
}

/**
 * A compiled database over its bytes.
 *
 * @throws ProblemError `DATA_UNAVAILABLE` from the constructor when the bytes are not a compiled
 *   service database.
 */
export class GeoDatabase {
  readonly reader: MmdbReader;
  readonly buildEpoch: number;
  private readonly scratch: MmdbLookup = { offset: -1, prefixLength: 0 };

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
      return this.reader.lookup(bytes, ipv4, this.scratch).offset;
    } catch (error) {
      if (error instanceof MmdbFormatError) throw unavailable(`the database is corrupt: ${error.message}`);
      throw error;
    }
  }

  /** Decodes the record at a data offset into {@link GeoFacts}. */
  factsAt(offset: number): GeoFacts {
    let stored: StoredRecord;
    try {
      stored = this.reader.decode(offset) as StoredRecord;
    } catch (error) {
      if (error instanceof MmdbFormatError) throw unavailable(`the database is corrupt: ${error.message}`);
      throw error;
    }
    const location = stored.location ?? {};
    const network = stored.network ?? {};
    return {
      countryCode: location.country_code ?? '',
      regionName: location.region ?? '',
      regionCode: location.region_code ?? '',
      cityName: location.city ?? '',
      postalCode: location.postal_code ?? '',
      latitude: (location.latitude ?? 0) / COORDINATE_SCALE,
      longitude: (location.longitude ?? 0) / COORDINATE_SCALE,
      timeZone: location.time_zone ?? '',
      asn: network.asn ?? 0,
      asnOrganization: network.organization ?? '',
      isProxy: stored.proxy === true,
    };
  }
}

function unavailable(reason: string): ProblemError {
  console.error(`geolocation data unavailable: ${reason}`);
  return new ProblemError('DATA_UNAVAILABLE', 'The geolocation data cannot be read at the moment. Try again shortly.', {
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
}

/** Seconds between attempts to load the database after a failure; also sent as `Retry-After`. */
export const RETRY_AFTER_SECONDS = 5;

/** The R2 binding and object key the database is read from. */
export interface DatabaseEnv {
  readonly GEO_DATA: R2Bucket;
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
    let object: R2ObjectBody | null;
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
