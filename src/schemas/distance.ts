/**
 * @module The distance contract (docs/specification.md, 2.3 and 4.4) as zod schemas: the validated request and the
 * answer.
 */
import { z } from '@hono/zod-openapi';
import { DISTANCE_DECIMALS } from '../geo/distance.ts';

const address = z.string().openapi({ description: 'An IPv4 or IPv6 address in any textual form.' });

/** The body of `POST /api/distance`. */
export const DistanceRequestSchema = z
  .strictObject({ from: address.openapi({ example: '81.2.69.142' }), to: address.openapi({ example: '2001:7fe::53' }) })
  .openapi('DistanceRequest', { description: 'A JSON object with `from` and `to` and no other member.' });

const DistanceEndSchema = z
  .object({
    ip: z.string().openapi({ description: 'The address, in canonical form (as `ipAddress` of its record).', example: '81.2.69.142' }),
    latitude: z.number().openapi({ description: 'WGS84 latitude in decimal degrees (four decimals), as in the record.', example: 51.4036 }),
    longitude: z.number().openapi({ description: 'WGS84 longitude in decimal degrees (four decimals), as in the record.', example: -0.7618 }),
    city: z.string().openapi({
      description: 'English city name (`cityName` of the record); often empty, the position being then that of a region or country.',
      example: 'Bracknell',
    }),
    country: z.string().openapi({
      description: 'English country name (`countryName` of the record); empty when the data has a position but no country.',
      example: 'United Kingdom',
    }),
  })
  .openapi('DistanceEnd');

/** The answer of `POST /api/distance`. */
export const DistanceResultSchema = z
  .object({
    from: DistanceEndSchema,
    to: DistanceEndSchema,
    distance: z
      .object({
        km: z.number().openapi({ description: `Kilometres, rounded to ${DISTANCE_DECIMALS} decimals (10 m).`, example: 1475.27 }),
        miles: z
          .number()
          .openapi({ description: `Statute miles (1 mi = 1.609344 km), rounded to ${DISTANCE_DECIMALS} decimals from the unrounded length.`, example: 916.69 }),
      })
      .openapi({ description: 'Length of the geodesic between the two positions on the WGS84 ellipsoid (GeographicLib), not a great-circle approximation.' }),
  })
  .openapi('DistanceResult', { description: 'The two located addresses and the distance between them.' });
