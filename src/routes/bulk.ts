/**
 * @module Bulk lookup (spec 4.3, paid only): `POST /api/bulk/json` and `/api/bulk/xml` with
 * `{"ips": [...]}`. The database is loaded once, then every distinct address is looked up in one
 * synchronous pass over it: no I/O per address, and the per-record cache of `lookupAddress` serves
 * repeated networks.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { type ProblemBody, problemBody } from '../errors/render.ts';
import { attributes, toXml, type XmlValue } from '../format/xml.ts';
import type { GeoDatabase } from '../geo/database.ts';
import { loadDatabase } from '../geo/load.ts';
import type { IpInfo } from '../lookup/ip-info.ts';
import { lookupAddress, lookupBulkJsons } from '../lookup/lookup.ts';
import { BulkJsonSchema, BulkRequestSchema, BulkXmlSchema, MAX_BULK_IPS } from '../schemas/bulk.ts';
import { problemResponses } from '../schemas/problem.ts';
import { describeIssue, type Issue } from './hooks.ts';
import { readJsonBody } from './json-body.ts';

/** A bulk record: spec 2.1 without `regionCode`. */
export type BulkIpInfo = Omit<IpInfo, 'regionCode'>;

/** One answer per distinct address as sent, in request order. */
export type BulkResults = Map<string, BulkIpInfo | ProblemBody>;

/**
 * Looks every distinct address up, keeping failures as problem objects.
 *
 * @param ips the addresses as sent; a repeated string is answered once.
 * @throws ProblemError `DATA_UNAVAILABLE` when the database itself fails (that fails the whole request).
 */
export function lookupAll(database: GeoDatabase, ips: readonly string[]): BulkResults {
  const results: BulkResults = new Map();
  for (const ip of ips) {
    if (results.has(ip)) continue;
    try {
      const { regionCode: _regionCode, ...record } = lookupAddress(database, ip);
      results.set(ip, record);
    } catch (error) {
      if (!(error instanceof ProblemError) || error.code === 'DATA_UNAVAILABLE') throw error;
      results.set(ip, problemBody(error));
    }
  }
  return results;
}

/**
 * The JSON answer as text: an object keyed by the distinct addresses as sent, each value the record
 * without `regionCode` or the problem object. Assembled from the single lookup's cached JSON text
 * (see `lookup/answers.ts`), in its bulk form without `regionCode`, instead of serialising 50 record
 * objects.
 *
 * @throws ProblemError `DATA_UNAVAILABLE` when the database itself fails.
 */
export function bulkJson(database: GeoDatabase, ips: readonly string[]): string {
  const distinct = [...new Set(ips)];
  const values = lookupBulkJsons(database, distinct);
  // One array of pieces and one join: each piece is copied once, into the answer.
  const pieces: string[] = ['{'];
  for (let i = 0; i < distinct.length; i++) {
    const value = values[i] as string | ProblemError;
    pieces.push(i === 0 ? '' : ',', JSON.stringify(distinct[i]), ':', typeof value === 'string' ? value : JSON.stringify(problemBody(value)));
  }
  pieces.push('}');
  return pieces.join('');
}

/** The XML answer: `response` > `results` > one `item ip="…"` per address (see BulkXmlSchema). */
export function bulkXml(results: BulkResults): string {
  const items = [...results].map(
    ([ip, value]): XmlValue =>
      'code' in value
        ? { ...attributes({ ip }), problem: { ...attributes({ xmlns: 'urn:ietf:rfc:7807' }), ...(value as Record<string, XmlValue>) } }
        : { ...attributes({ ip }), ...value },
  );
  return toXml('response', { results: { item: items } });
}

const PROBLEMS = ['BODY_INVALID', 'TOO_MANY_IPS', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'DATA_UNAVAILABLE'] as const;

function route(format: 'json' | 'xml') {
  return createRoute({
    method: 'post',
    path: `/api/bulk/${format}`,
    tags: ['Bulk lookup'],
    summary: `Look up to ${MAX_BULK_IPS} addresses (${format.toUpperCase()})`,
    description:
      format === 'json'
        ? 'The IP info records of up to 50 addresses, keyed by the address strings as sent. An address that cannot be looked up is answered with its problem object in place of its record; the request still succeeds.'
        : 'The IP info records of up to 50 addresses as XML: `response` > `results` > one `item` per address, with an `ip` attribute holding the address as sent. An address that cannot be looked up has a `problem` child instead of the record fields.',
    request: { body: { required: true, content: { 'application/json': { schema: BulkRequestSchema } } } },
    responses: {
      200:
        format === 'json'
          ? { description: 'One record or problem per distinct address.', content: { 'application/json': { schema: BulkJsonSchema } } }
          : { description: 'One `item` per distinct address.', content: { 'application/xml': { schema: BulkXmlSchema } } },
      ...problemResponses(PROBLEMS, format),
    },
  });
}

/** More than 50 addresses is `TOO_MANY_IPS`, not the generic `BODY_INVALID` of the other issues. */
function invalidBulk(issues: readonly Issue[]): ProblemError {
  return issues.some((issue) => issue.code === 'too_big' && issue.path.length === 1 && issue.path[0] === 'ips')
    ? new ProblemError('TOO_MANY_IPS', `A bulk request holds at most ${MAX_BULK_IPS} addresses; split the list.`, { extensions: { limit: MAX_BULK_IPS } })
    : new ProblemError('BODY_INVALID', `${describeIssue(issues)}. Send {"ips": ["<address>", …]}.`);
}

/** The loaded database, and the addresses of the request. */
async function bulkRequest(c: Context<AppEnv>): Promise<[GeoDatabase, readonly string[]]> {
  const { ips } = await readJsonBody(c, BulkRequestSchema, invalidBulk);
  return [await loadDatabase(c.env, c.executionCtx), ips];
}

/**
 * Registers `POST /api/bulk/json` and `POST /api/bulk/xml`: documented from their routes, served by
 * handlers that read the body themselves (`readJsonBody`).
 */
export function registerBulkRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerPath(route('json'));
  app.post('/api/bulk/json', async (c) => {
    const [database, ips] = await bulkRequest(c);
    return c.body(bulkJson(database, ips), 200, { 'Content-Type': 'application/json' });
  });
  app.openAPIRegistry.registerPath(route('xml'));
  app.post('/api/bulk/xml', async (c) => {
    const [database, ips] = await bulkRequest(c);
    return c.body(bulkXml(lookupAll(database, ips)), 200, { 'Content-Type': 'application/xml; charset=utf-8' });
  });
}
