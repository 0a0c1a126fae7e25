/**
 * @module Reference routes of the paid servers (docs/specification.md, 4.5 and 4.6): countries,
 * languages, dialling codes and time zones, answered from the bundled `countries-list` and
 * `countries-and-timezones` data. A malformed code is as unknown as a well-formed one that nothing
 * lists, so both are the route's 404.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { allCountries, country } from '../reference/countries.ts';
import { languageResult } from '../reference/languages.ts';
import { phoneCodeIndex, phoneCodeResult } from '../reference/phone-codes.ts';
import { timeZoneIndex, timeZoneResult } from '../reference/time-zones.ts';
import { problemResponses } from '../schemas/problem.ts';
import {
  CountryListSchema,
  CountryParamSchema,
  CountrySchema,
  LanguageParamSchema,
  LanguageResultSchema,
  PhoneCodeIndexSchema,
  PhoneCodeParamSchema,
  PhoneCodeResultSchema,
  TimeZoneIndexSchema,
  TimeZoneParamSchemas,
  TimeZoneResultSchema,
} from '../schemas/reference.ts';
import { failWith } from './hooks.ts';

const json = <S>(schema: S, description: string) => ({ description, content: { 'application/json': { schema } } });

const unknown = {
  country: (code: string) =>
    new ProblemError('COUNTRY_NOT_FOUND', `There is no country with code ${JSON.stringify(code)}; the codes are listed at /api/countrycodes.`),
  language: (code: string) => new ProblemError('LANGUAGE_NOT_FOUND', `There is no ISO 639-1 language with code ${JSON.stringify(code)}.`),
  phoneCode: (code: string) =>
    new ProblemError('NOT_FOUND', `No country uses the dialling code ${JSON.stringify(code)}; the codes are listed at /api/phonecodes.`),
  timeZone: (zone: string) => new ProblemError('NOT_FOUND', `No country uses the time zone ${JSON.stringify(zone)}; the zones are listed at /api/timezones.`),
};

const countriesRoute = createRoute({
  method: 'get',
  path: '/api/countries',
  tags: ['Reference'],
  summary: 'All countries',
  description: 'Every country of the country code list (250), sorted by code, with its dialling codes, currencies, languages and time zones.',
  responses: { 200: json(CountryListSchema, 'The countries.') },
});

const countryRoute = createRoute({
  method: 'get',
  path: '/api/countries/{code}',
  tags: ['Reference'],
  summary: 'One country',
  request: { params: CountryParamSchema },
  responses: { 200: json(CountrySchema, 'The country.'), ...problemResponses(['COUNTRY_NOT_FOUND']) },
});

const languageRoute = createRoute({
  method: 'get',
  path: '/api/languages/{code}',
  tags: ['Reference'],
  summary: 'Countries that use a language',
  description:
    'The countries that list an ISO 639-1 language, sorted by code. A code that `countries-list` knows but no country lists (e.g. `eo`) answers an empty list; any other code is `LANGUAGE_NOT_FOUND`.',
  request: { params: LanguageParamSchema },
  responses: { 200: json(LanguageResultSchema, 'The language result.'), ...problemResponses(['LANGUAGE_NOT_FOUND']) },
});

const phoneCodesRoute = createRoute({
  method: 'get',
  path: '/api/phonecodes',
  tags: ['Reference'],
  summary: 'All dialling codes',
  responses: { 200: json(PhoneCodeIndexSchema, 'Dialling code → country codes.') },
});

const phoneCodeRoute = createRoute({
  method: 'get',
  path: '/api/phonecodes/{dialCode}',
  tags: ['Reference'],
  summary: 'Countries that use a dialling code',
  request: { params: PhoneCodeParamSchema },
  responses: { 200: json(PhoneCodeResultSchema, 'The countries that use the code.'), ...problemResponses(['NOT_FOUND']) },
});

const timeZonesRoute = createRoute({
  method: 'get',
  path: '/api/timezones',
  tags: ['Reference'],
  summary: 'All time zones',
  responses: { 200: json(TimeZoneIndexSchema, 'Time zone → country codes.') },
});

/** The time-zone routes, one per number of parts in the zone's name (see {@link TimeZoneParamSchemas}). */
const timeZoneRoutes = (
  [
    ['/api/timezones/{zone}', TimeZoneParamSchemas.zone],
    ['/api/timezones/{area}/{location}', TimeZoneParamSchemas.areaLocation],
    ['/api/timezones/{area}/{region}/{location}', TimeZoneParamSchemas.areaRegionLocation],
  ] as const
).map(([path, params]) =>
  createRoute({
    method: 'get',
    path,
    tags: ['Reference'],
    summary: 'Countries in a time zone',
    description:
      'The countries that list an IANA time zone, sorted by code. The name may have one, two or three parts (`Japan`, `Europe/Paris`, `America/Argentina/Buenos_Aires`), each its own path segment, or come whole in one segment with its slashes encoded as %2F. A link name (`Asia/Calcutta`) is answered as the zone it links to.',
    request: { params },
    responses: { 200: json(TimeZoneResultSchema, 'The countries that list the zone.'), ...problemResponses(['NOT_FOUND']) },
  }),
);

/** Registers the countries, languages, phone codes and time zones routes. */
export function registerReferenceRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(countriesRoute, (c) => {
    const countries = allCountries();
    return c.json({ total_countries: countries.length, countries }, 200);
  });

  app.openapi(
    countryRoute,
    (c) => {
      const { code } = c.req.valid('param');
      const found = country(code);
      if (!found) throw unknown.country(code);
      return c.json(found, 200);
    },
    failWith((_, c) => unknown.country(c.req.param('code') ?? '')),
  );

  app.openapi(
    languageRoute,
    (c) => {
      const { code } = c.req.valid('param');
      const found = languageResult(code);
      if (!found) throw unknown.language(code);
      return c.json(found, 200);
    },
    failWith((_, c) => unknown.language(c.req.param('code') ?? '')),
  );

  app.openapi(phoneCodesRoute, (c) => c.json(phoneCodeIndex(), 200));

  app.openapi(
    phoneCodeRoute,
    (c) => {
      const { dialCode } = c.req.valid('param');
      const found = phoneCodeResult(dialCode);
      if (!found) throw unknown.phoneCode(dialCode);
      return c.json(found, 200);
    },
    failWith((_, c) => unknown.phoneCode(c.req.param('dialCode') ?? '')),
  );

  app.openapi(timeZonesRoute, (c) => c.json(timeZoneIndex(), 200));

  for (const route of timeZoneRoutes) {
    app.openapi(
      route,
      (c) => {
        const zone = Object.values(c.req.valid('param')).join('/');
        const found = timeZoneResult(zone);
        if (!found) throw unknown.timeZone(zone);
        return c.json(found, 200);
      },
      failWith((_, c) => unknown.timeZone(Object.values(c.req.param()).join('/'))),
    );
  }
}
