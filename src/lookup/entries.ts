/**
 * @module What a stored location, network and country become in an answer: their values in every
 * language, and their fields rendered as JSON members and XML elements. The whole JSON record is
 * written from a few runs of members that the entries keep, each ending in its comma, so that a record
 * is one short concatenation (BENCHMARKS.md, "Issue 16, stop 23").
 */
import { type JsonValue, jsonString, jsonValue } from '../format/json.ts';
import { xmlFragment } from '../format/xml.ts';
import type { GeoDatabase, GeoLocation, GeoNetwork } from '../geo/database.ts';
import { ENGLISH, LANGUAGES, type LanguageIndex, type Names } from '../geo/languages.ts';
import { countryFacts } from '../reference/countries.ts';
import { FIELD_INDEX, FIELDS, type FieldName } from './fields.ts';

/** An answer's format. */
export type Format = 'json' | 'xml';

/** `"name":value` as `JSON.stringify` writes the member, or the field's XML elements (see {@link xmlFragment}). */
export function fragment(format: Format, name: FieldName, value: JsonValue): string {
  return format === 'json' ? `"${name}":${jsonValue(value)}` : xmlFragment(name, value);
}

/**
 * `parts` as one string, joined rather than concatenated: a joined string is one flat run of memory,
 * which an answer's own concatenation copies in one go, where a concatenated one is a tree of its
 * parts to walk each time (V8's strings; a bulk answer of trees cost 20% more in Node).
 */
function flat(...parts: string[]): string {
  return parts.join('');
}

/** The name in `language` of `names`, else `english` (the English answer). */
function nameIn(names: Names, language: LanguageIndex, english: string): string {
  return language === ENGLISH ? english : (names[language] as string) || english;
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
  private readonly rendered: (string | undefined)[] = [];
  /** The JSON members of {@link COUNTRY_HEAD} and of {@link COUNTRY_TAIL}, joined, by language. */
  private readonly jsonHeads: (string | undefined)[] = [];
  private readonly jsonTails: (string | undefined)[] = [];

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
  fragment(format: Format, name: FieldName, language: LanguageIndex): string {
    const slot = ((format === 'json' ? 0 : LANGUAGES.length) + language) * FIELDS.length + FIELD_INDEX[name];
    let text = this.rendered[slot];
    if (text === undefined) {
      text = fragment(format, name, this.value(name, language));
      this.rendered[slot] = text;
    }
    return text;
  }

  /** The JSON members `countryName` to `phoneCodes` in `language`, each followed by its comma. */
  jsonHead(language: LanguageIndex): string {
    return this.jsonRun(this.jsonHeads, COUNTRY_HEAD, language);
  }

  /** The JSON members `continent` to `languages` in `language`, each followed by its comma. */
  jsonTail(language: LanguageIndex): string {
    return this.jsonRun(this.jsonTails, COUNTRY_TAIL, language);
  }

  /** The members of `names`, each followed by its comma, kept in `runs` by language. */
  private jsonRun(runs: (string | undefined)[], names: readonly FieldName[], language: LanguageIndex): string {
    let run = runs[language];
    if (run === undefined) {
      run = names.map((name) => `${this.fragment('json', name, language)},`).join('');
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
  readonly json: string;
  readonly xml: string;
  constructor(readonly timeZones: readonly string[]) {
    this.json = flat(fragment('json', 'timeZones', timeZones), ',');
    this.xml = fragment('xml', 'timeZones', timeZones);
  }

  /** The field rendered. */
  fragment(format: Format): string {
    return format === 'json' ? this.json.slice(0, -1) : this.xml;
  }
}

/** The continent code of a country in `countries-list` (the code the answer gives), or ''. */
export function continentOf(code: string): string {
  return (code && countryFacts(code)?.continent) || '';
}

/** A stored location with its country and its zones. Held by the location cache, by data offset. */
export class LocationEntry {
  readonly zones: ZonesEntry;
  /**
   * `","latitude":…,"longitude":…,`: the whole JSON record's run from the end of the address to the
   * country's {@link CountryEntry.jsonHead}.
   */
  readonly jsonPoint: string;
  /**
   * The English `"zipCode":…,"cityName":…,"regionName":…,"regionCode":…,` (each member followed by its
   * comma): the run after the zones, the answer nearly every client asks for.
   */
  private readonly englishPlace: string;
  /** Where `"regionCode"` starts in {@link englishPlace}: the bulk record ends its place there. */
  private readonly regionCodeAt: number;

  /** @param database where its names in other languages are read, when asked for. */
  constructor(
    readonly location: GeoLocation,
    readonly country: CountryEntry,
    private readonly database: GeoDatabase | undefined,
  ) {
    this.zones = country.zonesFor(location.timeZone);
    this.jsonPoint = flat('","latitude":', jsonValue(location.latitude), ',"longitude":', jsonValue(location.longitude), ',');
    const place = this.namesMembers(location.cityName, location.regionName);
    this.regionCodeAt = place.length;
    this.englishPlace = flat(place, '"regionCode":', jsonString(location.regionCode), ',');
  }

  /** The city's name in `language` (English when the data has none in it). */
  cityName(language: LanguageIndex): string {
    const { cityName, cityNamesOffset } = this.location;
    return language === ENGLISH || cityNamesOffset < 0 || !this.database ? cityName : nameIn(this.database.namesAt(cityNamesOffset), language, cityName);
  }

  /** The first subdivision's name in `language` (English when the data has none in it). */
  regionName(language: LanguageIndex): string {
    const { regionName, regionNamesOffset } = this.location;
    return language === ENGLISH || regionNamesOffset < 0 || !this.database
      ? regionName
      : nameIn(this.database.namesAt(regionNamesOffset), language, regionName);
  }

  /**
   * `"zipCode":…,"cityName":…,"regionName":…,` in `language`, then `"regionCode":…,` when
   * `withRegionCode` (the single record has it, the bulk record has not): the whole JSON record's run
   * after the zones, each member followed by its comma.
   */
  jsonPlace(language: LanguageIndex, withRegionCode: boolean): string {
    if (language === ENGLISH) return withRegionCode ? this.englishPlace : this.englishPlace.slice(0, this.regionCodeAt);
    const place = this.namesMembers(this.cityName(language), this.regionName(language));
    return withRegionCode ? `${place}${this.englishPlace.slice(this.regionCodeAt)}` : place;
  }

  private namesMembers(cityName: string, regionName: string): string {
    return `"zipCode":${jsonString(this.location.postalCode)},"cityName":${jsonString(cityName)},"regionName":${jsonString(regionName)},`;
  }

  /** A field of the record that this location (with its country) answers, rendered. */
  fragment(format: Format, name: FieldName, language: LanguageIndex): string {
    const { location } = this;
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
  readonly json: string;
  private xmlTexts: readonly [string, string] | undefined;

  constructor(network: GeoNetwork) {
    this.asn = network.asn ? String(network.asn) : '';
    this.organization = network.organization;
    this.json = flat('"asn":', jsonString(this.asn), ',"asnOrganization":', jsonString(this.organization), ',');
  }

  /** `asn` or `asnOrganization` rendered. */
  fragment(format: Format, name: 'asn' | 'asnOrganization'): string {
    const value = name === 'asn' ? this.asn : this.organization;
    if (format === 'json') return fragment('json', name, value);
    this.xmlTexts ??= [fragment('xml', 'asn', this.asn), fragment('xml', 'asnOrganization', this.organization)];
    return this.xmlTexts[name === 'asn' ? 0 : 1];
  }
}
