/**
 * @module The compiled geolocation database in memory, searched without I/O and decoded field by field
 * straight from its bytes (`loading.ts` loads it from R2) into the shapes of `record-parts.ts`.
 */
import { cidrText, type IpAddress } from '../ip/address.ts';
import { MmdbFormatError, MmdbType, newField } from '../mmdb/decoder.ts';
import { MmdbReader } from '../mmdb/reader.ts';
import { LANGUAGES, type LanguageIndex, type Names, NO_NAMES } from './languages.ts';
import { KEY, MapReader } from './map-reader.ts';
import { type GeoLocation, type GeoNetwork, NO_LOCATION, type RecordParts } from './record-parts.ts';
import { COORDINATE_SCALE, DATABASE_TYPE, FLAG_BIT } from './schema.ts';
import { unavailable } from './unavailable.ts';

/** The fields of a stored location map by key id: its strings, and its numbers (coordinates, and where its names are). */
const LOCATION_STRINGS: Readonly<
  Partial<Record<number, 'countryCode' | 'regionName' | 'regionCode' | 'cityName' | 'postalCode' | 'timeZone' | 'continentCode'>>
> = {
  [KEY.country_code]: 'countryCode',
  [KEY.region]: 'regionName',
  [KEY.region_code]: 'regionCode',
  [KEY.city]: 'cityName',
  [KEY.postal_code]: 'postalCode',
  [KEY.time_zone]: 'timeZone',
  [KEY.continent_code]: 'continentCode',
};
const LOCATION_NUMBERS: Readonly<Partial<Record<number, 'latitude' | 'longitude' | 'regionNamesOffset' | 'cityNamesOffset'>>> = {
  [KEY.latitude]: 'latitude',
  [KEY.longitude]: 'longitude',
  [KEY.region_names]: 'regionNamesOffset',
  [KEY.city_names]: 'cityNamesOffset',
};

/**
 * A compiled database over its bytes. Reads only the fields of the compact schema (`schema.ts`) and
 * skips any other key, so a newer build with extra fields still reads.
 *
 * @throws DataUnavailableError from the constructor when the bytes are not a compiled service
 *   database, and from every read when the data is corrupt where it reads.
 */
