/**
 * @module Country facts, bundled into the Worker: names, native names, capitals, continents,
 * dialling codes, currencies and languages from `countries-list`, IANA time zones from
 * `countries-and-timezones`.
 */
import { getCountry } from 'countries-and-timezones';
import { continents, countries } from 'countries-list';

/** What the API says about a country. */
export interface CountryFacts {
  /** ISO 3166-1 alpha-2. */
  readonly code: string;
  /** English name. */
  readonly name: string;
  /** Name in the country's own language. */
  readonly native: string;
  readonly capital: string;
  /** Two-letter continent code (AF, AN, AS, EU, NA, OC, SA). */
  readonly continent: string;
  /** English continent name. */
  readonly continentName: string;
  /** International dialling codes, without "+". */
  readonly phoneCodes: readonly number[];
  /** ISO 4217 currency codes. */
  readonly currencies: readonly string[];
  /** ISO 639-1 language codes. */
  readonly languages: readonly string[];
  /** IANA time zones of the country. */
  readonly timeZones: readonly string[];
}

type CountryCode = keyof typeof countries;

const cache = new Map<string, CountryFacts | undefined>();

/**
 * Facts of the country with ISO 3166-1 alpha-2 `code` (upper case), or undefined when
 * `countries-list` does not know it.
 */
export function countryFacts(code: string): CountryFacts | undefined {
  if (cache.has(code)) return cache.get(code);
  const country = Object.hasOwn(countries, code) ? countries[code as CountryCode] : undefined;
  const facts: CountryFacts | undefined = country && {
    code,
    name: country.name,
    native: country.native,
    capital: country.capital,
    continent: country.continent,
    continentName: continents[country.continent as keyof typeof continents] ?? '',
    phoneCodes: [...country.phone],
    currencies: [...country.currency],
    languages: [...country.languages],
    timeZones: [...(getCountry(code)?.timezones ?? [])],
  };
  cache.set(code, facts);
  return facts;
}

/** Every ISO 3166-1 alpha-2 code that `countries-list` knows, sorted. */
export function countryCodes(): string[] {
  return Object.keys(countries).sort();
}
