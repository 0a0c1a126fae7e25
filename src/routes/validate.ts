/** @module The lookup routes' request schemas as one synchronous validator, and as the OpenAPI parameters and body that document them (a route with one handler: no validator chain, no promise for Hono to await). */
import { createRoute, OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ZodObject, ZodSafeParseResult, ZodType } from 'zod';
import { validationProblem } from './hooks.ts';

/** The request schemas of a GET route, as `createRoute` takes them. */
export interface RequestSchemas {
  readonly params?: ZodObject;
  readonly query?: ZodObject;
  /** A JSON body's schema. */
  readonly json?: ZodType;
}

/**
 * The path parameters and the query of the request, parsed by `request`'s schemas (`safeParse`,
 * synchronous).
 *
 * @throws ProblemError of the app's one hook mapping ({@link validationProblem}) for the first part that fails.
 */
export function validate<P, Q, J = never>(request: RequestSchemas, c: Context, body?: unknown): { param: P; query: Q; json: J } {
  const param = request.params?.safeParse(c.req.param());
  if (param && !param.success) throw validationProblem('param', param.error.issues, c);
  const query = request.query && parsedQuery(request.query, c);
  if (query && !query.success) throw validationProblem('query', query.error.issues, c);
  const json = request.json?.safeParse(body);
  if (json && !json.success) throw validationProblem('json', json.error.issues, c);
  return { param: param?.data as P, query: query?.data as Q, json: json?.data as J };
}

/** Each query schema's result for `{}`, the query of a request without a query string. */
const emptyQueries = new WeakMap<ZodObject, ZodSafeParseResult<unknown>>();

/**
 * The query of the request parsed by `schema`. Most lookups carry no query string, and then the input
 * is always `{}`: its result is parsed once per schema and kept (the query validation cost a single
 * lookup about 3% of its CPU time in workerd: BENCHMARKS.md, "Validation of the lookup routes").
 */
function parsedQuery(schema: ZodObject, c: Context): ZodSafeParseResult<unknown> {
  if (c.req.url.includes('?')) return schema.safeParse(c.req.query());
  let parsed = emptyQueries.get(schema);
  if (parsed === undefined) {
    parsed = schema.safeParse({});
    emptyQueries.set(schema, parsed);
  }
  return parsed;
}

/** What documents a request in an OpenAPI operation: its parameters and its body. */
export interface DocumentedRequest {
  readonly parameters: NonNullable<RouteConfig['parameters']>;
  readonly requestBody?: NonNullable<RouteConfig['requestBody']>;
}

/**
 * The OpenAPI parameters and request body that `@hono/zod-openapi` generates for `request` on `method
 * path`, for a route that validates with {@link validate} inside its one handler instead of the
 * asynchronous validator chain that `app.openapi` adds for a route's `request` (that chain, and the
 * promise of a route with more than one handler, cost a single lookup about 10% of its CPU time and a
 * bulk request more: BENCHMARKS.md, "Validation of the lookup routes").
 */
export function documented(method: 'get' | 'post', path: string, request: RequestSchemas): DocumentedRequest {
  const { json, ...parameters } = request;
  const body = json === undefined ? {} : { body: { required: true, content: { 'application/json': { schema: json } } } };
  const generator = new OpenAPIHono();
  generator.openapi(createRoute({ method, path, request: { ...parameters, ...body }, responses: { 200: { description: '' } } }), (c) => c.body(null));
  const operation = generator.getOpenAPI31Document({ openapi: '3.1.0', info: { title: '', version: '' } }).paths?.[path]?.[method];
  return {
    parameters: (operation?.parameters ?? []) as DocumentedRequest['parameters'],
    ...(operation?.requestBody ? { requestBody: operation.requestBody as NonNullable<DocumentedRequest['requestBody']> } : {}),
  };
}
