/**
 * @module The fields of the IP info record as the documents name them, for the tests' expectations:
 * the specification's twenty (docs/specification.md, 2.1), then the eleven answered only when asked
 * for, in the order `fields=all` answers them (docs/api.md, "Every field").
 */

/** The specification's twenty fields, in its order: the record without `fields`. */
export const SPEC_FIELDS = [
  'ipVersion',
  'ipAddress',
  'latitude',
  'longitude',
  'countryName',
  'countryCode',
  'capital',
  'phoneCodes',
  'timeZones',
  'zipCode',
  'cityName',
  'regionName',
  'regionCode',
  'continent',
  'continentCode',
  'currencies',
  'languages',
  'asn',
  'asnOrganization',
  'isProxy',
];

/** The fields after the twenty, in the order of `fields=all`. */
export const EXTRA_FIELDS = [
  'isVpn',
  'isTor',
  'isRelay',
  'isHosting',
  'hostingProvider',
  'accuracyRadius',
  'network',
  'isEu',
  'utcOffset',
  'isDst',
  'localTime',
];
