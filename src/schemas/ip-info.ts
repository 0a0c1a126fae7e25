/**
 * @module The IP info record (docs/specification.md, 2.1, and the fields answered only when asked for,
 * docs/api.md) as zod schemas: the OpenAPI document's description of the single and bulk lookup answers, and the `{ip}` path parameter.
 */
import { z } from '@hono/zod-openapi';

/** Fields of the record with their types, units and emptiness; the bulk shape omits `regionCode`. */
export const IpInfoFields = {
  ipVersion: z.union([z.literal(4), z.literal(6)]).openapi({ description: 'IP version of the address.', example: 4 }),
  ipAddress: z.string().openapi({
    description: 'The address looked up, in canonical form (dotted quad; RFC 5952 for IPv6; IPv4-mapped IPv6 folded to IPv4).',
    example: '8.8.8.8',
  }),
  latitude: z.number().openapi({ description: 'WGS84 latitude in decimal degrees, four decimals; 0 when unknown.', example: 37.751 }),
  longitude: z.number().openapi({ description: 'WGS84 longitude in decimal degrees, four decimals; 0 when unknown.', example: -97.822 }),
  countryName: z.string().openapi({
    description: 'Country name, in `lang` (English by default; English where the data has no name in `lang`); empty when unknown.',
    example: 'United States',
  }),
  countryCode: z.string().openapi({ description: 'ISO 3166-1 alpha-2 country code; empty when unknown.', example: 'US' }),
  capital: z.string().openapi({ description: 'Capital of the country; may be empty.', example: 'Washington D.C.' }),
  phoneCodes: z.array(z.number().int()).openapi({ description: 'International dialling codes of the country, without "+"; may be empty.', example: [1] }),
  timeZones: z.array(z.string()).openapi({
    description: "IANA time zones: the address's own zone first, then the country's others; may be empty.",
    example: ['America/Chicago', 'America/New_York'],
  }),
  zipCode: z.string().openapi({ description: 'Postal code; often empty.', example: '' }),
  cityName: z.string().openapi({ description: 'City name, in `lang` (English by default and where the data has none in `lang`); often empty.', example: '' }),
  regionName: z
    .string()
    .openapi({ description: 'First-level subdivision name, in `lang` (English by default and where the data has none in `lang`); may be empty.', example: '' }),
  regionCode: z.string().openapi({
    description: 'ISO 3166-2 subdivision code without the country prefix ("CA", "ENG"); empty when unknown. In bulk records only when `fields` names it.',
    example: '',
  }),
  continent: z.string().openapi({
    description:
      "Continent name, in `lang` (English by default and where the data has none in `lang`): the location data's own continent for the address (GeoLite2's, from GeoNames: Russia is in Europe), else its country's; empty when unknown.",
    example: 'North America',
  }),
  continentCode: z
    .string()
    .openapi({ description: 'Two-letter continent code (AF, AN, AS, EU, NA, OC, SA) of `continent`; empty when unknown.', example: 'NA' }),
  currencies: z.array(z.string()).openapi({ description: 'ISO 4217 currency codes of the country; may be empty.', example: ['USD', 'USN'] }),
  languages: z.array(z.string()).openapi({ description: 'ISO 639-1 language codes of the country; may be empty.', example: ['en'] }),
  asn: z.string().openapi({ description: 'Autonomous system number as a decimal string; empty when unknown.', example: '15169' }),
  asnOrganization: z.string().openapi({ description: 'Organisation holding the ASN; empty when unknown.', example: 'Google LLC' }),
  isProxy: z.boolean().openapi({
    description:
      "True when the address is in a VPN, a Tor exit, a relay or a public or residential proxy that a flag source of the data build lists (`isVpn`, `isTor`, `isRelay`, or a proxy list); a hosting network alone does not set it. False everywhere when the build had no such source (the status endpoint's `database.flags` names what it can set).",
    example: false,
  }),
};

/** A flag field, false everywhere when the build had no source that sets `flag` (the status's `database.flags`). */
const flag = (flag: string, what: string) =>
  z.boolean().openapi({
    description: `True when a flag source of the data build lists the address's network as ${what}; false everywhere when the build had no source that sets \`${flag}\` (the status endpoint's \`database.flags\`).`,
    example: false,
  });

