/**
 * @module International dialling codes and the countries that use them, inverted from the
 * `phone` lists of `countries-list` (250 listed countries). Codes are those the package records,
 * so a NANP member has its full prefix (Jamaica `1876`), while the United States, Canada and the
 * US Minor Outlying Islands share `1`.
 */
import { type CountryFacts, type CountrySummary, countryCodes, countryFacts, countrySummary } from './countries.ts';

/** The answer for one dialling code. */
export interface PhoneCodeResult {
  /** The dialling code without "+". */
  phoneCode: number;
  /** Number of entries in `countries`. */
  total_countries: number;
  /** The countries that use the code, sorted by country code. */
  countries: CountrySummary[];
}

let index: Map<number, CountryFacts[]> | undefined;

function phoneIndex(): Map<number, CountryFacts[]> {
  if (index) return index;
  const built = new Map<number, CountryFacts[]>();
  for (const code of countryCodes()) {
    const facts = countryFacts(code) as CountryFacts;
    for (const phone of facts.phoneCodes) built.set(phone, [...(built.get(phone) ?? []), facts]);
  }
  index = new Map([...built].sort(([a], [b]) => a - b));
  return index;
}

/**
 * Every dialling code mapped to the codes of the countries that use it, in ascending numeric order.
 *
 * @example phoneCodeIndex()['44'] // ['GB', 'GG', 'IM', 'JE']
 */
export function phoneCodeIndex(): Record<string, string[]> {
  return Object.fromEntries([...phoneIndex()].map(([phone, list]) => [String(phone), list.map((facts) => facts.code)]));
}

/**
 * The countries that use a dialling code.
 *
 * @param text digits, optionally after "+" or "00" (`44`, `+44`, `0044`).
 * @returns undefined when no listed country uses the code (or the text is not a code).
 */
export function phoneCodeResult(text: string): PhoneCodeResult | undefined {
  const digits = /^(?:\+|00)?([1-9][0-9]{0,3})$/.exec(text.trim())?.[1];
  if (digits === undefined) return undefined;
  const phoneCode = Number(digits);
  const list = phoneIndex().get(phoneCode);
  if (!list) return undefined;
  return { phoneCode, total_countries: list.length, countries: list.map(countrySummary) };
}
