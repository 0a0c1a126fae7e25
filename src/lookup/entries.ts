/**
 * @module What a stored location, network and country become in an answer: their values in every
 * language, and their fields as JSON members and XML elements in UTF-8 text (`format/utf8.ts`),
 * converted once, when an entry is made. The whole JSON record is a few flat runs of members that the
 * entries keep, each member followed by its comma; a field alone is a slice of its run
 * (docs/decisions/0006-utf8-runs.md).
 */
import { type Utf8, utf8 } from '../format/utf8.ts';
import { xmlFragment } from '../format/xml.ts';
import type { GeoDatabase } from '../geo/database.ts';
import { ENGLISH, LANGUAGES, type LanguageIndex, type Names } from '../geo/languages.ts';
import type { GeoLocation, GeoNetwork } from '../geo/record-parts.ts';
import { continentName, countryFacts } from '../reference/countries.ts';
import { FIELD_INDEX, FIELDS, type FieldName } from './fields.ts';

/** A value of an answer: a string, a number, a boolean, or an array of them. */
type JsonValue = string | number | boolean | readonly (string | number)[];

/** An answer's format. */
export type Format = 'json' | 'xml';

/** `"name":value` as `JSON.stringify` writes the member, or the field's XML elements (see {@link xmlFragment}), in UTF-8. */
export function fragment(format: Format, name: FieldName, value: JsonValue): Utf8 {
  return utf8(format === 'json' ? `"${name}":${JSON.stringify(value)}` : xmlFragment(name, value));
}

/**
 * `parts` joined: one flat string, which an answer's concatenation copies in one go, where a
 * concatenated one is a tree of its parts to walk each time (docs/hot-path.md).
 */
function flat<T extends string>(...parts: T[]): T {
  return parts.join('') as T;
}

/** Where a location finds its names in other languages (by names offset): the records of its database. */
export interface NameSource {
  /** The name at `offset` in `language`, '' where the data has none in it. */
  name(offset: number, language: LanguageIndex): string;
  /** The same as a JSON string in UTF-8, kept: what an answer in that language writes. */
  nameJson(offset: number, language: LanguageIndex): Utf8;
}

/** The fields of the record that a country answers: the run before `timeZones`, and the run after `regionCode`. */
const COUNTRY_RUNS = [
  ['countryName', 'countryCode', 'capital', 'phoneCodes'],
  ['continent', 'continentCode', 'currencies', 'languages'],
] as const;

/**
 * The facts of one country (or of an unknown or empty code) on one continent: its fields rendered once
 * per format and, for names, per language. One per pair of country and continent codes and database
 * (the continent is the location's, which within a country rarely differs): a few hundred at most.
 */
export class CountryEntry {
  /** The fields of the country in English: from `countries-list`, the continent from the location data. */
  private readonly facts: Readonly<Partial<Record<FieldName, JsonValue>>>;
  /** The data's names of the country (`countryName`) and of its continent (`continent`) in every language. */
  private readonly names: Readonly<Partial<Record<FieldName, Names>>>;
  private readonly zones: readonly string[];
  private readonly byOwnZone = new Map<string, ZonesEntry>();
  /** The country is in the European Union, as the location data says (`GeoDatabase.isInEuropeanUnion`); false for ''. */
  readonly isEu: boolean;
  /** Rendered fields by format, language and field ({@link FIELD_INDEX}), and runs by language; made when first asked. */
  private readonly rendered: (Utf8 | undefined)[] = [];
  private readonly runs: (Utf8 | undefined)[] = [];

  /**
   * @param code ISO 3166-1 alpha-2 as stored, or ''.
   * @param continentCode the continent code that the location data gives (`GeoLocation.continentCode`),
   *   or '' where it gives none: then the country's own in `countries-list`.
   * @param database where the names of countries and continents are (the metadata's).
   */
  constructor(
    readonly code: string,
    continentCode: string,
    database: Pick<GeoDatabase, 'countryNames' | 'continentNames' | 'isInEuropeanUnion'>,
  ) {
    const facts = code ? countryFacts(code) : undefined;
    const continent = continentCode || facts?.continent || '';
    const continentNames = database.continentNames(continent);
    this.names = { countryName: database.countryNames(code), continent: continentNames };
    this.facts = {
      countryName: facts?.name ?? '',
      countryCode: code,
      capital: facts?.capital ?? '',
      phoneCodes: Object.freeze([...(facts?.phoneCodes ?? [])]),
      continent: continentNames[ENGLISH] || continentName(continent),
      continentCode: continent,
      currencies: Object.freeze([...(facts?.currencies ?? [])]),
      languages: Object.freeze([...(facts?.languages ?? [])]),
    };
    this.zones = facts?.timeZones ?? [];
    this.isEu = code !== '' && database.isInEuropeanUnion(code);
  }