/** The fields answered only when `fields` names them (or is `all`), in the record's order after `isProxy` (docs/api.md). */
export const IpInfoExtraFields = {
  isVpn: flag('vpn', "a VPN provider's"),
  isTor: flag('tor', 'a Tor exit node'),
  isRelay: flag('relay', "a relay's egress (iCloud Private Relay and other relays)"),
  isHosting: flag('hosting', "a data centre's or cloud provider's"),
  hostingProvider: z.string().openapi({
    description:
      'The name of the data centre or cloud provider whose network holds the address, where a flag source names it (then `isHosting` is true); empty otherwise.',
    example: 'Amazon Web Services',
  }),
  accuracyRadius: z.number().int().min(0).openapi({
    description:
      "Kilometres around `latitude`, `longitude` within which the location data places the address (GeoLite2's `location.accuracy_radius`); 0 when the data gives none.",
    example: 1000,
  }),
  network: z.string().openapi({
    description:
      "The network the answer comes from, as CIDR: the largest network around the address whose addresses have the same record in the data (as MaxMind's `traits.network`). An IPv4 address (IPv4-mapped IPv6 included) is answered in IPv4.",
    example: '8.8.8.0/24',
  }),
  isEu: z.boolean().openapi({
    description:
      "True when `countryCode`'s country is a member of the European Union, as the location data says (GeoLite2's `is_in_european_union`); false when unknown.",
    example: false,
  }),
  utcOffset: z.string().openapi({
    description:
      "The offset from UTC of the first of `timeZones` at the time of the request, `±hh:mm`, from the runtime's time-zone data (ICU); empty when the record has no time zone.",
    example: '-05:00',
  }),
  isDst: z.boolean().openapi({
    description:
      'True when daylight saving (summer) time is in effect in the first of `timeZones` at the time of the request: its offset is above the smaller of its offsets on 1 January and 1 July; false when the record has no time zone.',
    example: false,
  }),
  localTime: z.string().openapi({
    description:
      'The local date and time in the first of `timeZones` at the time of the request, ISO 8601 to the second with `utcOffset`; empty when the record has no time zone.',
    example: '2026-11-26T09:32:05-05:00',
  }),
};

/** The single-lookup record without `fields`: the specification's twenty fields. */
const IpInfoSchema = z.strictObject(IpInfoFields).openapi('IpInfo', {
  description:
    "IP info record, as answered without `fields`: the specification's twenty fields, never absent; unknown values are empty strings, empty arrays or 0. XML: root `response`, one element per field, one repeated element per array item (none for an empty array), booleans `true`/`false`.",
  xml: { name: 'response' },
});

/** A record as answered with `fields=all`: the twenty, then every field answered only when asked for. */
export const IpInfoAllSchema = z.strictObject({ ...IpInfoFields, ...IpInfoExtraFields }).openapi('IpInfoAll', {
  description:
    'IP info record as answered with `fields=all` (single and bulk): the fields of IpInfo, then `isVpn` to `localTime`, in that order, never absent. XML as IpInfo.',
  xml: { name: 'response' },
});

/** A record as answered with `fields`: exactly the fields named, at least one. */
export const IpInfoSelectionSchema = z
  .strictObject({ ...IpInfoFields, ...IpInfoExtraFields })
  .partial()
  .openapi('IpInfoSelection', {
    description:
      "IP info record as answered with `fields`: exactly the fields named there (at least one, any of IpInfoAll's), in the record's order, each as in IpInfoAll; no other member. XML as IpInfo.",
    minProperties: 1,
    xml: { name: 'response' },
  });

/** The answer of a single lookup: {@link IpInfoSchema} without `fields`, {@link IpInfoAllSchema} with `fields=all`, {@link IpInfoSelectionSchema} with other `fields`. */
export const IpInfoAnswerSchema = z.union([IpInfoSchema, IpInfoAllSchema, IpInfoSelectionSchema]).openapi({
  description:
    'The record: the twenty fields (IpInfo) when the request has no `fields`, every field (IpInfoAll) with `fields=all`, exactly the fields named (IpInfoSelection) otherwise.',
});

/** The path parameter of the single lookup. */
export const IpParamSchema = z.object({
  ip: z.string().openapi({
    param: { name: 'ip', in: 'path' },
    description: 'IPv4 or IPv6 address in any valid textual form (upper case, zero-compressed, IPv4-mapped).',
    example: '8.8.8.8',
  }),
});
