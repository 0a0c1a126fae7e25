/**
 * @module The IP info record of spec section 2.1: the database's facts about an address joined with
 * its country's facts, in the specification's field order.
 */
import type { GeoFacts } from '../geo/database.ts';
import { countryPart } from './answers.ts';

/**
 * The 20 fields of spec 2.1. Empty values are '' , [] or 0, never absent (DESIGN.md section 2).
 */
export interface IpInfo {
  /** 4 or 6. */
  ipVersion: 4 | 6;
  /** The address looked up, canonical (dotted quad, or RFC 5952 IPv6). */
  ipAddress: string;
  /** WGS84 decimal degrees, four decimals; 0 when unknown. */
  latitude: number;
  longitude: number;
  countryName: string;
  /** ISO 3166-1 alpha-2. */
  countryCode: string;
  capital: string;
  /** International dialling codes. */
  phoneCodes: number[];
  /** IANA zones: the address's own first, then the country's others. */
  timeZones: string[];
  zipCode: string;
  cityName: string;
  regionName: string;
  /** ISO 3166-2 subdivision code without the country prefix. */
  regionCode: string;
  /** Continent name (English). */
  continent: string;
  /** Two-letter continent code. */
  continentCode: string;
  /** ISO 4217 codes. */
  currencies: string[];
  /** ISO 639-1 codes. */
  languages: string[];
  /** Autonomous system number as a decimal string; '' when unknown. */
  asn: string;
  asnOrganization: string;
  isProxy: boolean;
}

/** The part of a record that depends on the data only, not on the address: cacheable per record. */
export type IpInfoFacts = Omit<IpInfo, 'ipVersion' | 'ipAddress'>;

/** Joins database facts with country facts (as the lookups do, through the shared parts of `answers.ts`). */
export function infoFacts(facts: GeoFacts): IpInfoFacts {
  const country = countryPart(facts.countryCode);
  return {
    latitude: facts.latitude,
    longitude: facts.longitude,
    countryName: country.name,
    countryCode: facts.countryCode,
    capital: country.capital,
    phoneCodes: [...country.phoneCodes],
    timeZones: [...country.zonesFor(facts.timeZone).timeZones],
    zipCode: facts.postalCode,
    cityName: facts.cityName,
    regionName: facts.regionName,
    regionCode: facts.regionCode,
    continent: country.continentName,
    continentCode: country.continent,
    currencies: [...country.currencies],
    languages: [...country.languages],
    asn: facts.asn ? String(facts.asn) : '',
    asnOrganization: facts.asnOrganization,
    isProxy: facts.isProxy,
  };
}

/** The full record, in the specification's field order. */
export function ipInfo(version: 4 | 6, address: string, facts: IpInfoFacts): IpInfo {
  return { ipVersion: version, ipAddress: address, ...facts };
}