export class GeoDatabase {
  readonly reader: MmdbReader;
  readonly buildEpoch: number;
  /** Why a read found the data corrupt, once one has (the loader then drops this database). */
  damage: string | undefined;
  /** For each of {@link LANGUAGES}, its index in the stored names arrays (the metadata's `languages`), or -1. */
  private readonly storedIndex: readonly number[];
  private readonly countryNameTable: ReadonlyMap<string, Names>;
  private readonly continentNameTable: ReadonlyMap<string, Names>;
  private readonly europeanUnion: ReadonlySet<string>;
  /** Country and continent codes, each held once: a decoded string is a new copy, which every cached location would keep. */
  private readonly codes = new Map<string, string>();
  /** Reads the values of the maps; `map` is scratch for the reads below, none of which calls another. */
  private readonly values: MapReader;
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
    this.values = new MapReader(this.reader.data);
    const { languages, map } = this.reader.metadata;
    this.storedIndex = LANGUAGES.map((code) => languages.indexOf(code));
    this.countryNameTable = this.nameTable(map.country_names);
    this.continentNameTable = this.nameTable(map.continent_names);
    this.europeanUnion = new Set(Array.isArray(map.european_union) ? map.european_union.filter((code) => typeof code === 'string') : []);
  }

  /** Whether the location sources say country `code` (ISO 3166-1 alpha-2) is in the European Union (the metadata's `european_union`). */
  isInEuropeanUnion(code: string): boolean {
    return this.europeanUnion.has(code);
  }

  /**
   * The network that holds `address` in the data, as CIDR text (`81.2.69.0/24`; an IPv4 address's in
   * the IPv4 space): the largest network around it whose addresses share its record.
   *
   * @throws DataUnavailableError when the tree is corrupt where it reads.
   */
  networkOf(address: IpAddress): string {
    try {
      const { w0, w1, w2, w3 } = address;
      return cidrText(address, this.reader.prefixLengthOf(w0, w1, w2, w3, address.version === 4));
    } catch (error) {
      throw this.corrupt(error);
    }
  }

  /**
   * The hosting provider's name at `offset` (a {@link RecordParts} offset).
   *
   * @throws DataUnavailableError when it is corrupt.
   */
  providerAt(offset: number): string {
    try {
      return this.values.stringAt(offset);
    } catch (error) {
      throw this.corrupt(error);
    }
  }

  /** The names of country `code` (ISO 3166-1 alpha-2) in every language, from the metadata's `country_names`; {@link NO_NAMES} when it has none. */
  countryNames(code: string): Names {
    return this.countryNameTable.get(code) ?? NO_NAMES;
  }

  /** The names of continent `code` (AF, AN, AS, EU, NA, OC, SA), from the metadata's `continent_names`. */
  continentNames(code: string): Names {
    return this.continentNameTable.get(code) ?? NO_NAMES;
  }

  /**
   * The name in `language` of the names array at `offset` (a location's `regionNamesOffset` or
   * `cityNamesOffset`), '' where the data has none in it or `offset` is -1.
   *
   * @throws DataUnavailableError when it is corrupt.
   */
  nameAt(offset: number, language: LanguageIndex): string {
    const index = this.storedIndex[language] ?? -1;
    if (offset < 0 || index < 0) return '';
    try {
      const data = this.reader.data;
      const array = data.field(offset, this.map, false);
      if (array.type !== MmdbType.Array) throw new MmdbFormatError(`names at offset ${offset} are not an array`);
      if (index >= array.size) return '';
      let at = array.payload;
      for (let i = 0; i < index; i++) at = data.skip(at);
      return this.values.stringAt(at);
    } catch (error) {
      throw this.corrupt(error);
    }
  }

  /** A metadata map of names arrays by code, each in the order of {@link LANGUAGES} ('' where it has none), frozen. */
  private nameTable(value: unknown): ReadonlyMap<string, Names> {
    const table = new Map<string, Names>();
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return table;
    for (const [code, names] of Object.entries(value)) {
      if (Array.isArray(names)) table.set(code, Object.freeze(this.storedIndex.map((k) => (typeof names[k] === 'string' ? names[k] : ''))));
    }
    return table;
  }

  /**
   * The data offset of each address (-1 where the data has none), in order.
   *
   * @throws DataUnavailableError when the tree is corrupt where it reads.
   */
  offsetsOf(addresses: readonly IpAddress[]): number[] {
    try {
      return addresses.map((a) => (a.version === 4 ? this.reader.offsetOfIpv4(a.w3) : this.reader.offsetOfIpv6(a.w0, a.w1, a.w2, a.w3)));
    } catch (error) {
      throw this.corrupt(error);
    }
  }

  /**
   * Locates the parts of the record at `offset` into `out`, decoding nothing but the map's keys.
   *
   * @throws DataUnavailableError when the record is corrupt.
   */
  partsAt(offset: number, out: RecordParts): RecordParts {
    out.location = -1;
    out.network = -1;
    out.accuracyRadius = 0;
    out.flags = 0;
    out.provider = -1;
    try {
      const data = this.reader.data;
      const { map } = this;
      const value = this.values.scratch;
      data.field(offset, map, false);
      if (map.type !== MmdbType.Map) throw new MmdbFormatError(`record at offset ${offset} is not a map`);
      let at = map.payload;
      for (let i = 0; i < map.size; i++) {
        const key = this.values.keyAt(at);
        at = this.values.keyEnd;
        // The build writes locations and networks before the records, so these are pointers: their
        // targets name them for the caches, and are read only when a cache does not have them.
        const target = key === KEY.location || key === KEY.network ? data.target(at) : -1;
        if (target >= 0 && data.referenceEnd >= 0) {
          at = data.referenceEnd;
          if (key === KEY.location) out.location = target;
          else out.network = target;
          continue;
        }
        if (key === KEY.hosting_provider) {
          // A name is read only when an answer asks for it: where it is, past a pointer or in place.
          out.provider = data.target(at);
          at = data.referenceEnd >= 0 ? data.referenceEnd : data.skip(at);
          continue;
        }
        data.field(at, value);
        at = value.next;
        if (target >= 0) {
          // A location or network written in place (files not built by `data/compile.ts`).
          if (value.type !== MmdbType.Map) throw new MmdbFormatError(`${key === KEY.location ? 'location' : 'network'} at offset ${value.start} is not a map`);
          if (key === KEY.location) out.location = value.start;
          else out.network = value.start;
        } else if (key === KEY.accuracy_radius) {
          out.accuracyRadius = data.numberOf(value);
        } else if (key === KEY.flags) {
          out.flags |= data.numberOf(value);
        } else if (key === KEY.proxy && value.type === MmdbType.Boolean && value.size === 1) {
          out.flags |= FLAG_BIT.proxy;
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
   * @throws DataUnavailableError when it is corrupt.
   */
  locationAt(offset: number): GeoLocation {
    const location: { -readonly [field in keyof GeoLocation]: GeoLocation[field] } = { ...NO_LOCATION };
    try {
      const data = this.reader.data;
      const { map } = this;
      data.field(offset, map, false);
      if (map.type !== MmdbType.Map) throw new MmdbFormatError(`location at offset ${offset} is not a map`);
      let at = map.payload;
      for (let i = 0; i < map.size; i++) {
        const key = this.values.keyAt(at);
        at = this.values.keyEnd;
        const string = LOCATION_STRINGS[key];
        const number = LOCATION_NUMBERS[key];
        if (string) location[string] = string === 'countryCode' || string === 'continentCode' ? this.code(this.values.stringAt(at)) : this.values.stringAt(at);
        else if (number === 'latitude' || number === 'longitude') location[number] = this.values.numberAt(at) / COORDINATE_SCALE;
        else if (number) location[number] = this.values.referenceAt(at);
        else this.values.valueEnd = data.skip(at); // a field the answer does not use (a newer build's): stepped over
        at = this.values.valueEnd;
      }
    } catch (error) {
      throw this.corrupt(error);
    }
    return location;
  }

  /**
   * Decodes the network map at `offset` (a {@link RecordParts} offset).
   *
   * @throws DataUnavailableError when it is corrupt.
   */
  networkAt(offset: number): GeoNetwork {
    let asn = 0;
    let organization = '';
    try {
      const data = this.reader.data;
      const { map } = this;
      data.field(offset, map, false);
      if (map.type !== MmdbType.Map) throw new MmdbFormatError(`network at offset ${offset} is not a map`);
      let at = map.payload;
      for (let i = 0; i < map.size; i++) {
        const key = this.values.keyAt(at);
        at = this.values.keyEnd;
        if (key === KEY.asn) asn = this.values.numberAt(at);
        else if (key === KEY.organization) organization = this.values.stringAt(at);
        else this.values.valueEnd = data.skip(at);
        at = this.values.valueEnd;
      }
    } catch (error) {
      throw this.corrupt(error);
    }
    return { asn, organization };
  }

  /** `code`, or the equal string read before. */
  private code(code: string): string {
    const known = this.codes.get(code);
    if (known !== undefined) return known;
    this.codes.set(code, code);
    return code;
  }

  /** A read's error as the database's failure: corrupt data is recorded in {@link damage}; anything else passes. */
  private corrupt(error: unknown): unknown {
    if (!(error instanceof MmdbFormatError)) return error;
    this.damage ??= error.message;
    return unavailable(`the database is corrupt: ${error.message}`);
  }
}
