/** @module Bulk lookup (docs/specification.md, 4.3; paid only): `POST /api/bulk/json|xml` with `?lang=` and `?fields=`, one path for both formats through the lookup pipeline. */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.ts';
import { problemBody } from '../errors/render.ts';
import { type Utf8, utf8 } from '../format/utf8.ts';
import { toXmlElement, type XmlValue } from '../format/xml.ts';
import { lookupRecords } from '../lookup/backend.ts';
import type { Format } from '../lookup/entries.ts';
import { BULK_FIELDS } from '../lookup/fields.ts';
import type { LookupFailure } from '../lookup/pipeline.ts';
import { bulkBody } from '../lookup/render.ts';
import { BulkJsonSchema, BulkRequestSchema, BulkXmlSchema, MAX_BULK_IPS } from '../schemas/bulk.ts';
import { BulkQuerySchema } from '../schemas/lookup-options.ts';
import { problemResponses } from '../schemas/problem.ts';
import { admitLookups } from '../usage/middleware.ts';
import { readJsonBody } from './json-body.ts';
import { lookupAnswer, viewOfQuery } from './lookup-answer.ts';
import { lookupProblem } from './lookup-problems.ts';
import { RouteRequest } from './validate.ts';

const PROBLEMS = [
  'BODY_INVALID',
  'TOO_MANY_IPS',
  'LANGUAGE_UNSUPPORTED',
  'FIELDS_INVALID',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'DATA_UNAVAILABLE',
] as const;

function route(format: Format) {
  return createRoute({
    method: 'post',
    path: `/api/bulk/${format}`,
    tags: ['Bulk lookup'],
    summary: `Look up to ${MAX_BULK_IPS} addresses (${format.toUpperCase()})`,
    description:
      format === 'json'
        ? 'The IP info records of up to 50 addresses, keyed by the address strings as sent. An address that cannot be looked up is answered with its problem object in place of its record; the request still succeeds. `lang` and `fields` apply to every record; `regionCode` is left out unless `fields` names it.'
        : 'The IP info records of up to 50 addresses as XML: `response` > `results` > one `item` per address, with an `ip` attribute holding the address as sent. An address that cannot be looked up has a `problem` child instead of the record fields. `lang` and `fields` apply to every record; `regionCode` is left out unless `fields` names it.',
    ...BULK_DOCUMENTED,
    responses: {
      200:
        format === 'json'
          ? { description: 'One record or problem per distinct address.', content: { 'application/json': { schema: BulkJsonSchema } } }
          : { description: 'One `item` per distinct address.', content: { 'application/xml': { schema: BulkXmlSchema } } },
      ...problemResponses(PROBLEMS, format),
    },
  });
}

/** The request: validated in the handler, documented by the parameters and body made of it. */
const BULK = new RouteRequest({ query: BulkQuerySchema, json: BulkRequestSchema });
const BULK_DOCUMENTED = BULK.documented('post', '/');

/**
 * The addresses as sent, each once, in the order first sent (the answer's keys). A linear scan, not a
 * `Set`: there are at most {@link MAX_BULK_IPS}, and in workerd a `Set` hashes each freshly parsed
 * string it is given where a scan only compares them (docs/hot-path.md, "Bulk's distinct by a linear scan").
 */
function distinct(ips: readonly string[]): string[] {
  const keys: string[] = [];
  for (const ip of ips) if (!keys.includes(ip)) keys.push(ip);
  return keys;
}

/** Registers `POST /api/bulk/json` and `POST /api/bulk/xml`. */
export function registerBulkRoutes(app: OpenAPIHono<AppEnv>): void {
  // The documented body refers to the schema by name: its component.
  app.openAPIRegistry.register('BulkRequest', BulkRequestSchema);
  for (const format of ['json', 'xml'] as const) {
    app.openapi(route(format), async (c) => {
      const body = await readJsonBody(c);
      const { query, json } = BULK.validate(c, body);
      const view = viewOfQuery(query, BULK_FIELDS);
      const keys = distinct(json.ips);
      // Refused here, before any lookup, when the account's quota has no room for them.
      admitLookups(c, keys.length);
      const outcomes = await lookupRecords({ env: c.env, ctx: c.executionCtx, place: c.req.raw }, keys, [format], view);
      const failed = (failure: LookupFailure): Utf8 => {
        const problem = problemBody(lookupProblem(failure));
        return utf8(format === 'json' ? JSON.stringify(problem) : toXmlElement('problem', problem as Record<string, XmlValue>, { xmlns: 'urn:ietf:rfc:7807' }));
      };
      return lookupAnswer(c, format, bulkBody(format, keys, outcomes, view, failed));
    });
  }
}
