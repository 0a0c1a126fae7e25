/**
 * @module `GET /`, the home page of each plan (`pages/`). On the free server it is another view of the
 * single lookup: the same pipeline, renderer and problems as `GET /api/v1/json/{ip}`, the same status,
 * counted by the rate-limit gate as one request (`ratelimit/middleware.ts`, `COUNTED_PAGES`), which
 * hands the page its decision, so that over the limit the page itself answers 429. Paid servers' page
 * names the server and its data and makes no lookup.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type AppEnv, clientIpOf, correctionsUrlOf, type Plan } from '../env.ts';
import type { ProblemError } from '../errors/problem.ts';
import { asProblem, type Problem, problemBody } from '../errors/render.ts';
import type { DatabaseIdentity } from '../geo/identity.ts';
import { ENGLISH, LANGUAGES } from '../geo/languages.ts';
import { STATUS_PATHS } from '../http/paths.ts';
import { lookupRecords } from '../lookup/backend.ts';
import { dataIdentity, knownIdentity } from '../lookup/data-status.ts';
import { EVERY_FIELD, type View } from '../lookup/fields.ts';
import type { Found, Rendered } from '../lookup/pipeline.ts';
import { singleBody } from '../lookup/render.ts';
import { type FooterData, PAGE_CSP } from '../pages/document.tsx';
import { homePage } from '../pages/home.tsx';
import { paidPage } from '../pages/paid.tsx';
import type { HomeResult } from '../pages/result.tsx';
import { allowanceOf, type DataFacts, dataFactsOf, type IpInfo, indentedJson, indentedXml, localTimeOf, textOf } from '../pages/view.ts';
import { mapPoint } from '../pages/world.ts';
import { pageDecision } from '../ratelimit/middleware.ts';
import { LookupQuerySchema } from '../schemas/lookup-options.ts';
import { viewOfQuery } from './lookup-answer.ts';
import { lookupProblem } from './lookup-problems.ts';
import { RouteRequest } from './validate.ts';

/** The free page's query: the address (absent or empty: the visitor's own) and the names' language. */
const HomeQuerySchema = z.object({
  ip: z
    .string()
    .optional()
    .openapi({
      param: { name: 'ip', in: 'query' },
      description:
        "The address to look up, as the lookup's `{ip}` takes it (spaces around it ignored). Absent or empty: the visitor's own (`CF-Connecting-IP`).",
      example: '81.2.69.142',
    }),
  lang: LookupQuerySchema.shape.lang,
});
const HOME = new RouteRequest({ query: HomeQuerySchema });
type HomeQuery = z.output<typeof HomeQuerySchema>;

/** Headers of every page: its CSP, no caching (a page is the visitor's own, and counted), no referrer (`nosniff`: every answer, `app.ts`). */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': PAGE_CSP,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
};

const html = { 'text/html': { schema: z.string() } };

/** {@link PAGE_HEADERS} in the OpenAPI document: every page answer carries them. */
const PAGE_HEADER_OBJECTS = {
  'Content-Security-Policy': {
    description: 'Scripts, styles, images and requests from this origin only; no inline script or style, no frames, forms posted here only.',
    schema: { type: 'string' as const, example: PAGE_CSP },
    required: true,
  },
  'Cache-Control': {
    description: "Never stored: a page is the visitor's own, and counted.",
    schema: { type: 'string' as const, example: 'no-store' },
    required: true,
  },
  'Referrer-Policy': { description: 'No referrer on links out of the page.', schema: { type: 'string' as const, example: 'no-referrer' }, required: true },
};

/** `Retry-After` of a 429 or 503 page: seconds to wait before trying again. */
const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' as const, minimum: 0 }, required: true },
};

/** A page response of the document: its description, the page headers (and `Retry-After` where it is sent) and HTML. */
function pageResponse(description: string, retry = false) {
  return { description, headers: retry ? { ...PAGE_HEADER_OBJECTS, ...RETRY_AFTER } : PAGE_HEADER_OBJECTS, content: html };
}

function homeRoute(plan: Plan) {
  const free = plan === 'free';
  return createRoute({
    method: 'get',
    path: '/',
    tags: ['Documentation'],
    summary: 'Home page',
    description: free
      ? "An HTML page, rendered by the Worker (no script needed), with the record of the visitor's address or of `ip` in `lang`: its facts, a world map, the `curl` command and the JSON and XML answers, and the visitor's allowance. It is a view of the single lookup: the same answer, the same status (400, 404, 503 as the lookup route's problems, shown as a page) and it counts as one request of the free plan; over the limits it answers a page with 429 and `Retry-After`. Its scripts, styles, map and flags are static files that never count. Sent with a Content-Security-Policy that admits this origin only."
      : 'An HTML page naming this paid server, its region and its data (version, age, attribution), with links to /docs and the status endpoint. No lookup: lookups need a credential.',
    ...(free ? HOME.documented('get', '/') : {}),
    responses: {
      200: pageResponse('The page.'),
      ...(free
        ? {
            400: pageResponse('The page, showing `IP_ADDRESS_INVALID`, `IP_ADDRESS_RESERVED` or `LANGUAGE_UNSUPPORTED` in words.'),
            404: pageResponse('The page, showing `IP_ADDRESS_NOT_FOUND` in words.'),
            429: pageResponse("The page over the free plan's limits, saying when to try again (`Retry-After`).", true),
          }
        : {}),
      503: pageResponse('The page, saying that the data cannot be read at the moment (`Retry-After`).', true),
    },
  });
}

/** The page's answer: its HTML, status and headers, with those of the problem it shows (`Retry-After` of a 503). */
function pageAnswer(c: Context<AppEnv>, text: string, status: number, problem?: Problem): Response {
  return c.html(text, status as ContentfulStatusCode, { ...PAGE_HEADERS, ...problem?.options.headers });
}

