/**
 * @module The record the service should answer, made from a location source's record and a routing
 * source's as read by an independent reader (mmdb-lib, csv-parse), with country facts from
 * `countries-list` and `countries-and-timezones`. Shares no code with the service; runs in Node and
 * in workerd.
 */
import { getCountry } from 'countries-and-timezones';
import { continents, countries } from 'countries-list';
import type { CityResponse } from 'mmdb-lib';

/** The record the service should answer for a single lookup. */
export interface ExpectedRecord {
  ipVersion: 4 | 6;
  ipAddress: string;
  latitude: number;
  longitude: number;
  countryName: string;
  countryCode: string;
  capital: string;
  phoneCodes: number[];
  timeZones: string[];
  zipCode: string;
  cityName: string;
  regionName: string;
  regionCode: string;
  continent: string;
  continentCode: string;
  currencies: string[];
  languages: string[];
  asn: string;
  asnOrganization: string;
  isProxy: boolean;
}

/**
 * The record of `address` from its location source's record (`city`) and its routing source's
 * (`network`), with country facts from countries-list and countries-and-timezones; undefined when
 * neither source covers the address.
 */
export function expectedRecord(
  address: string,
  city: CityResponse | null,
  network: { asn: string; organization: string } | undefined,
): ExpectedRecord | undefined {
  if (city === null && network === undefined) return undefined;
  // Where the address is used, else where it is registered (GeoIP2's own fallback for countries).
  const code = city?.country?.iso_code ?? city?.registered_country?.iso_code ?? '';
  const subdivision = city?.subdivisions?.[0];
  const country = code && Object.hasOwn(countries, code) ? countries[code as keyof typeof countries] : undefined;
  const countryZones = (code && getCountry(code)?.timezones) || [];
  const zone = city?.location?.time_zone ?? '';
  const round4 = (degrees: number | undefined) => (degrees === undefined ? 0 : Math.round(degrees * 10_000) / 10_000);
  return {
    ipVersion: address.includes(':') ? 6 : 4,
    ipAddress: address,
    latitude: round4(city?.location?.latitude),
    longitude: round4(city?.location?.longitude),
    countryName: country?.name ?? '',
    countryCode: code,
    capital: country?.capital ?? '',
    phoneCodes: country ? [...country.phone] : [],
    timeZones: zone ? [zone, ...countryZones.filter((z) => z !== zone)] : [...countryZones],
    zipCode: city?.postal?.code ?? '',
    cityName: city?.city?.names?.en ?? '',
    regionName: subdivision?.names?.en ?? '',
    regionCode: subdivision?.iso_code ?? '',
    // The source's own continent (GeoNames': Russia in Europe), the country's in countries-list where it has none.
    continent: city?.continent?.code ? (city.continent.names?.en ?? '') : country ? continents[country.continent as keyof typeof continents] : '',
    continentCode: city?.continent?.code ?? country?.continent ?? '',
    currencies: country ? [...country.currency] : [],
    languages: country ? [...country.languages] : [],
    asn: network?.asn ?? '',
    asnOrganization: network?.organization ?? '',
    isProxy: false,
  };
}
