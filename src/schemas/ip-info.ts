/**
 * @module The IP info record (docs/specification.md, 2.1) as a zod schema: the OpenAPI document's description of the
 * single and bulk lookup answers.
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
    description: 'True when the address is in an anonymising network known to the data build; always false when the build had no such source.',
    example: false,
  }),
};

/** The single-lookup record without `fields`: every field. */
export const IpInfoSchema = z.strictObject(IpInfoFields).openapi('IpInfo', {
  description:
    'IP info record, as answered without `fields`: every field, never absent; unknown values are empty strings, empty arrays or 0. XML: root `response`, one element per field, one repeated element per array item (none for an empty array), booleans `true`/`false`.',
  xml: { name: 'response' },
});

/** A record as answered with `fields`: exactly the fields named, at least one. */
export const IpInfoSelectionSchema = z
  .strictObject(IpInfoFields)
  .partial()
  .openapi('IpInfoSelection', {
    description:
      "IP info record as answered with `fields`: exactly the fields named there (at least one, any of IpInfo's), in the record's order, each as in IpInfo; no other member. XML as IpInfo.",
    minProperties: 1,
    xml: { name: 'response' },
  });

/** The answer of a single lookup: {@link IpInfoSchema} without `fields`, {@link IpInfoSelectionSchema} with it. */
export const IpInfoAnswerSchema = z.union([IpInfoSchema, IpInfoSelectionSchema]).openapi({
  description: 'The record: every field (IpInfo) when the request has no `fields`, exactly the fields named (IpInfoSelection) when it has.',
});

/** The path parameter of the single lookup. */
export const IpParamSchema = z.object({
  ip: z.string().openapi({
    param: { name: 'ip', in: 'path' },
    description: 'IPv4 or IPv6 address in any valid textual form (upper case, zero-compressed, IPv4-mapped).',
    example: '8.8.8.8',
  }),
});
