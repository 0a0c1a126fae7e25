/**
 * @module What a stored location, network and country become in an answer: their values in every
 * language, and their fields rendered as JSON members and XML elements in UTF-8 text (`format/utf8.ts`),
 * converted once when an entry is made. The whole JSON record is written from a few flat runs of
 * members that the entries keep, each ending in its comma, so that a record is one short concatenation
 * (BENCHMARKS.md, "Issue 16, stop 23").
 */
import { type JsonValue, jsonString, jsonValue } from '../format/json.ts';
import { type Utf8, utf8 } from '../format/utf8.ts';
import { xmlFragment } from '../format/xml.ts';
import type { GeoLocation, GeoNetwork } from '../geo/database.ts';
import { ENGLISH, LANGUAGES, type LanguageIndex, type Names } from '../geo/languages.ts';
import { countryFacts } from '../reference/countries.ts';
import { FIELD_INDEX, FIELDS, type FieldName } from './fields.ts';

/** An answer's format. */
export type Format = 'json' | 'xml';

/** `"name":value` as `JSON.stringify` writes the member, or the field's XML elements (see {@link xmlFragment}), in UTF-8. */
export function fragment(format: Format, name: FieldName, value: JsonValue): Utf8 {
  return utf8(format === 'json' ? `"${name}":${jsonValue(value)}` : xmlFragment(name, value));
}

/**
 * `parts` as one string, joined rather than concatenated: a joined string is one flat run of memory,
 * which an answer's own concatenation copies in one go, where a concatenated one is a tree of its
 * parts to walk each time (V8's strings; a bulk answer of trees cost 20% more in Node).
 */
function flat<T extends string>(...parts: T[]): T {
  return parts.join('') as T;
}

/** The name in `language` of `names`, else `english` (the English answer). */
function nameIn(names: Names, language: LanguageIndex, english: string): string {
  return language === ENGLISH ? english : (names[language] as string) || english;
}

/** Where a location reads its names in other languages: the records of its database (`records.ts`). */
export interface NameSource {
  /** The names at `offset` in every language (`GeoDatabase#namesAt`). */
  namesAt(offset: number): Names;
  /** The JSON string of the name at `offset` in `language`, in UTF-8; '' where the data has none in it. */
  nameJson(offset: number, language: LanguageIndex): Utf8;
}

/** The fields of the record that a country answers: the run before `timeZones`, and the run after `regionCode`. */
const COUNTRY_HEAD = ['countryName', 'countryCode', 'capital', 'phoneCodes'] as const;
const COUNTRY_TAIL = ['continent', 'continentCode', 'currencies', 'languages'] as const;

/**
 * The facts of one country (or of an unknown or empty code): its fields rendered once per format and,
 * for names, per language. One per country code and database: 250 at most.
 */
export class CountryEntry {
  /** English `countryName` and `continent`, from `countries-list` (the default answer). */
  private readonly name: string;
  private readonly continentName: string;
  /** The fields of the country that are the same in every language, from `countries-list`. */
  private readonly facts: Readonly<Partial<Record<FieldName, JsonValue>>>;
  private readonly zones: readonly string[];
  private readonly byOwnZone = new Map<string, ZonesEntry>();
  /** Rendered fields by format, language and field ({@link FIELD_INDEX}); made when first asked. */
  private readonly rendered: (Utf8 | undefined)[] = [];
  /** The JSON members of {@link COUNTRY_HEAD} and of {@link COUNTRY_TAIL}, each followed by its comma, by language. */
  private readonly jsonHeads: (Utf8 | undefined)[] = [];
  private readonly jsonTails: (Utf8 | undefined)[] = [];

  /**
   * @param code ISO 3166-1 alpha-2 as stored, or ''.
   * @param names the data's names of the country in every language.
   * @param continentNames the data's names of its continent.
   */
  constructor(
    readonly code: string,
    private readonly names: Names,
    private readonly continentNames: Names,
  ) {
    const facts = code ? countryFacts(code) : undefined;
    this.name = facts?.name ?? '';
    this.continentName = facts?.continentName ?? '';
    this.facts = {
      countryCode: code,
      capital: facts?.capital ?? '',
      phoneCodes: Object.freeze([...(facts?.phoneCodes ?? [])]),
      continentCode: facts?.continent ?? '',
      currencies: Object.freeze([...(facts?.currencies ?? [])]),
      languages: Object.freeze([...(facts?.languages ?? [])]),
    };
    this.zones = facts?.timeZones ?? [];
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
    return nameIn(this.names, language, this.name);
  }

