/**
 * @module The service database's compact schema: what `npm run data:build` writes into each record of
 * the compiled MaxMind DB and into its metadata, and what the Worker decodes (drawn at
 * {@link SCHEMA_VERSION}). Only what the IP info record needs: country facts (capitals, currencies, …)
 * come from `countries-list` and `countries-and-timezones` when answering.
 */

/** `database_type` of the compiled file; the Worker refuses any other. */
export const DATABASE_TYPE = 'ipgeo-compact';
/**
 * The layout's version, bumped whenever it changes (2: names in eight languages, identity metadata; 3: a
 * location's own `continent_code`; 4: a record's `accuracy_radius`, `flags` and `hosting_provider` in
 * place of `proxy`, the metadata's `flags` and `european_union`). Readers step over
 * keys they do not know, so a Worker reads every version; `data:build --if-missing` rebuilds a build of
 * another one. The layout:
 *
 * Records (data section):
 *
 *     record ── location? ──▶ { country_code, region, region_code, city, postal_code,   (shared by pointer)
 *             │                 latitude, longitude, time_zone,          English, as in schema 1
 *             │                 continent_code?,                         the source's own (AF … SA)
 *             │                 region_names?, city_names? }  ──▶ [de, en, es, fr, ja, pt-BR, ru, zh-CN]
 *             │                                                   (one array per distinct name set,
 *             │                                                    shared by pointer; '' = no name)
 *             ├─ network?  ──▶ { asn, organization }                     (shared by pointer)
 *             ├─ accuracy_radius? ──▶ uint16                              km, the location source's own
 *             ├─ flags?    ──▶ uint16: bit i set for FLAGS[i]            (vpn 1, tor 2, relay 4, hosting 8, proxy 16)
 *             ├─ hosting_provider? ──▶ "Amazon Web Services"             (one string per name, shared by pointer)
 *             └─ proxy?    ──▶ true                                      schema 3 and before: read as the proxy flag
 *
 * Metadata (beside the standard keys, which MaxMind DB readers ignore when unknown):
 *
 *     languages        [de, en, es, fr, ja, pt-BR, ru, zh-CN]      the order of every names array
 *     country_names    { GB: [UK, United Kingdom, Reino Unido, …], … }   by ISO 3166-1 alpha-2
 *     continent_names  { EU: [Europa, Europe, Europa, …], … }             by continent code
 *     european_union   [AT, BE, …]                                the countries its location sources say are in the EU
 *     flags            [vpn, tor, …]                              the flags its sources can set, in FLAGS order
 *     sources          [{ name, provides, version, built_at, licence, attribution, flags? }, …]
 *     corrections      [{ name, sha256, lines, prefixes }, …]          the operator's, absent without any
 *     counts           { networks, records }
 *     shard            { index, count, first, last }              a shard's own, absent in a whole database
 *
 * A names array holds the source's name in each language of `languages`, in that order, and '' where
 * the source has no name in that language; its `en` entry equals the English key beside it. A location
 * has `city_names` (`region_names`) only when the source names its city (first subdivision) in some
 * language other than English: a reader that finds no array, or '' in it, falls back to English, which is
 * what the source itself offers then. To answer in language `i` (its index in `languages`), a reader
 * steps over the array's first `i` entries (each a pointer or a short string) and decodes one.
 *
 * A location's `continent_code` is its source's, per network (GeoLite2's continent, from GeoNames:
 * Russia is in Europe); files built before it was stored, and locations whose source names no
 * continent, have none, and a reader falls back to the country's continent.
 *
 * A record's `flags` are what every flag source says of the networks that hold its addresses, together
 * (a union); `hosting_provider` is the name that the most specific of those networks is given (between
 * equally specific ones, the earlier source's in the build's order), and brings the `hosting` flag.
 * A country is in the EU where its code is in `european_union`, whatever network it is found in; a
 * file of schema 3 or before has no such list (no country is in the EU there), and a record's `proxy`
 * stands for the `proxy` flag.
 *
 * Empty strings are left out of a map; a missing key reads as '' (or 0, or false).
 */
export const SCHEMA_VERSION = 4;

/**
 * The privacy and hosting flags a record can carry, in the order of their bits in `flags` (bit i is
 * `FLAGS[i]`; docs/api.md defines each): `vpn`, `tor` (an exit node), `relay` (iCloud Private Relay and
 * other relay egress), `hosting` (a data centre's or cloud provider's network), `proxy` (a public or
 * residential proxy).
 */
export const FLAGS = ['vpn', 'tor', 'relay', 'hosting', 'proxy'] as const;

/** A flag of {@link FLAGS}. */
export type StoredFlag = (typeof FLAGS)[number];

/** The bit of each flag in a record's `flags`. */
export const FLAG_BIT: { readonly [flag in StoredFlag]: number } = { vpn: 1, tor: 2, relay: 4, hosting: 8, proxy: 16 };

