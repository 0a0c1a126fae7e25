/**
 * @module The language result (docs/specification.md, 2.4): the countries that list a language, from `countries-list`.
 * A code is known when `countries-list` names it (its 185 ISO 639-1 codes); a known language that no
 * country lists (Esperanto, `eo`) has an empty result rather than none.
 */
import { languages } from 'countries-list';
import { type CountryFacts, type CountrySummary, countryCodes, countryFacts, countrySummary } from './countries.ts';

/** The language result (docs/specification.md, 2.4). */
export interface LanguageResult {
  /** The ISO 639-1 code, lower case. */
  code: string;
  /** Number of entries in `countries`. */
  total_countries: number;
  /** The countries that list the language, sorted by code. */
  countries: CountrySummary[];
}

/**
 * The countries that use language `code`.
 *
 * @param code an ISO 639-1 code, any case (`en`, `DE`).
 * @returns undefined when `countries-list` does not know the code.
 */
export function languageResult(code: string): LanguageResult | undefined {
  const lower = code.toLowerCase();
  if (!Object.hasOwn(languages, lower)) return undefined;
  const using = countryCodes()
    .map((country) => countryFacts(country) as CountryFacts)
    .filter((facts) => facts.languages.includes(lower))
    .map(countrySummary);
  return { code: lower, total_countries: using.length, countries: using };
}