/** The request as the lookups take it. */
function lookupRequest(c: Context<AppEnv>) {
  return { env: c.env, ctx: c.executionCtx, place: c.req.raw };
}

/** The data's identity, or the problem that keeps the data from answering (503 `DATA_UNAVAILABLE`). */
async function identityOrProblem(c: Context<AppEnv>): Promise<DatabaseIdentity | ProblemError> {
  try {
    return await dataIdentity(lookupRequest(c));
  } catch (error) {
    return asProblem(error, c.req.raw);
  }
}

/** The footer's facts: the data's (none while it cannot be read) and the plan's status path. */
function footer(plan: Plan, identity: DatabaseIdentity | ProblemError): FooterData {
  return { data: identity instanceof Error ? undefined : dataFactsOf(identity, Date.now()), statusPath: STATUS_PATHS[plan] };
}

/** Both formats: the page shows the JSON and the XML answer. */
const BOTH_FORMATS = ['json', 'xml'] as const;

/** The lookup of `text` (an address as typed, or the visitor's own): its record, or the problem it answers. */
async function lookupOf(c: Context<AppEnv>, text: string, view: View): Promise<Found | Rendered | Problem> {
  try {
    const outcome = (await lookupRecords(lookupRequest(c), [text], BOTH_FORMATS, view))[0] ?? { kind: 'invalid' as const };
    return outcome.kind === 'found' || outcome.kind === 'rendered' ? outcome : lookupProblem(outcome);
  } catch (error) {
    return asProblem(error, c.req.raw);
  }
}

/** What the free page shows for a lookup's answer, in `view`. */
function resultOf(answer: Found | Rendered | Problem, view: View, data: DataFacts | undefined): HomeResult {
  if (!('kind' in answer)) return { kind: 'problem', problem: problemBody(answer) };
  const json = textOf(singleBody(answer, 'json', view));
  const record = JSON.parse(json) as IpInfo;
  const positioned = record.latitude !== 0 || record.longitude !== 0;
  return {
    kind: 'record',
    record,
    json: indentedJson(json),
    xml: indentedXml(textOf(singleBody(answer, 'xml', view))),
    point: positioned ? mapPoint(record.latitude, record.longitude) : undefined,
    time: localTimeOf(record),
    flags: data?.flags ?? [],
  };
}

async function freePage(c: Context<AppEnv>): Promise<Response> {
  const decision = pageDecision(c);
  const allowance = decision && allowanceOf(decision);
  let query: HomeQuery;
  try {
    query = HOME.validate(c).query;
  } catch (error) {
    const problem = asProblem(error, c.req.raw);
    const ip = (c.req.query('ip') ?? '').trim();
    const props = { origin: new URL(c.req.url).origin, ip, language: 'en' as const, allowance, footer: footer('free', await identityOrProblem(c)) };
    return pageAnswer(c, homePage({ ...props, result: { kind: 'problem', problem: problemBody(problem) } }), problem.status, problem);
  }
  const ip = (query.ip ?? '').trim();
  const language = LANGUAGES[query.lang ?? ENGLISH] ?? 'en';
  const props = { origin: new URL(c.req.url).origin, ip, language, allowance };
  if (decision !== undefined && !decision.allowed) {
    // A refused view costs no lookup; the footer still names the data.
    return pageAnswer(c, homePage({ ...props, result: { kind: 'limited' }, footer: footer('free', await identityOrProblem(c)) }), 429);
  }
  const text = ip || clientIpOf(c.req);
  // Every field: the page shows the record as `?fields=all` answers it.
  const view = viewOfQuery(query, EVERY_FIELD);
  const answer: Found | Rendered | Problem = text
    ? await lookupOf(c, text, view)
    : { code: 'IP_ADDRESS_INVALID', detail: 'This request carries no client address (CF-Connecting-IP): type an address to look up.', options: {} };
  const identity = await identityOrProblem(c);
  const facts = footer('free', identity);
  const result = resultOf(answer, view, facts.data);
  // A problem's headers go with the page (Retry-After of a 503).
  const problem = 'kind' in answer ? undefined : answer;
  const page = homePage({ ...props, result, footer: facts, correctionsUrl: correctionsUrlOf(c.env) });
  return pageAnswer(c, page, result.kind === 'problem' ? result.problem.status : 200, problem);
}

async function paidHome(c: Context<AppEnv>): Promise<Response> {
  const identity = await identityOrProblem(c);
  const problem = identity instanceof Error ? identity : undefined;
  return pageAnswer(c, paidPage({ region: c.env.REGION, footer: footer('paid', identity) }), problem?.status ?? 200, problem);
}

/** The page of an unexpected failure (logged by `asProblem`): 500 `INTERNAL_ERROR` in words, as a page. */
function failedPage(c: Context<AppEnv>, plan: Plan, error: unknown): Response {
  const problem = asProblem(error, c.req.raw);
  const text =
    plan === 'free'
      ? homePage({
          origin: new URL(c.req.url).origin,
          ip: '',
          language: 'en',
          allowance: undefined,
          result: { kind: 'problem', problem: problemBody(problem) },
          footer: footer(plan, knownIdentity(c.env) ?? problem),
        })
      : paidPage({ region: c.env.REGION, footer: footer(plan, knownIdentity(c.env) ?? problem) });
  return pageAnswer(c, text, problem.status, problem);
}

/** Registers `GET /` of `plan`. */
export function registerHomeRoute(app: OpenAPIHono<AppEnv>, plan: Plan): void {
  app.openapi(homeRoute(plan), async (c) => {
    try {
      return await (plan === 'free' ? freePage(c) : paidHome(c));
    } catch (error) {
      return failedPage(c, plan, error);
    }
  });
}
