/** @module Single lookup routes (docs/specification.md, 4.1 and 4.2): `GET {prefix}/json|xml[/{ip}]` with `?lang=` and `?fields=`; validate, look up, render. */
import { createRoute, type OpenAPIHono, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { type AppEnv, clientIpOf } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { problemAnswer } from '../errors/render.ts';
import { lookupRecords } from '../lookup/backend.ts';
import type { Format } from '../lookup/entries.ts';
import { DEFAULT_FIELDS, type View } from '../lookup/fields.ts';
import type { LookupFailure, Outcome } from '../lookup/pipeline.ts';
import { singleBody } from '../lookup/render.ts';
import { IpInfoAnswerSchema, IpParamSchema } from '../schemas/ip-info.ts';
import { LookupQuerySchema } from '../schemas/lookup-options.ts';
import { problemResponses } from '../schemas/problem.ts';
import { lookupAnswer, viewOfQuery } from './lookup-answer.ts';
import { lookupProblem } from './lookup-problems.ts';
import { RouteRequest } from './validate.ts';

const LOOKUP_PROBLEMS = [
  'IP_ADDRESS_INVALID',
  'IP_ADDRESS_RESERVED',
  'LANGUAGE_UNSUPPORTED',
  'FIELDS_INVALID',
  'IP_ADDRESS_NOT_FOUND',
  'DATA_UNAVAILABLE',
] as const;

function route(format: Format, path: string, withIp: boolean, tags: string[], deprecated: boolean) {
  const mediaType = format === 'json' ? 'application/json' : 'application/xml';
  return {
    method: 'get',
    path: withIp ? `${path}/{ip}` : path,
    tags,
    deprecated,
    summary: withIp ? `Look up an address (${format.toUpperCase()})` : `Look up the requester's own address (${format.toUpperCase()})`,
    description: withIp
      ? 'The IP info record of `ip`, with names in `lang` and only the `fields` asked for.'
      : "The IP info record of the requester's own address, taken from `CF-Connecting-IP` (never from `X-Forwarded-For`), with names in `lang` and only the `fields` asked for.",
    responses: {
      200: {
        description: 'The IP info record: every field without `fields` (IpInfo), exactly the fields named with it (IpInfoSelection).',
        content: { [mediaType]: { schema: IpInfoAnswerSchema } },
      },
      ...problemResponses(LOOKUP_PROBLEMS, format),
    },
  } as const;
}

type Query = z.output<typeof LookupQuerySchema>;

/** The formats a route asks a shard to render: its own. */
const FORMATS = { json: ['json'], xml: ['xml'] } as const;

function answer(c: Context<AppEnv>, format: Format, text: string, query: Query): Response | Promise<Response> {
  const view = viewOfQuery(query, DEFAULT_FIELDS);
  const outcomes = lookupRecords({ env: c.env, ctx: c.executionCtx, place: c.req.raw }, [text], FORMATS[format], view);
  // Once loaded, a database that does not shard answers without a turn of the event loop, and the answer without a promise.
  return Array.isArray(outcomes) ? respond(c, format, outcomes, view) : outcomes.then((answered) => respond(c, format, answered, view));
}

const INVALID: LookupFailure = { kind: 'invalid' };

function respond(c: Context<AppEnv>, format: Format, outcomes: readonly Outcome[], view: View): Response {
  const outcome = outcomes[0] ?? INVALID;
  // Answered, not raised: an Error would capture a stack trace for an everyday answer.
  if (outcome.kind !== 'found' && outcome.kind !== 'rendered') return problemAnswer(lookupProblem(outcome), c);
  return lookupAnswer(c, format, singleBody(outcome, format, view));
}

/** The request of each route: validated in its handler, documented by the parameters made of it. */
const OWN = new RouteRequest({ query: LookupQuerySchema });
const NAMED = new RouteRequest({ params: IpParamSchema, query: LookupQuerySchema });
const OWN_DOCUMENTED = OWN.documented('get', '/');
const NAMED_DOCUMENTED = NAMED.documented('get', '/{ip}');

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
    app.openapi(createRoute({ ...route(format, base, false, tags, deprecated), ...OWN_DOCUMENTED }), (c) =>
      answer(c, format, ownAddress(c), OWN.validate(c).query),
    );
    app.openapi(createRoute({ ...route(format, base, true, tags, deprecated), ...NAMED_DOCUMENTED }), (c) => {
      const { param, query } = NAMED.validate(c);
      return answer(c, format, param.ip, query);
    });
  }
}
