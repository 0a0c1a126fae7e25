/** @module Distance (docs/specification.md, 4.4; paid only): `POST /api/distance` with `?lang=`, both addresses through the lookup pipeline, the geodesic on WGS84 (`geo/distance.ts`). */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.ts';
import { distanceBetween } from '../geo/distance.ts';
import { lookupPositions } from '../lookup/backend.ts';
import { DEFAULT_FIELDS } from '../lookup/fields.ts';
import type { GeoPosition, LookupFailure } from '../lookup/pipeline.ts';
import { DistanceRequestSchema, DistanceResultSchema } from '../schemas/distance.ts';
import { DistanceQuerySchema } from '../schemas/lookup-options.ts';
import { problemResponses } from '../schemas/problem.ts';
import { readJsonBody } from './json-body.ts';
import { viewOfQuery } from './lookup-answer.ts';
import { problemOf } from './lookup-problems.ts';
import { RouteRequest } from './validate.ts';

/** The request: validated in the handler, documented by the parameters and body made of it. */
const DISTANCE = new RouteRequest({ query: DistanceQuerySchema, json: DistanceRequestSchema });

const distanceRoute = createRoute({
  method: 'post',
  path: '/api/distance',
  tags: ['Distance'],
  summary: 'Distance between two addresses',
  description:
    'Looks both addresses up and measures the geodesic between their positions on the WGS84 ellipsoid (GeographicLib, accurate to nanometres), in kilometres and statute miles rounded to 0.01. The positions are those of the geolocation data, often a city centre, so the figure is as good as they are. `city` and `country` are in `lang`. A problem about one address carries `side`: `from` or `to` (the `from` side is checked first).',
  ...DISTANCE.documented('post', '/'),
  responses: {
    200: { description: 'The two positions and the distance between them.', content: { 'application/json': { schema: DistanceResultSchema } } },
    ...problemResponses([
      'IP_ADDRESS_INVALID',
      'IP_ADDRESS_RESERVED',
      'BODY_INVALID',
      'LANGUAGE_UNSUPPORTED',
      'IP_ADDRESS_NOT_FOUND',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'DATA_UNAVAILABLE',
    ]),
  },
});

/** Registers `POST /api/distance`. */
export function registerDistanceRoute(app: OpenAPIHono<AppEnv>): void {
  // The documented body refers to the schema by name: its component.
  app.openAPIRegistry.register('DistanceRequest', DistanceRequestSchema);
  app.openapi(distanceRoute, async (c) => {
    const body = await readJsonBody(c);
    const { query, json } = DISTANCE.validate(c, body);
    const { language } = viewOfQuery(query, DEFAULT_FIELDS);
    const { from, to } = json;
    const [a, b] = (await lookupPositions({ env: c.env, ctx: c.executionCtx, place: c.req.raw }, [from, to], language)) as [
      GeoPosition | LookupFailure,
      GeoPosition | LookupFailure,
    ];
    const position = (outcome: GeoPosition | LookupFailure, side: 'from' | 'to'): GeoPosition => {
      if ('kind' in outcome) throw problemOf(outcome, side);
      return outcome;
    };
    const ends = { from: position(a, 'from'), to: position(b, 'to') };
    return c.json({ ...ends, distance: distanceBetween(ends.from, ends.to) }, 200);
  });
}
