/**
 * @module What `GeoDatabase` (`database.ts`) finds in a record: its parts located but not decoded,
 * which the lookup's caches key by offset, and the location and network they decode to, with the empty
 * ones that stand for a part a record lacks.
 */

/** Where an address is, decoded from a stored location map (`StoredLocation`). */
export interface GeoLocation {
  /** ISO 3166-1 alpha-2, or ''. */
  readonly countryCode: string;
  /** The first-level subdivision's English name, or ''. */
  readonly regionName: string;
  /** Where its names in every language are (`GeoDatabase.nameAt`), or -1: English only. */
  readonly regionNamesOffset: number;
  /** ISO 3166-2 code without the country prefix, or ''. */
  readonly regionCode: string;
  /** The city's English name, or ''. */
  readonly cityName: string;
  /** Where its names in every language are, or -1. */
  readonly cityNamesOffset: number;
  readonly postalCode: string;
  /** WGS84 decimal degrees, 0 when unknown. */
  readonly latitude: number;
  readonly longitude: number;
  /** IANA zone of the location, or ''. */
  readonly timeZone: string;
  /** The continent code its source gives it (AF, AN, AS, EU, NA, OC, SA), or '': none, or a file built before it was stored. */
  readonly continentCode: string;
}

/** Who routes an address, decoded from a stored network map (`StoredNetwork`). */
export interface GeoNetwork {
  /** Autonomous system number, 0 when unknown. */
  readonly asn: number;
  readonly organization: string;
}

/**
 * A record's parts, located but not decoded: the data offsets of its location and network maps and of
 * its hosting provider's name (-1 when absent), which identify them for caches (records share them by
 * pointer), and its own numbers.
 */
export interface RecordParts {
  location: number;
  network: number;
  /** Kilometres (the record's `accuracy_radius`), 0 when the data gives none. */
  accuracyRadius: number;
  /** The record's flags as `FLAG_BIT`s (`schema.ts`), 0 when none; a file of schema 3 or before sets `proxy` from its proxy key. */
  flags: number;
  provider: number;
}

/** A location with every field empty, for records without one. */
export const NO_LOCATION: GeoLocation = Object.freeze({
  countryCode: '',
  regionName: '',
  regionNamesOffset: -1,
  regionCode: '',
  cityName: '',
  cityNamesOffset: -1,
  postalCode: '',
  latitude: 0,
  longitude: 0,
  timeZone: '',
  continentCode: '',
});

/** A network with every field empty, for records without one. */
export const NO_NETWORK: GeoNetwork = Object.freeze({ asn: 0, organization: '' });
