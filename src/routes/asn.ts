/**
 * @module Networks by ASN (paid only; docs/api.md, "Networks by ASN"): `GET /api/asn/{asn}` and
 * `/api/asn/json/{asn}` (JSON), `/api/asn/xml/{asn}` (XML), with `?page=`: validate (the schemas of
 * `schemas/asn.ts`, through the routes' one validation path), find the page in the current version's ASN
 * object (`asn/store.ts`), render. The version that answered is handed to the middleware that sets
 * `X-Database-Version` (`database-version.ts`).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { asnAnswer, asnXmlBody } from '../asn/answer.ts';
import { AsnStore } from '../asn/store.ts';
import type { AppEnv } from '../env.ts';
import { problemAnswer } from '../errors/render.ts';
import { toXml } from '../format/xml.ts';
import { ASN_LAYOUT } from '../geo/asn-layout.ts';
import { AsnRequestSchemas, AsnSchema } from '../schemas/asn.ts';
import { problemResponses } from '../schemas/problem.ts';
import { RouteRequest } from './validate.ts';

const ASN_PROBLEMS = ['ASN_INVALID', 'PAGE_INVALID', 'ASN_NOT_FOUND', 'DATA_UNAVAILABLE'] as const;

/** This isolate's view of the ASN object. */
const store = new AsnStore();

/** The request of the three routes: validated in their handler, documented by the parameters made of it. */
const REQUEST = new RouteRequest(AsnRequestSchemas);
const DOCUMENTED = REQUEST.documented('get', '/{asn}');

function route(format: 'json' | 'xml', path: string) {
  const mediaType = format === 'json' ? 'application/json' : 'application/xml';
  return createRoute({
    method: 'get',
    path,
    tags: ['Networks by ASN'],
    summary: `Networks of an AS number (${format.toUpperCase()})`,
    description: `The organisation, prefixes, addresses and countries of an autonomous system, from the routing source the data was built with (\`@ip-location-db/asn\` by default, whose publisher warns of known errors and has stopped its npm updates; MaxMind's GeoLite2 or GeoIP2 ASN with \`data:update\`). The prefixes come ${ASN_LAYOUT.pagePrefixes} a page, IPv4 first: ask for the others with \`page\`. Counted as one lookup.`,
    ...DOCUMENTED,
    responses: {
      200: { description: 'The ASN and one page of its prefixes.', content: { [mediaType]: { schema: AsnSchema } } },
      ...problemResponses(ASN_PROBLEMS, format),
    },
  });
}

async function answer(c: Context<AppEnv>, format: 'json' | 'xml'): Promise<Response> {
  const { param, query } = REQUEST.validate(c);
  const { asn } = param;
  const page = query.page ?? 1;
  const finding = await store.find(c.env, c.executionCtx, c.req.raw, asn, page - 1);
  c.set('databaseVersion', finding.version);
  switch (finding.kind) {
    case 'not-found':
      return problemAnswer({ code: 'ASN_NOT_FOUND', detail: `AS${asn} holds no address in the data.`, options: {} }, c);
    case 'no-page':
      return problemAnswer(
        {
          code: 'PAGE_INVALID',
          detail: `AS${asn} has ${finding.pages} page(s) of prefixes; there is no page ${page}.`,
          options: { extensions: { pages: finding.pages } },
        },
        c,
      );
    case 'found': {
      const body = asnAnswer(finding.page);
      if (format === 'json') return c.json(body, 200);
      return c.body(toXml('response', asnXmlBody(body)), 200, { 'Content-Type': 'application/xml; charset=utf-8' });
    }
    default:
      return finding satisfies never;
  }
}

/** Registers `GET /api/asn/{asn}`, `/api/asn/json/{asn}` and `/api/asn/xml/{asn}` on a paid app. */
export function registerAsnRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route('json', '/api/asn/{asn}'), (c) => answer(c, 'json'));
  app.openapi(route('json', '/api/asn/json/{asn}'), (c) => answer(c, 'json'));
  app.openapi(route('xml', '/api/asn/xml/{asn}'), (c) => answer(c, 'xml'));
}