  /** A field of the country (`countryName`, `capital`, `phoneCodes`, `continent` … `languages`) rendered. */
  fragment(format: Format, name: FieldName, language: LanguageIndex): Utf8 {
    const slot = ((format === 'json' ? 0 : LANGUAGES.length) + language) * FIELDS.length + FIELD_INDEX[name];
    let text = this.rendered[slot];
    if (text === undefined) {
      text = fragment(format, name, this.value(name, language));
      this.rendered[slot] = text;
    }
    return text;
  }

  /** The JSON members `countryName` to `phoneCodes` in `language`, each followed by its comma. */
  jsonHead(language: LanguageIndex): Utf8 {
    return this.jsonRun(this.jsonHeads, COUNTRY_HEAD, language);
  }

  /** The JSON members `continent` to `languages` in `language`, each followed by its comma. */
  jsonTail(language: LanguageIndex): Utf8 {
    return this.jsonRun(this.jsonTails, COUNTRY_TAIL, language);
  }

  /** The members of `names`, each followed by its comma, kept in `runs` by language. */
  private jsonRun(runs: (Utf8 | undefined)[], names: readonly FieldName[], language: LanguageIndex): Utf8 {
    let run = runs[language];
    if (run === undefined) {
      run = names.map((name) => `${this.fragment('json', name, language)},`).join('') as Utf8;
      runs[language] = run;
    }
    return run;
  }

  private value(name: FieldName, language: LanguageIndex): JsonValue {
    if (name === 'countryName') return this.countryName(language);
    if (name === 'continent') return nameIn(this.continentNames, language, this.continentName);
    const value = this.facts[name];
    if (value === undefined) throw new RangeError(`${name} is not a field of a country`);
    return value;
  }
}

/** `timeZones`: the address's own zone first, then its country's others (DESIGN.md section 2). */
export class ZonesEntry {
  /** The JSON member, followed by its comma. */
  readonly json: Utf8;
  readonly xml: Utf8;
  constructor(readonly timeZones: readonly string[]) {
    this.json = flat(fragment('json', 'timeZones', timeZones), ',' as Utf8);
    this.xml = fragment('xml', 'timeZones', timeZones);
  }

  /** The field rendered. */
  fragment(format: Format): Utf8 {
    return format === 'json' ? (this.json.slice(0, -1) as Utf8) : this.xml;
  }
}

/** The continent code of a country in `countries-list` (the code the answer gives), or ''. */
export function continentOf(code: string): string {
  return (code && countryFacts(code)?.continent) || '';
}

/** The JSON keys of a location's place members. */
const CITY_KEY = '"cityName":' as Utf8;
const REGION_KEY = '"regionName":' as Utf8;
const REGION_CODE_KEY = '"regionCode":' as Utf8;

/** A stored location with its country and its zones. Held by the location cache, by data offset. */
export class LocationEntry {
  readonly zones: ZonesEntry;
  /**
   * `","latitude":…,"longitude":…,`: the whole JSON record's run from the end of the address to the
   * country's {@link CountryEntry.jsonHead}.
   */
  readonly jsonPoint: Utf8;
  /**
   * The English `"zipCode":…,"cityName":…,"regionName":…,"regionCode":…,` (each member followed by its
   * comma): the run after the zones, the answer nearly every client asks for. Its members are also
   * the English fields, and a name's fallback in another language.
   */
  private readonly englishPlace: Utf8;
  /** Where `"cityName"`, `"regionName"` and `"regionCode"` start in {@link englishPlace}. */
  private readonly cityAt: number;
  private readonly regionAt: number;
  private readonly regionCodeAt: number;

  /** @param names where its names in other languages are read, when asked for. */
  constructor(
    readonly location: GeoLocation,
    readonly country: CountryEntry,
    private readonly names: NameSource | undefined,
  ) {
    this.zones = country.zonesFor(location.timeZone);
    this.jsonPoint = utf8(flat('","latitude":', jsonValue(location.latitude), ',"longitude":', jsonValue(location.longitude), ','));
    const place = utf8(
      flat('"zipCode":', jsonString(location.postalCode), ',', CITY_KEY, jsonString(location.cityName), ',', REGION_KEY, jsonString(location.regionName), ','),
    );
    this.englishPlace = flat(place, REGION_CODE_KEY, utf8(jsonString(location.regionCode)), ',' as Utf8);
    // A key's first occurrence is the key: in a JSON string every quote is escaped.
    this.cityAt = place.indexOf(CITY_KEY);
    this.regionAt = place.indexOf(REGION_KEY);
    this.regionCodeAt = place.length;
  }

  /** The city's name in `language` (English when the data has none in it). */
  cityName(language: LanguageIndex): string {
    const { cityName, cityNamesOffset } = this.location;
    return language === ENGLISH || cityNamesOffset < 0 || !this.names ? cityName : nameIn(this.names.namesAt(cityNamesOffset), language, cityName);
  }

