/**
 * @module Country facts bundled into the Worker: names, native names, capitals, continents, dialling
 * codes, currencies and languages from `countries-list`, IANA zones from `countries-and-timezones`. The
 * countries are the 250 codes of docs/specification.md, 2.5: `countries-list` also holds AC and TA,
 * which ISO 3166-1 only reserves (they are parts of SH), so every list and index here leaves them out.
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
  /** International dialling codes, without "+". */
  readonly phoneCodes: readonly number[];
  /** ISO 4217 currency codes. */
  readonly currencies: readonly string[];
  /** ISO 639-1 language codes. */
  readonly languages: readonly string[];
  /** IANA time zones of the country. */
  readonly timeZones: readonly string[];
}

/**
 * A country as the reference endpoints answer it (docs/api.md, "Countries"): the members of the
 * specification's language result, then dialling codes, currencies, languages and time zones.
 */
export interface Country {
  /** ISO 3166-1 alpha-2. */
  code: string;
  /** English name. */
  name: string;
  /** Name in the country's own language. */
  native: string;
  /** May be empty (e.g. Antarctica). */
  capital: string;
  /** Two-letter continent code. */
  continent: string;
  /** Dialling codes without "+"; may be empty. */
  phoneCodes: number[];
  /** ISO 4217 codes; may be empty. */
  currencies: string[];
  /** ISO 639-1 codes; may be empty. */
  languages: string[];
  /** IANA zone names from `countries-and-timezones`; empty for BV, HM and XK. */
  timeZones: string[];
}

/** The part of a {@link Country} that the specification's language result lists (docs/specification.md, 2.4). */
export type CountrySummary = Pick<Country, 'code' | 'name' | 'native' | 'capital' | 'continent'>;

type CountryCode = keyof typeof countries;

/** Codes that `countries-list` holds but ISO 3166-1 and the specification do not (see the module header). */
const NOT_ISO_COUNTRIES: readonly string[] = ['AC', 'TA'];

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
    phoneCodes: [...country.phone],
    currencies: [...country.currency],
    languages: [...country.languages],
    timeZones: [...(getCountry(code)?.timezones ?? [])],
  };
  cache.set(code, facts);
  return facts;
}

/** The English name of continent `code` (AF, AN, AS, EU, NA, OC, SA) in `countries-list`, or '' for another code. */
export function continentName(code: string): string {
  return Object.hasOwn(continents, code) ? continents[code as keyof typeof continents] : '';
}

let listed: readonly string[] | undefined;

/** The 250 country codes of docs/specification.md, 2.5, sorted: those of `countries-list` without AC and TA. */
export function countryCodes(): readonly string[] {
  listed ??= Object.keys(countries)
    .filter((code) => !NOT_ISO_COUNTRIES.includes(code))
    .sort();
  return listed;
}

/**
 * The country object of a listed code, or undefined.
 *
 * @param code ISO 3166-1 alpha-2, any case.
 */
export function country(code: string): Country | undefined {
  const upper = code.toUpperCase();
  if (!countryCodes().includes(upper)) return undefined;
  const facts = countryFacts(upper);
  return facts && toCountry(facts);
}

/** Every listed country, sorted by code. */
export function allCountries(): Country[] {
  return countryCodes().map((code) => toCountry(countryFacts(code) as CountryFacts));
}

/** The members of a country that the language result lists (docs/specification.md, 2.4). */
export function countrySummary(facts: CountryFacts): CountrySummary {
  return { code: facts.code, name: facts.name, native: facts.native, capital: facts.capital, continent: facts.continent };
}

/** The country code list (docs/specification.md, 2.5): each listed code mapped to its English name, sorted by code. */
export function countryNames(): Record<string, string> {
  return Object.fromEntries(countryCodes().map((code) => [code, (countryFacts(code) as CountryFacts).name]));
}

function toCountry(facts: CountryFacts): Country {
  return {
    ...countrySummary(facts),
    phoneCodes: [...facts.phoneCodes],
    currencies: [...facts.currencies],
    languages: [...facts.languages],
    timeZones: [...facts.timeZones],
  };
}
