/**
 * @module Routes of both plans: the country code list (docs/specification.md, 2.5) (`GET /api/v1/countrycodes` on the
 * free server, `GET /api/countrycodes` on paid ones), then `/openapi.json` and `/docs`, which document
 * everything registered before them.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, Plan } from '../env.ts';
import { countryNames } from '../reference/countries.ts';
import { CountryCodeListSchema } from '../schemas/reference.ts';
import { registerDocs } from './docs.ts';

function countryCodesRoute(prefix: string) {
  return createRoute({
    method: 'get',
    path: `${prefix}/countrycodes`,
    tags: ['Reference'],
    summary: 'Country code list',
    description: 'The 250 two-letter country codes of the specification (section 2.5), each mapped to its English name.',
    responses: { 200: { description: 'Country code → English name.', content: { 'application/json': { schema: CountryCodeListSchema } } } },
  });
}

/** Registers the country code list, `/openapi.json` and `/docs` for `plan`; call it after every other route. */
export function registerPublicRoutes(app: OpenAPIHono<AppEnv>, plan: Plan): void {
  app.openapi(countryCodesRoute(plan === 'free' ? '/api/v1' : '/api'), (c) => c.json(countryNames(), 200));
  registerDocs(app, plan);
}
