/**
 * @module Reference data as zod schemas (docs/specification.md, 2.4, 2.5 and 4.6): the country code
 * list, countries, languages, dialling codes and time zones, with the path parameters that select them.
 */
import { z } from '@hono/zod-openapi';

const countryCode = z.string().openapi({ description: 'ISO 3166-1 alpha-2 country code.', example: 'DE' });

/** The country code list (docs/specification.md, 2.5). */
export const CountryCodeListSchema = z.record(z.string().regex(/^[A-Z]{2}$/), z.string()).openapi('CountryCodeList', {
  description:
    'Each of the 250 two-letter country codes of the specification (ISO 3166-1 alpha-2, with XK for Kosovo) mapped to its English name from `countries-list`, sorted by code. Never empty.',
  example: { AD: 'Andorra', AE: 'United Arab Emirates', AF: 'Afghanistan' },
});

/** The country members of the specification's language result (docs/specification.md, 2.4). */
const summaryFields = {
  code: countryCode,
  name: z.string().openapi({ description: 'English name. Never empty.', example: 'Germany' }),
  native: z.string().openapi({ description: "Name in the country's own language. Never empty.", example: 'Deutschland' }),
  capital: z.string().openapi({ description: 'Capital in English; empty for AQ, BV, HM, MO and UM in the current data.', example: 'Berlin' }),
  continent: z.string().openapi({ description: 'Two-letter continent code: AF, AN, AS, EU, NA, OC or SA.', example: 'EU' }),
};

/** A country in a language, dialling-code or time-zone result. */
const CountrySummarySchema = z.object(summaryFields).openapi('CountrySummary', {
  description: 'A country as the language result lists it. Data: `countries-list`.',
});

/** A country object (docs/api.md, "Countries"). */
export const CountrySchema = z
  .object({
    ...summaryFields,
    phoneCodes: z.array(z.number().int()).openapi({
      description: 'International dialling codes without "+", as `countries-list` records them (NANP members have their full prefix, e.g. 1876); may be empty.',
      example: [49],
    }),
    currencies: z.array(z.string()).openapi({ description: 'ISO 4217 currency codes; may be empty (AQ).', example: ['EUR'] }),
    languages: z.array(z.string()).openapi({ description: 'ISO 639-1 language codes; may be empty (AQ).', example: ['de'] }),
    timeZones: z
      .array(z.string())
      .openapi({ description: 'IANA time zones, from `countries-and-timezones`; empty for BV, HM and XK.', example: ['Europe/Berlin', 'Europe/Zurich'] }),
  })
  .openapi('Country', {
    description:
      'A country: the members of the language result, then dialling codes, currencies, languages and time zones. Data: `countries-list` and `countries-and-timezones`.',
  });

/** `GET /api/countries`. */
export const CountryListSchema = z
  .object({
    total_countries: z.number().int().openapi({ description: 'Number of entries in `countries` (250).', example: 250 }),
    countries: z.array(CountrySchema).openapi({ description: 'Every country of the country code list, sorted by code.' }),
  })
  .openapi('CountryList');

/** The language result (docs/specification.md, 2.4). */
export const LanguageResultSchema = z
  .object({
    code: z.string().openapi({ description: 'The ISO 639-1 code asked for, in lower case.', example: 'de' }),
    total_countries: z.number().int().openapi({ description: 'Number of entries in `countries`; 0 for a known language that no country lists.', example: 6 }),
    countries: z.array(CountrySummarySchema).openapi({ description: 'The countries that list the language, sorted by code; may be empty.' }),
  })
  .openapi('LanguageResult', { description: 'The countries that use a language. Data: `countries-list`.' });

/** `GET /api/phonecodes`. */
export const PhoneCodeIndexSchema = z.record(z.string().regex(/^[1-9][0-9]*$/), z.array(countryCode)).openapi('PhoneCodeIndex', {
  description:
    'Every international dialling code (without "+", as a decimal string key, in ascending order) mapped to the codes of the countries that use it, sorted.',
  example: { '1': ['CA', 'UM', 'US'], '7': ['KZ', 'RU'], '44': ['GB', 'GG', 'IM', 'JE'] },
});

