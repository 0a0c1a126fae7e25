/**
 * @module The service database's compact schema: what `npm run data:build` writes into each record
 * of the compiled MMDB, and what the Worker decodes. Only the fields the IP info record needs, with
 * English names; country-level facts (names, capitals, currencies, ...) are not stored here but come
 * from `countries-list` and `countries-and-timezones` at answer time.
 *
 *     record ── location? ──▶ { country_code, region, region_code, city, postal_code,
 *             │                 latitude, longitude, time_zone }          (shared by pointer)
 *             ├─ network?  ──▶ { asn, organization }                     (shared by pointer)
 *             └─ proxy?    ──▶ true
 *
 * Empty strings are left out of a map; a missing key reads as '' (or 0, or false).
 */

/** `database_type` of the compiled file; the Worker refuses any other. */
export const DATABASE_TYPE = 'ipgeo-compact';
/** Bumped whenever the record layout changes incompatibly. */
export const SCHEMA_VERSION = 1;

/** Degrees are stored as int32 in units of 1e-4 degree (MaxMind publishes four decimals). */
export const COORDINATE_SCALE = 10_000;

/** Where an address is, as stored in the compiled database. */
export interface StoredLocation {
  /** ISO 3166-1 alpha-2. */
  country_code?: string;
  /** First-level subdivision, English name. */
  region?: string;
  /** ISO 3166-2 subdivision code without the country prefix ("CA", "ENG"). */
  region_code?: string;
  city?: string;
  postal_code?: string;
  /** WGS84 latitude in 1e-4 degrees (int32). */
  latitude?: number;
  /** WGS84 longitude in 1e-4 degrees (int32). */
  longitude?: number;
  /** IANA time zone of the location. */
  time_zone?: string;
}

/** Who routes an address. */
export interface StoredNetwork {
  /** Autonomous system number. */
  asn?: number;
  /** Organisation holding the ASN. */
  organization?: string;
}

/** One record of the compiled database. */
export interface StoredRecord {
  location?: StoredLocation;
  network?: StoredNetwork;
  /** Present (true) only when a configured anonymising-network source lists the address. */
  proxy?: boolean;
}
