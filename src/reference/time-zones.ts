/**
 * @module IANA time zones and the countries in them, inverted from the per-country zone lists of
 * `countries-and-timezones` (250 listed countries; BV, HM and XK have none). A retired or linked
 * zone name (`Asia/Calcutta`, `US/Eastern`, `Africa/Accra`) is answered as the zone it links to, since
 * the location data can carry such names.
 */
import { getAllTimezones } from 'countries-and-timezones';
import { type CountryFacts, type CountrySummary, countryCodes, countryFacts, countrySummary } from './countries.ts';

/** The answer for one time zone. */
export interface TimeZoneResult {
  /** The canonical zone name, e.g. `Europe/Paris`. */
  zone: string;
  /** Number of entries in `countries`. */
  total_countries: number;
  /** The countries that list the zone, sorted by country code. */
  countries: CountrySummary[];
}

let index: Map<string, CountryFacts[]> | undefined;
/** Every zone name and link, lower case, mapped to the indexed zone it stands for. */
let names: Map<string, string> | undefined;

function zoneIndex(): Map<string, CountryFacts[]> {
  if (index) return index;
  const built = new Map<string, CountryFacts[]>();
  for (const code of countryCodes()) {
    const facts = countryFacts(code) as CountryFacts;
    for (const zone of facts.timeZones) built.set(zone, [...(built.get(zone) ?? []), facts]);
  }
  index = new Map([...built].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  names = new Map();
  for (const [name, zone] of Object.entries(getAllTimezones({ deprecated: true }))) {
    const target = zone.aliasOf ?? name;
    if (index.has(target)) names.set(name.toLowerCase(), target);
  }
  for (const zone of index.keys()) names.set(zone.toLowerCase(), zone);
  return index;
}

/** Every zone that a listed country uses, sorted by name, mapped to those countries' codes. */
export function timeZoneIndex(): Record<string, string[]> {
  return Object.fromEntries([...zoneIndex()].map(([zone, list]) => [zone, list.map((facts) => facts.code)]));
}

/**
 * The countries in a time zone.
 *
 * @param name an IANA zone name, any case (`Europe/Paris`, `america/argentina/buenos_aires`), or a
 *   link to one (`Asia/Calcutta`).
 * @returns undefined when no listed country uses the zone.
 */
export function timeZoneResult(name: string): TimeZoneResult | undefined {
  const zones = zoneIndex();
  const zone = names?.get(name.toLowerCase());
  const list = zone === undefined ? undefined : zones.get(zone);
  if (zone === undefined || !list) return undefined;
  return { zone, total_countries: list.length, countries: list.map(countrySummary) };
}