/** The flags that make isProxy true: every one but `hosting` (a data centre alone hides no one). */
export const PROXY_BITS = FLAG_BIT.vpn | FLAG_BIT.tor | FLAG_BIT.relay | FLAG_BIT.proxy;

/** Degrees are stored as int32 in units of 1e-4 degree (MaxMind publishes four decimals). */
export const COORDINATE_SCALE = 10_000;

/**
 * A name in each language of the metadata's `languages`, in that order ('' where the source has none):
 * the build writes `LANGUAGES` (`languages.ts`), GeoLite2's eight as MaxMind lists them; a reader takes
 * the order from the metadata.
 */
export type StoredNames = readonly string[];

/** Where an address is, as stored in the compiled database. */
export interface StoredLocation {
  /** ISO 3166-1 alpha-2. */
  country_code?: string;
  /** First-level subdivision, English name. */
  region?: string;
  /** ISO 3166-2 subdivision code without the country prefix ("CA", "ENG"). */
  region_code?: string;
  /** English name. */
  city?: string;
  postal_code?: string;
  /** WGS84 latitude in 1e-4 degrees (int32). */
  latitude?: number;
  /** WGS84 longitude in 1e-4 degrees (int32). */
  longitude?: number;
  /** IANA time zone of the location. */
  time_zone?: string;
  /** Two-letter continent code (AF, AN, AS, EU, NA, OC, SA) that the source gives the location, absent where it gives none. */
  continent_code?: string;
  /** The first subdivision's names; absent when the source names it in English only (or not at all). */
  region_names?: StoredNames;
  /** The city's names; absent when the source names it in English only (or not at all). */
  city_names?: StoredNames;
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
  /**
   * Kilometres around the location's position within which its source places the address (GeoLite2's
   * `location.accuracy_radius`), absent where it gives none. In the record, not the location: the same
   * place comes with several radii, and a location of each would more than double the locations.
   */
  accuracy_radius?: number;
  /** The flags its flag sources set ({@link FLAG_BIT} of each, or'ed), absent when none. */
  flags?: number;
  /** The hosting provider's name, where a flag source names one (then `flags` has `hosting`). */
  hosting_provider?: string;
  /** Schema 3 and before: true when an anonymising-network source listed the address (read as the `proxy` flag). */
  proxy?: boolean;
}

/** One source of a build, as its metadata's `sources` lists it (and the manifest, with more detail). */
export interface StoredSource {
  /** Short identifier, e.g. `geolite2-city`. */
  name: string;
  /** What the source contributes to a record. */
  provides: 'location' | 'network' | 'proxy';
  /** Package or database version, e.g. `1.0.101`. */
  version: string;
  /** When the source's data was built, RFC 3339 (UTC). */
  built_at: string;
  licence: string;
  /** The attribution line the licence asks for. */
  attribution: string;
  /** A flag source's (`provides: 'proxy'`): the flags it can set, in {@link FLAGS} order. */
  flags?: readonly StoredFlag[];
}

/**
 * A corrections file of a build (an RFC 8805 geofeed whose lines take precedence over the location
 * source: docs/operations.md, "Corrections"), as its metadata's `corrections` lists it.
 */
export interface StoredCorrections {
  /** The file's name, or the URL of a published geofeed. */
  name: string;
  /** Hex SHA-256 of the file's content. */
  sha256: string;
  /** Lines of text, comments and blank lines included. */
  lines: number;
  /** Lines that set a prefix. */
  prefixes: number;
}

/** The metadata keys that the compact schema adds to the MaxMind DB's standard ones. */
export interface StoredMetadata {
  /** The order of every names array (the standard `languages` key). */
  languages: readonly string[];
  /** Country names by ISO 3166-1 alpha-2 code, in `languages` order. */
  country_names: Readonly<Record<string, StoredNames>>;
  /** Continent names by two-letter continent code, in `languages` order. */
  continent_names: Readonly<Record<string, StoredNames>>;
  /** The ISO 3166-1 alpha-2 codes of the countries that the location sources say are in the European Union (GeoLite2's `is_in_european_union`), sorted. */
  european_union: readonly string[];
  /** The flags the flag sources can set, in {@link FLAGS} order: a flag not listed is false everywhere. */
  flags: readonly StoredFlag[];
  sources: readonly StoredSource[];
  /** The operator's corrections compiled in, in precedence order; absent when there are none. */
  corrections?: readonly StoredCorrections[];
  /** Networks (tree leaves holding data) and distinct records of the file. */
  counts: { networks: number; records: number };
  /** In a shard of a sharded build only: which one, and the range of positions it answers. */
  shard?: StoredShard;
}

/**
 * The metadata of one shard of a sharded build (docs/sharding.md): shard `index` of `count` answers the
 * positions `first` to `last` (RFC 5952 text, both included; `src/geo/shard-ranges.ts`) and holds no
 * data outside them. A file without it is a whole database, covering everything.
 */
export interface StoredShard {
  index: number;
  count: number;
  first: string;
  last: string;
}
