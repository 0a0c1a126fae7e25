/**
 * @module Single lookup routes (spec 4.1 and 4.2): `GET {prefix}/json/{ip}` and `{prefix}/xml/{ip}`,
 * each also without `{ip}` for the requester's own address. Thin: validate, look up, render.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { type AppEnv, clientIpOf } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { toXml } from '../format/xml.ts';
import { GeoDatabase } from '../geo/database.ts';
import { loadDatabase } from '../geo/load.ts';
import type { IpInfo } from '../lookup/ip-info.ts';
import { lookupJson, lookupXml } from '../lookup/lookup.ts';
import { IpInfoSchema, IpParamSchema } from '../schemas/ip-info.ts';
import { problemResponses } from '../schemas/problem.ts';

const LOOKUP_PROBLEMS = ['IP_ADDRESS_INVALID', 'IP_ADDRESS_RESERVED', 'IP_ADDRESS_NOT_FOUND', 'DATA_UNAVAILABLE'] as const;

/** Renders a record as the XML of spec 2.1. */
export function ipInfoXml(info: IpInfo): string {
  return toXml('response', { ...info });
}

function route<const WithIp extends boolean>(format: 'json' | 'xml', path: string, withIp: WithIp, tags: string[], deprecated: boolean) {
  const mediaType = format === 'json' ? 'application/json' : 'application/xml';
  return createRoute({
    method: 'get',
    path: withIp ? `${path}/{ip}` : path,
    tags,
    deprecated,
    summary: withIp ? `Look up an address (${format.toUpperCase()})` : `Look up the requester's own address (${format.toUpperCase()})`,
    description: withIp
      ? 'The IP info record of `ip`.'
      : "The IP info record of the requester's own address, taken from `CF-Connecting-IP` (never from `X-Forwarded-For`).",
    request: withIp ? { params: IpParamSchema } : {},
    responses: {
      200: { description: 'The IP info record.', content: { [mediaType]: { schema: IpInfoSchema } } },
      ...problemResponses(LOOKUP_PROBLEMS, format),
    },
  });
}

function answer(c: Context<AppEnv>, format: 'json' | 'xml', text: string): Response | Promise<Response> {
  const loaded = loadDatabase(c.env, c.executionCtx);
  // Once loaded, the database is there without a turn of the event loop, and the answer without a promise.
  return loaded instanceof GeoDatabase ? respond(c, format, loaded, text) : loaded.then((database) => respond(c, format, database, text));
}

function respond(c: Context<AppEnv>, format: 'json' | 'xml', database: GeoDatabase, text: string): Response {
  // The text is assembled from parts cached per record (lookup/answers.ts), not serialised per request.
  if (format === 'json') return c.body(lookupJson(database, text), 200, { 'Content-Type': 'application/json' });
  return c.body(lookupXml(database, text), 200, { 'Content-Type': 'application/xml; charset=utf-8' });
}

function ownAddress(c: Context<AppEnv>): string {
  const ip = clientIpOf(c.req);
  if (!ip) throw new ProblemError('IP_ADDRESS_INVALID', 'The request carries no client address (CF-Connecting-IP); name an address in the path.');
  return ip;
}

/**
 * Registers the lookup routes under `prefix` (`/api/v1` on the free server, `/api` on paid ones).
 *
 * @param deprecated marks the free server's legacy `/api/json|xml` paths in the OpenAPI document.
 */
export function registerLookupRoutes(app: OpenAPIHono<AppEnv>, prefix: string, tags: string[], deprecated = false): void {
  for (const format of ['json', 'xml'] as const) {
    const base = `${prefix}/${format}`;
    app.openapi(route(format, base, false, tags, deprecated), (c) => answer(c, format, ownAddress(c)));
    // `{ip}` is any string to the schema (IpParamSchema documents it); what makes it an address is the
    // lookup's own parsing, which answers IP_ADDRESS_INVALID. So the route is documented here and served
    // without the zod validator, which would cost each lookup request about 5% of its time for nothing.
    app.openAPIRegistry.registerPath(createRoute({ ...route(format, base, true, tags, deprecated), request: { params: IpParamSchema } }));
    app.get(`${base}/:ip`, (c) => answer(c, format, c.req.param('ip')));
  }
}
