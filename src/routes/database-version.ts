/**
 * @module `X-Database-Version` on every answer of versioned data (single JSON and XML, bulk JSON and
 * XML, distance, and on the paid servers networks by ASN): the version of the data that answered
 * (`geo/identity.ts`), the same string as the status endpoint's `database.version`. One middleware sets
 * it for all of them, after the route has answered: the lookups' version is this isolate's, and a route
 * that reads a version's data itself (the ASN answers) hands over the one it read in the context
 * variable `databaseVersion`.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Plan } from '../env.ts';
import { setOnAnswer } from '../http/answer-headers.ts';
import { lookupKindOf } from '../http/paths.ts';
import { answeringVersion } from '../lookup/backend.ts';

declare module '../env.ts' {
  interface AppVariables {
    /** The version whose data answered, set by a route that read it itself (`routes/asn.ts`) once it has. */
    databaseVersion?: string;
  }
}

/** The header's name. */
export const DATABASE_VERSION_HEADER = 'X-Database-Version';

/** The ASN paths of the paid servers, whose route hands over the version of the ASN object that answered (`routes/asn.ts`). */
const ASN_PATHS = /^\/api\/asn\//;

/** True when the answers of `path` on `plan` carry {@link DATABASE_VERSION_HEADER} (the ASN answers once the data was read). */
export function carriesDatabaseVersion(plan: Plan, path: string): boolean {
  return lookupKindOf(plan, path) !== null || (plan === 'paid' && ASN_PATHS.test(path));
}

/** OpenAPI header object of {@link DATABASE_VERSION_HEADER}. */
export const DATABASE_VERSION_HEADER_OBJECT = {
  description:
    "The version of the data that answered: `YYYY-MM-DD.hhhhhhhh`, the date of the newest location source's build and eight hex digits of the database file's SHA-256 (of a sharded database, of its shards' SHA-256s); the same as `database.version` of the status endpoint. Absent on a 503 `DATA_UNAVAILABLE`, which no data answered.",
  schema: { type: 'string' as const, example: '2026-09-18.3f2a9c1d' },
};

/**
 * Hono middleware that puts {@link DATABASE_VERSION_HEADER} on the answers of the paths that carry it on
 * `plan` ({@link carriesDatabaseVersion}), problems included, except a 503 `DATA_UNAVAILABLE`: the
 * version the route handed over (`databaseVersion`), else, on a lookup path, the version this isolate's
 * lookups answer from, whenever a database is loaded.
 */
export function databaseVersionHeader(plan: Plan): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { path } = c.req;
    const lookup = lookupKindOf(plan, path) !== null;
    if (!lookup && !(plan === 'paid' && ASN_PATHS.test(path))) return next();
    await next();
    // A 503 answers from no data: where a shard fails, the version is known but did not answer.
    if (c.res.status === 503) return;
    const version = c.get('databaseVersion') ?? (lookup ? answeringVersion(c.env) : undefined);
    if (version !== undefined) setOnAnswer(c, { [DATABASE_VERSION_HEADER]: version });
  };
}
