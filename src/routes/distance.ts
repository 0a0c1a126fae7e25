/**
 * @module Distance (spec 4.4, paid only): `POST /api/distance` with `{"from": ip, "to": ip}`. Both
 * addresses are looked up in the in-memory database, then the geodesic between their positions is
 * measured on WGS84 (`geo/distance.ts`).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import type { GeoDatabase } from '../geo/database.ts';
import { distanceBetween } from '../geo/distance.ts';
import { loadDatabase } from '../geo/load.ts';
import type { IpInfo } from '../lookup/ip-info.ts';
import { lookupAddress } from '../lookup/lookup.ts';
import { DistanceRequestSchema, DistanceResultSchema } from '../schemas/distance.ts';
import { problemResponses } from '../schemas/problem.ts';
import { readJsonBody } from './json-body.ts';

type Side = 'from' | 'to';

/**
 * The record of one side, with a position.
 *
 * @throws ProblemError the lookup's problem (`IP_ADDRESS_INVALID`, `IP_ADDRESS_RESERVED`,
 *   `IP_ADDRESS_NOT_FOUND`), its detail prefixed and its `side` member set; `IP_ADDRESS_NOT_FOUND`
 *   too when the data knows the address but not where it is (latitude and longitude both 0, the
 *   record's "unknown").
 */
function locate(database: GeoDatabase, side: Side, text: string): IpInfo {
  let info: IpInfo;
  try {
    info = lookupAddress(database, text);
  } catch (error) {
    if (!(error instanceof ProblemError) || error.code === 'DATA_UNAVAILABLE') throw error;
    throw new ProblemError(error.code, `${side}: ${error.detail}`, {
      ...(error.options.headers === undefined ? {} : { headers: error.options.headers }),
      extensions: { ...error.options.extensions, side },
    });
  }
  if (info.latitude === 0 && info.longitude === 0) {
    throw new ProblemError('IP_ADDRESS_NOT_FOUND', `${side}: the data has no position for ${info.ipAddress}.`, { extensions: { side } });
  }
  return info;
}

function end(info: IpInfo) {
  return { ip: info.ipAddress, latitude: info.latitude, longitude: info.longitude, city: info.cityName, country: info.countryName };
}

const distanceRoute = createRoute({
  method: 'post',
  path: '/api/distance',
  tags: ['Distance'],
  summary: 'Distance between two addresses',
  description:
    'Looks both addresses up and measures the geodesic between their positions on the WGS84 ellipsoid (GeographicLib, accurate to nanometres), in kilometres and statute miles rounded to 0.01. The positions are those of the geolocation data, often a city centre, so the figure is as good as they are. A problem about one address carries `side`: `from` or `to` (the `from` side is checked first).',
  request: { body: { required: true, content: { 'application/json': { schema: DistanceRequestSchema } } } },
  responses: {
    200: { description: 'The two positions and the distance between them.', content: { 'application/json': { schema: DistanceResultSchema } } },
    ...problemResponses([
      'IP_ADDRESS_INVALID',
      'IP_ADDRESS_RESERVED',
      'BODY_INVALID',
      'IP_ADDRESS_NOT_FOUND',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'DATA_UNAVAILABLE',
    ]),
  },
});

/** Registers `POST /api/distance`. */
export function registerDistanceRoute(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerPath(distanceRoute);
  app.post('/api/distance', async (c) => {
    const { from, to } = await readJsonBody(c, DistanceRequestSchema);
    const database = await loadDatabase(c.env, c.executionCtx);
    const a = locate(database, 'from', from);
    const b = locate(database, 'to', to);
    return c.json({ from: end(a), to: end(b), distance: distanceBetween(a, b) }, 200);
  });
}
