/** @module Record assembly: database facts joined with country facts from countries-list. */
import { getCountry } from 'countries-and-timezones';
import { continents, countries } from 'countries-list';
import { describe, expect, it } from 'vitest';
import type { GeoFacts } from '../../src/geo/database.ts';
import { infoFacts, ipInfo } from '../../src/lookup/ip-info.ts';

const facts = (overrides: Partial<GeoFacts>): GeoFacts => ({
  countryCode: '',
  regionName: '',
  regionCode: '',
  cityName: '',
  postalCode: '',
  latitude: 0,
  longitude: 0,
  timeZone: '',
  asn: 0,
  asnOrganization: '',
  isProxy: false,
  ...overrides,
});

describe('record assembly', () => {
  it('fills country facts from countries-list and the zones from countries-and-timezones', () => {
    const record = infoFacts(facts({ countryCode: 'CH', timeZone: 'Europe/Zurich', asn: 559, asnOrganization: 'SWITCH' }));
    expect(record).toMatchObject({
      countryName: countries.CH.name,
      capital: countries.CH.capital,
      phoneCodes: countries.CH.phone,
      currencies: countries.CH.currency,
      languages: countries.CH.languages,
      continentCode: countries.CH.continent,
      continent: continents.EU,
      asn: '559',
      asnOrganization: 'SWITCH',
    });
    expect(record.timeZones).toEqual(getCountry('CH')?.timezones);
  });

  it("puts the address's own zone first, then the country's others once each", () => {
    const record = infoFacts(facts({ countryCode: 'US', timeZone: 'America/Denver' }));
    const zones = getCountry('US')?.timezones ?? [];
    expect(record.timeZones[0]).toBe('America/Denver');
    expect(new Set(record.timeZones)).toEqual(new Set(zones));
    expect(record.timeZones).toHaveLength(zones.length);
  });

  it("keeps a zone that the country's list lacks", () => {
    expect(infoFacts(facts({ countryCode: 'GB', timeZone: 'Europe/Dublin' })).timeZones).toEqual(['Europe/Dublin', ...(getCountry('GB')?.timezones ?? [])]);
  });

  it('answers empty values, never missing keys, when nothing is known', () => {
    const record = ipInfo(6, '2001:4860::1', infoFacts(facts({})));
    expect(record).toEqual({
      ipVersion: 6,
      ipAddress: '2001:4860::1',
      latitude: 0,
      longitude: 0,
      countryName: '',
      countryCode: '',
      capital: '',
      phoneCodes: [],
      timeZones: [],
      zipCode: '',
      cityName: '',
      regionName: '',
      regionCode: '',
      continent: '',
      continentCode: '',
      currencies: [],
      languages: [],
      asn: '',
      asnOrganization: '',
      isProxy: false,
    });
  });

  it('carries the proxy flag and the ASN as a decimal string', () => {
    expect(infoFacts(facts({ asn: 4_200_000_000, isProxy: true }))).toMatchObject({ asn: '4200000000', isProxy: true });
  });
});
