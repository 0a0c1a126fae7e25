/**
 * @module The entry caches of one loaded database: a record's location and network as answers need
 * them (entries, `entries.ts`), kept in bounded caches by data offset (sizes: docs/hot-path.md, "Caches of
 * the lookup path"). The records themselves are decoded each time; only their parts' entries are cached.
 */
import { type Utf8, utf8 } from '../format/utf8.ts';
import type { GeoDatabase } from '../geo/database.ts';
import { LANGUAGES, type LanguageIndex } from '../geo/languages.ts';
import { NO_LOCATION, NO_NETWORK, type RecordParts } from '../geo/record-parts.ts';
import { OffsetCache } from '../mmdb/offset-cache.ts';
import { CountryEntry, LocationEntry, type NameSource, NetworkEntry } from './entries.ts';

/** log2 of each cache's slots (see docs/hot-path.md, "Caches of the lookup path"). */
export const CACHE_BITS = { locations: 15, networks: 15, names: 15 } as const;

/** What a record holds, its parts resolved. */
export interface RecordEntry {
  readonly location: LocationEntry;
  readonly network: NetworkEntry;
  /** Kilometres around the position within which the address is (the location source's), 0 when the data gives none. */
  readonly accuracyRadius: number;
  /** Its privacy and hosting flags as `FLAG_BIT`s (`geo/schema.ts`), 0 when none. */
  readonly flags: number;
  /** The hosting provider's name in UTF-8 as a JSON string (`""` when none), and the name itself. */
  readonly provider: ProviderEntry;
}

/** A hosting provider's name: as text, and as a JSON string in UTF-8 (what an answer writes). */
export interface ProviderEntry {
  readonly name: string;
  readonly json: Utf8;
}

const NO_PROVIDER: ProviderEntry = Object.freeze({ name: '', json: '""' as Utf8 });

const EMPTY_NETWORK = new NetworkEntry(NO_NETWORK);

/** The largest key of an {@link OffsetCache} (an int32). */
const MAX_KEY = 0x7fffffff;

/**
 * The caches of one database (offsets mean nothing in another), and where its locations read their
 * names in other languages:
 *
 * - locations and networks: offset → entry, each shared by every record that points to it (a location
 *   by about four records, a network by six). An entry keeps its fields rendered in English (the
 *   answer nearly every client asks for), so a lookup of a cached location reads a few strings, not
 *   fifteen values;
 * - names: a city's or region's names offset and a language → the JSON string of its name in that
 *   language, in UTF-8 (a place in another language is written per answer from them, without
 *   converting a name each time).
 */
export class EntryCaches implements NameSource {
  private readonly locations: OffsetCache<LocationEntry>;
  private readonly networks: OffsetCache<NetworkEntry>;
  private readonly names: OffsetCache<Utf8>;
  /** Country entries by country and continent code (`GB|EU`): a few hundred at most, so a table, not a cache. */
  private readonly countries = new Map<string, CountryEntry>();
  /** Hosting providers' names by offset: the build writes each name once, and there are few (one per provider). */
  private readonly providers = new Map<number, ProviderEntry>();
  private readonly emptyLocation: LocationEntry;
  /** Where {@link recordAt} locates a record's parts, read at once (a record's own bytes are few). */
  private readonly parts: RecordParts = { location: -1, network: -1, accuracyRadius: 0, flags: 0, provider: -1 };

  /** @param bits log2 of each cache's slots, at least 1 (a test makes them tiny to see evictions). */
  constructor(
    private readonly database: GeoDatabase,
    bits: { readonly [cache in keyof typeof CACHE_BITS]: number } = CACHE_BITS,
  ) {
    this.locations = new OffsetCache(bits.locations);
    this.networks = new OffsetCache(bits.networks);
    this.names = new OffsetCache(bits.names);
    this.emptyLocation = new LocationEntry(NO_LOCATION, this.country('', ''), undefined);
  }

  /**
   * The entry of country `code` on continent `continentCode`, as a location stores them (ISO 3166-1
   * alpha-2 and a continent code, each '' when the data has none).
   */
  country(code: string, continentCode: string): CountryEntry {
    const key = `${code}|${continentCode}`;
    let entry = this.countries.get(key);
    if (entry === undefined) {
      entry = new CountryEntry(code, continentCode, this.database);
      this.countries.set(key, entry);
    }
    return entry;
  }

  /**
   * The record at data offset `offset`, its parts decoded or found in the caches.
   *
   * @throws DataUnavailableError when the data is corrupt there.
   */
  recordAt(offset: number): RecordEntry {
    const { location, network, accuracyRadius, flags, provider } = this.database.partsAt(offset, this.parts);
    return {
      location: location < 0 ? this.emptyLocation : (this.locations.get(location) ?? this.locations.set(location, this.locationEntry(location))),
      network: network < 0 ? EMPTY_NETWORK : (this.networks.get(network) ?? this.networks.set(network, new NetworkEntry(this.database.networkAt(network)))),
      accuracyRadius,
      flags,
      provider: provider < 0 ? NO_PROVIDER : this.provider(provider),
    };
  }

  /** The hosting provider's name at `offset`. @throws DataUnavailableError when it is corrupt. */
  private provider(offset: number): ProviderEntry {
    let entry = this.providers.get(offset);
    if (entry === undefined) {
      const name = this.database.providerAt(offset);
      entry = { name, json: utf8(JSON.stringify(name)) };
      this.providers.set(offset, entry);
    }
    return entry;
  }

  /** The name at `offset` in `language`, '' where the data has none in it. @throws DataUnavailableError when it is corrupt. */
  name(offset: number, language: LanguageIndex): string {
    return this.database.nameAt(offset, language);
  }

  /** The JSON string of the name at `offset` in `language`, in UTF-8; '' where the data has none in it. */
  nameJson(offset: number, language: LanguageIndex): Utf8 {
    // One key per names and language; a data section past 256 MiB would overflow it, and goes uncached.
    const key = offset * LANGUAGES.length + language;
    const known = key <= MAX_KEY ? this.names.get(key) : undefined;
    if (known !== undefined) return known;
    const name = this.database.nameAt(offset, language);
    const json = name ? utf8(JSON.stringify(name)) : ('' as Utf8);
    return key <= MAX_KEY ? this.names.set(key, json) : json;
  }

  private locationEntry(offset: number): LocationEntry {
    const location = this.database.locationAt(offset);
    return new LocationEntry(location, this.country(location.countryCode, location.continentCode), this);
  }
}

const byDatabase = new WeakMap<GeoDatabase, EntryCaches>();

/** The entry caches of `database`, made on first use; they go with the database when it is replaced. */
export function entryCachesOf(database: GeoDatabase): EntryCaches {
  let caches = byDatabase.get(database);
  if (caches === undefined) {
    caches = new EntryCaches(database);
    byDatabase.set(database, caches);
  }
  return caches;
}