  /** The `timeZones` of an address in this country whose own zone is `own` ('' when unknown). */
  zonesFor(own: string): ZonesEntry {
    let zones = this.byOwnZone.get(own);
    if (zones === undefined) {
      zones = new ZonesEntry(own ? [own, ...this.zones.filter((zone) => zone !== own)] : [...this.zones]);
      this.byOwnZone.set(own, zones);
    }
    return zones;
  }

  /** The country's name in `language` (English when the data has none in it). */
  countryName(language: LanguageIndex): string {
    return this.value('countryName', language) as string;
  }

  /** A field of the country (`countryName`, `capital`, `phoneCodes`, `continent` … `languages`) rendered. */
  fragment(format: Format, name: FieldName, language: LanguageIndex): Utf8 {
    const slot = ((format === 'json' ? 0 : LANGUAGES.length) + language) * FIELDS.length + FIELD_INDEX[name];
    const text = this.rendered[slot] ?? fragment(format, name, this.value(name, language));
    this.rendered[slot] = text;
    return text;
  }

  /** The JSON members `countryName` to `phoneCodes` in `language`, each followed by its comma. */
  jsonHead(language: LanguageIndex): Utf8 {
    return this.jsonRun(0, language);
  }

  /** The JSON members `continent` to `languages` in `language`, each followed by its comma. */
  jsonTail(language: LanguageIndex): Utf8 {
    return this.jsonRun(1, language);
  }

  private jsonRun(run: 0 | 1, language: LanguageIndex): Utf8 {
    const slot = language * 2 + run;
    const text = this.runs[slot] ?? (COUNTRY_RUNS[run].map((name) => `${this.fragment('json', name, language)},`).join('') as Utf8);
    this.runs[slot] = text;
    return text;
  }

  private value(name: FieldName, language: LanguageIndex): JsonValue {
    const value = this.facts[name];
    if (value === undefined) throw new RangeError(`${name} is not a field of a country`);
    return (language !== ENGLISH && this.names[name]?.[language]) || value;
  }
}

/** `timeZones`: the address's own zone first, then its country's others (docs/specification.md, 2.1). */
export class ZonesEntry {
  /** The JSON member followed by its comma, and the XML elements. */
  readonly json: Utf8;
  readonly xml: Utf8;
  constructor(readonly timeZones: readonly string[]) {
    this.json = flat(fragment('json', 'timeZones', timeZones), ',' as Utf8);
    this.xml = fragment('xml', 'timeZones', timeZones);
  }
}

const CITY_KEY = '"cityName":' as Utf8;
const REGION_KEY = '"regionName":' as Utf8;

/** A stored location with its country and its zones. Held by the location cache, by data offset. */
export class LocationEntry {
  readonly zones: ZonesEntry;
  /** `","latitude":…,"longitude":…,`: the whole JSON record's run from the end of the address to the country's head. */
  readonly jsonPoint: Utf8;
  /**
   * The English `"zipCode":…,"cityName":…,"regionName":…,"regionCode":…,`, the run after the zones (the
   * single record's; the bulk record's ends before `regionCode`). `cityAt`, `regionAt` and
   * `regionCodeAt` are where those members start: each one's key is its first occurrence, since in a
   * JSON string every quote is escaped.
   */
  private readonly englishPlace: Utf8;
  private readonly cityAt: number;
  private readonly regionAt: number;
  private readonly regionCodeAt: number;

  /** @param names where its names in other languages are found (none for a location without names). */
  constructor(
    readonly location: GeoLocation,
    readonly country: CountryEntry,
    private readonly names: NameSource | undefined,
  ) {
    const { latitude, longitude, postalCode, cityName, regionName, regionCode } = location;
    this.zones = country.zonesFor(location.timeZone);
    this.jsonPoint = utf8(flat('","latitude":', JSON.stringify(latitude), ',"longitude":', JSON.stringify(longitude), ','));
    const place = ['"zipCode":', JSON.stringify(postalCode), ',', CITY_KEY, JSON.stringify(cityName), ',', REGION_KEY, JSON.stringify(regionName), ','];
    this.englishPlace = utf8(flat(...place, '"regionCode":', JSON.stringify(regionCode), ','));
    this.cityAt = this.englishPlace.indexOf(CITY_KEY);
    this.regionAt = this.englishPlace.indexOf(REGION_KEY);
    this.regionCodeAt = this.englishPlace.indexOf('"regionCode":');
  }

