/** @module What a stored location, network and country become in an answer: their values in every language, and their fields rendered as JSON members and XML elements. */
import { type XmlValue, xmlFragment } from '../format/xml.ts';
import type { GeoDatabase, GeoLocation, GeoNetwork } from '../geo/database.ts';
import { ENGLISH, LANGUAGES, type LanguageIndex, type Names } from '../geo/languages.ts';
import { countryFacts } from '../reference/countries.ts';
import { FIELDS, type FieldName } from './fields.ts';

/** An answer's format. */
export type Format = 'json' | 'xml';

/** `"name":value` as `JSON.stringify` writes the member, or the field's XML elements (see {@link xmlFragment}). */
export function fragment(format: Format, name: FieldName, value: XmlValue): string {
  return format === 'json' ? `"${name}":${JSON.stringify(value)}` : xmlFragment(name, value);
}

/** The name in `language` of `names`, else `english` (the English answer). */
function nameIn(names: Names, language: LanguageIndex, english: string): string {
  return language === ENGLISH ? english : (names[language] as string) || english;
}

/**
 * The facts of one country (or of an unknown or empty code): its fields rendered once per format and,
 * for names, per language. One per country code and database: 250 at most.
 */
export class CountryEntry {
  /** English `countryName` and `continent`, from `countries-list` (the default answer). */
  readonly name: string;
  readonly continentName: string;
  readonly phoneCodes: readonly number[];
  readonly currencies: readonly string[];
  readonly languages: readonly string[];
  readonly capital: string;
  readonly continentCode: string;
  private readonly zones: readonly string[];
  private readonly byOwnZone = new Map<string, ZonesEntry>();
  /** Rendered fields by format, language and field ({@link slot}); made when first asked. */
  private readonly rendered: (string | undefined)[] = [];

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
    this.capital = facts?.capital ?? '';
    this.phoneCodes = Object.freeze([...(facts?.phoneCodes ?? [])]);
    this.continentCode = facts?.continent ?? '';
    this.currencies = Object.freeze([...(facts?.currencies ?? [])]);
    this.languages = Object.freeze([...(facts?.languages ?? [])]);
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
    const slot = ((format === 'json' ? 0 : LANGUAGES.length) + language) * FIELDS.length + FIELDS.indexOf(name);
    let text = this.rendered[slot];
    if (text === undefined) {
      text = fragment(format, name, this.value(name, language));
      this.rendered[slot] = text;
    }
    return text;
  }

  private value(name: FieldName, language: LanguageIndex): XmlValue {
    switch (name) {
      case 'countryName':
        return this.countryName(language);
      case 'countryCode':
        return this.code;
      case 'capital':
        return this.capital;
      case 'phoneCodes':
        return this.phoneCodes;
      case 'continent':
        return nameIn(this.continentNames, language, this.continentName);
      case 'continentCode':
        return this.continentCode;
      case 'currencies':
        return this.currencies;
      case 'languages':
        return this.languages;
      default:
        throw new RangeError(`${name} is not a field of a country`);
    }
  }
}

/** `timeZones`: the address's own zone first, then its country's others (DESIGN.md section 2). */
export class ZonesEntry {
  readonly json: string;
  readonly xml: string;
  constructor(readonly timeZones: readonly string[]) {
    this.json = fragment('json', 'timeZones', timeZones);
    this.xml = fragment('xml', 'timeZones', timeZones);
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
   * @param offset the location's data offset, which names it in caches.
   * @param database where its names in other languages are read, when asked for.
   */
  constructor(
    readonly offset: number,
    readonly location: GeoLocation,
    readonly country: CountryEntry,
    private readonly database: GeoDatabase | undefined,
  ) {
    this.zones = country.zonesFor(location.timeZone);
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
   * The JSON members of the whole record's run from `latitude` to `languages`, each followed by a
   * comma, in `language`; without `regionCode` for the bulk record. The location's own fields are
   * written by two `JSON.stringify` calls, its country's come rendered (a run is made on every miss of
   * the runs cache, so this is the bulk route's hot path too).
   */
  jsonRun(language: LanguageIndex, withRegionCode: boolean): string {
    const { location, country } = this;
    const point = JSON.stringify({ latitude: location.latitude, longitude: location.longitude });
    const place = { zipCode: location.postalCode, cityName: this.cityName(language), regionName: this.regionName(language) };
    const placeJson = JSON.stringify(withRegionCode ? { ...place, regionCode: location.regionCode } : place);
    const countryField = (name: FieldName) => country.fragment('json', name, language);
    return [
      point.slice(1, -1),
      countryField('countryName'),
      countryField('countryCode'),
      countryField('capital'),
      countryField('phoneCodes'),
      this.zones.json,
      placeJson.slice(1, -1),
      countryField('continent'),
      countryField('continentCode'),
      countryField('currencies'),
      countryField('languages'),
      '',
    ].join(',');
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
        return this.zones[format];
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
  private jsonTexts: readonly [string, string] | undefined;
  private xmlTexts: readonly [string, string] | undefined;

  constructor(network: GeoNetwork) {
    this.asn = network.asn ? String(network.asn) : '';
    this.organization = network.organization;
  }

  /** `asn` (0) or `asnOrganization` (1) rendered. */
  fragment(format: Format, which: 0 | 1): string {
    if (format === 'json') {
      this.jsonTexts ??= [fragment('json', 'asn', this.asn), fragment('json', 'asnOrganization', this.organization)];
      return this.jsonTexts[which];
    }
    this.xmlTexts ??= [fragment('xml', 'asn', this.asn), fragment('xml', 'asnOrganization', this.organization)];
    return this.xmlTexts[which];
  }
}