/** `GET /api/phonecodes/{dialCode}`. */
export const PhoneCodeResultSchema = z
  .object({
    phoneCode: z.number().int().openapi({ description: 'The dialling code, without "+".', example: 44 }),
    total_countries: z.number().int().openapi({ description: 'Number of entries in `countries`; at least 1.', example: 4 }),
    countries: z.array(CountrySummarySchema).openapi({ description: 'The countries that use the code, sorted by code.' }),
  })
  .openapi('PhoneCodeResult');

/** `GET /api/timezones`. */
export const TimeZoneIndexSchema = z.record(z.string(), z.array(countryCode)).openapi('TimeZoneIndex', {
  description: 'Every IANA time zone that a country uses (canonical names only, sorted) mapped to the codes of those countries, sorted.',
  example: { 'Europe/Berlin': ['DE', 'DK', 'NO', 'SE', 'SJ'], 'Europe/Paris': ['FR', 'MC'] },
});

/** `GET /api/timezones/{zone}` (and its two- and three-part forms). */
export const TimeZoneResultSchema = z
  .object({
    zone: z.string().openapi({
      description: 'The canonical IANA name of the zone asked for (a link such as `Asia/Calcutta` is answered as `Asia/Kolkata`).',
      example: 'Europe/Paris',
    }),
    total_countries: z.number().int().openapi({ description: 'Number of entries in `countries`; at least 1.', example: 2 }),
    countries: z.array(CountrySummarySchema).openapi({ description: 'The countries that list the zone, sorted by code.' }),
  })
  .openapi('TimeZoneResult');

/** Path parameter of `GET /api/countries/{code}`. */
export const CountryParamSchema = z.object({
  code: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .openapi({ param: { name: 'code', in: 'path' }, description: 'ISO 3166-1 alpha-2 country code, any case.', example: 'de' }),
});

/** Path parameter of `GET /api/languages/{code}`. */
export const LanguageParamSchema = z.object({
  code: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .openapi({ param: { name: 'code', in: 'path' }, description: 'ISO 639-1 language code, any case.', example: 'de' }),
});

/** Path parameter of `GET /api/phonecodes/{dialCode}`. */
export const PhoneCodeParamSchema = z.object({
  dialCode: z
    .string()
    .regex(/^(\+|00)?[1-9][0-9]{0,3}$/)
    .openapi({
      param: { name: 'dialCode', in: 'path' },
      description: 'International dialling code: one to four digits, optionally after "+" (send it as %2B) or "00".',
      example: '44',
    }),
});

/** A part of a time zone name in a path: one segment. */
const zonePart = (name: string, description: string, example: string) =>
  z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name, in: 'path' }, description, example });

/**
 * Path parameters of the time-zone routes. A path parameter holds no `/` (OpenAPI path templating), so
 * a zone name is one, two or three of them: `Japan` (or any name with its slashes sent as %2F),
 * `Europe/Paris`, `America/Argentina/Buenos_Aires`; IANA names have at most three parts.
 */
export const TimeZoneParamSchemas = {
  zone: z.object({
    zone: zonePart(
      'zone',
      'A time zone name of one part (`Japan`, a link to `Asia/Tokyo`), or any IANA name with its slashes encoded as %2F (`Europe%2FParis`); any case.',
      'Japan',
    ),
  }),
  areaLocation: z.object({
    area: zonePart('area', 'The first part of a two-part IANA name (`Europe` of `Europe/Paris`); any case.', 'Europe'),
    location: zonePart('location', 'The second part (`Paris`); any case.', 'Paris'),
  }),
  areaRegionLocation: z.object({
    area: zonePart('area', 'The first part of a three-part IANA name (`America` of `America/Argentina/Buenos_Aires`); any case.', 'America'),
    region: zonePart('region', 'The second part (`Argentina`); any case.', 'Argentina'),
    location: zonePart('location', 'The third part (`Buenos_Aires`); any case.', 'Buenos_Aires'),
  }),
};