  /** The city's or the first subdivision's name in `language` (English when the data has none in it). */
  placeName(place: 'city' | 'region', language: LanguageIndex): string {
    const { location, names } = this;
    const offset = place === 'city' ? location.cityNamesOffset : location.regionNamesOffset;
    return (language !== ENGLISH && offset >= 0 && names?.name(offset, language)) || (place === 'city' ? location.cityName : location.regionName);
  }

  /**
   * `"zipCode":…,"cityName":…,"regionName":…,` in `language`, then `"regionCode":…,` when
   * `withRegionCode` (the single record has it, the bulk record has not): the whole JSON record's run
   * after the zones.
   */
  jsonPlace(language: LanguageIndex, withRegionCode: boolean): Utf8 {
    const english = this.englishPlace;
    if (language === ENGLISH) return withRegionCode ? english : (english.slice(0, this.regionCodeAt) as Utf8);
    const place = `${english.slice(0, this.cityAt)}${this.nameField(CITY_KEY, language)},${this.nameField(REGION_KEY, language)},`;
    return (withRegionCode ? `${place}${english.slice(this.regionCodeAt)}` : place) as Utf8;
  }

  /** `"cityName":…` or `"regionName":…` in `language`: the data's name in it, else the English member. */
  private nameField(key: Utf8, language: LanguageIndex): Utf8 {
    const city = key === CITY_KEY;
    const offset = city ? this.location.cityNamesOffset : this.location.regionNamesOffset;
    const name = language === ENGLISH || offset < 0 || !this.names ? '' : this.names.nameJson(offset, language);
    if (name) return `${key}${name}` as Utf8;
    return (city ? this.englishPlace.slice(this.cityAt, this.regionAt - 1) : this.englishPlace.slice(this.regionAt, this.regionCodeAt - 1)) as Utf8;
  }

  /** A field of the record that this location (with its country) answers, rendered. */
  fragment(format: Format, name: FieldName, language: LanguageIndex): Utf8 {
    const { location, englishPlace } = this;
    if (format === 'json') {
      if (name === 'latitude' || name === 'longitude') {
        const longitudeAt = this.jsonPoint.indexOf('"longitude":'); // in '","latitude":…,"longitude":…,'
        return (name === 'latitude' ? this.jsonPoint.slice(2, longitudeAt - 1) : this.jsonPoint.slice(longitudeAt, -1)) as Utf8;
      }
      if (name === 'zipCode') return englishPlace.slice(0, this.cityAt - 1) as Utf8;
      if (name === 'cityName' || name === 'regionName') return this.nameField(name === 'cityName' ? CITY_KEY : REGION_KEY, language);
      if (name === 'regionCode') return englishPlace.slice(this.regionCodeAt, -1) as Utf8;
      if (name === 'timeZones') return this.zones.json.slice(0, -1) as Utf8;
    }
    if (name === 'timeZones') return this.zones.xml;
    if (name === 'cityName' || name === 'regionName') return fragment(format, name, this.placeName(name === 'cityName' ? 'city' : 'region', language));
    if (name === 'zipCode') return fragment(format, name, location.postalCode);
    if (name === 'latitude' || name === 'longitude' || name === 'regionCode') return fragment(format, name, location[name]);
    return this.country.fragment(format, name, language);
  }
}

/** A stored network: `asn` as a decimal string ('' when unknown) and `asnOrganization`, its JSON run kept. */
export class NetworkEntry {
  readonly asn: string;
  readonly organization: string;
  /** `"asn":…,"asnOrganization":…,`: the whole JSON record's run after the country's tail. */
  readonly json: Utf8;

  constructor(network: GeoNetwork) {
    this.asn = network.asn ? String(network.asn) : '';
    this.organization = network.organization;
    this.json = utf8(flat('"asn":', JSON.stringify(this.asn), ',"asnOrganization":', JSON.stringify(this.organization), ','));
  }

  /** `asn` or `asnOrganization` rendered. */
  fragment(format: Format, name: 'asn' | 'asnOrganization'): Utf8 {
    if (format === 'xml') return fragment('xml', name, name === 'asn' ? this.asn : this.organization);
    // The asn's member is ASCII (digits), so it ends where the organization's starts.
    const organizationAt = this.json.indexOf('"asnOrganization":');
    return (name === 'asn' ? this.json.slice(0, organizationAt - 1) : this.json.slice(organizationAt, -1)) as Utf8;
  }
}