  /** The first subdivision's name in `language` (English when the data has none in it). */
  regionName(language: LanguageIndex): string {
    const { regionName, regionNamesOffset } = this.location;
    return language === ENGLISH || regionNamesOffset < 0 || !this.names ? regionName : nameIn(this.names.namesAt(regionNamesOffset), language, regionName);
  }

  /**
   * `"zipCode":…,"cityName":…,"regionName":…,` in `language`, then `"regionCode":…,` when
   * `withRegionCode` (the single record has it, the bulk record has not): the whole JSON record's run
   * after the zones, each member followed by its comma.
   */
  jsonPlace(language: LanguageIndex, withRegionCode: boolean): Utf8 {
    const english = this.englishPlace;
    if (language === ENGLISH) return withRegionCode ? english : (english.slice(0, this.regionCodeAt) as Utf8);
    const place = `${english.slice(0, this.cityAt)}${this.cityField(language)},${this.regionField(language)},`;
    return (withRegionCode ? `${place}${english.slice(this.regionCodeAt)}` : place) as Utf8;
  }

  /** `"cityName":…` in `language`: the data's name in it, from the records' names, else the English one. */
  private cityField(language: LanguageIndex): Utf8 {
    const name = this.nameJson(this.location.cityNamesOffset, language);
    return (name ? `${CITY_KEY}${name}` : this.englishPlace.slice(this.cityAt, this.regionAt - 1)) as Utf8;
  }

  /** `"regionName":…` in `language`, as {@link cityField}. */
  private regionField(language: LanguageIndex): Utf8 {
    const name = this.nameJson(this.location.regionNamesOffset, language);
    return (name ? `${REGION_KEY}${name}` : this.englishPlace.slice(this.regionAt, this.regionCodeAt - 1)) as Utf8;
  }

  /** The JSON string of the names at `offset` in `language`; '' for English, or where there is none. */
  private nameJson(offset: number, language: LanguageIndex): Utf8 {
    return language === ENGLISH || offset < 0 || !this.names ? ('' as Utf8) : this.names.nameJson(offset, language);
  }

  /** A field of the record that this location (with its country) answers, rendered. */
  fragment(format: Format, name: FieldName, language: LanguageIndex): Utf8 {
    const { location } = this;
    if (format === 'json') {
      // The place's fields are its members, without their commas.
      if (name === 'zipCode') return this.englishPlace.slice(0, this.cityAt - 1) as Utf8;
      if (name === 'cityName') return this.cityField(language);
      if (name === 'regionName') return this.regionField(language);
      if (name === 'regionCode') return this.englishPlace.slice(this.regionCodeAt, -1) as Utf8;
    }
    switch (name) {
      case 'latitude':
        return fragment(format, name, location.latitude);
      case 'longitude':
        return fragment(format, name, location.longitude);
      case 'countryCode':
        return fragment(format, name, location.countryCode);
      case 'timeZones':
        return this.zones.fragment(format);
      case 'zipCode':
        return fragment(format, name, location.postalCode);
      case 'cityName':
        return fragment(format, name, this.cityName(language));
      case 'regionName':
        return fragment(format, name, this.regionName(language));
      case 'regionCode':
        return fragment(format, name, location.regionCode);
      default:
        return this.country.fragment(format, name, language);
    }
  }
}

/** A stored network: `asn` as a decimal string ('' when unknown) and `asnOrganization`, rendered once. */
export class NetworkEntry {
  readonly asn: string;
  readonly organization: string;
  /** Both members in JSON, `"asn":…,"asnOrganization":…,`: the whole JSON record's run after the country's tail. */
  readonly json: Utf8;
  /** Where `"asnOrganization"` starts in {@link json}. */
  private readonly organizationAt: number;
  private xmlTexts: readonly [Utf8, Utf8] | undefined;

  constructor(network: GeoNetwork) {
    this.asn = network.asn ? String(network.asn) : '';
    this.organization = network.organization;
    const asn = `"asn":${jsonString(this.asn)},`;
    this.json = utf8(flat(asn, '"asnOrganization":', jsonString(this.organization), ','));
    this.organizationAt = asn.length; // ASCII: digits
  }

  /** `asn` or `asnOrganization` rendered. */
  fragment(format: Format, name: 'asn' | 'asnOrganization'): Utf8 {
    if (format === 'json') return (name === 'asn' ? this.json.slice(0, this.organizationAt - 1) : this.json.slice(this.organizationAt, -1)) as Utf8;
    this.xmlTexts ??= [fragment('xml', 'asn', this.asn), fragment('xml', 'asnOrganization', this.organization)];
    return this.xmlTexts[name === 'asn' ? 0 : 1];
  }
}
