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
  const param = request.params && parsedParams(request.params, c.req.param());
  if (param && !param.success) throw validationProblem('param', param.error.issues, c);
  const query = request.query && parsedQuery(request.query, c);
  if (query && !query.success) throw validationProblem('query', query.error.issues, c);
  const json = request.json?.safeParse(body);
  if (json && !json.success) throw validationProblem('json', json.error.issues, c);
  return { param: param?.data as P, query: query?.data as Q, json: json?.data as J };
}

/**
 * The path parameters parsed by `schema`. Hono gives every parameter as a string, and an object of
 * plain strings (no checks, no coercion, no transform: `{ip}`) accepts every object of strings, so for
 * such a schema the parse is checking that each of its keys holds a string, done here; any other schema
 * is parsed by zod. zod's own parse of `{ip}` (it compiles no parser where a Worker forbids `eval`) cost
 * a single lookup about 3 µs of its CPU time in workerd (BENCHMARKS.md, "Validation of the lookup routes").
 */
function parsedParams(schema: ZodObject, params: Record<string, string>): ZodSafeParseResult<unknown> {
  const keys = plainStringKeys(schema);
  if (keys === undefined) return schema.safeParse(params);
  const data: Record<string, string> = {};
  for (const key of keys) {
    const value = params[key];
    if (typeof value !== 'string') return schema.safeParse(params); // zod says what is wrong
    data[key] = value;
  }
  return { success: true, data };
}

const plainStringShapes = new WeakMap<ZodObject, readonly string[] | undefined>();

/** The keys of `schema` when every value of its shape is a plain string and it keeps no other key; else undefined. */
function plainStringKeys(schema: ZodObject): readonly string[] | undefined {
  if (plainStringShapes.has(schema)) return plainStringShapes.get(schema);
  const { shape, catchall } = schema.def;
  const plain =
    catchall === undefined &&
    Object.values(shape).every((value) => {
      const def = value.def as { type: string; checks?: readonly unknown[]; coerce?: boolean };
      return def.type === 'string' && (def.checks?.length ?? 0) === 0 && def.coerce !== true;
    });
  const keys = plain ? Object.keys(shape) : undefined;
  plainStringShapes.set(schema, keys);
  return keys;
}

/** Query strings longer than this are parsed on every request, not kept (a kept query costs its length). */
const MAX_KEPT_QUERY = 256;
/** How many parsed queries each schema keeps; when full, they are forgotten and kept again as they come. */
const MAX_KEPT_QUERIES = 256;
const parsedQueries = new WeakMap<ZodObject, Map<string, ZodSafeParseResult<unknown>>>();

/**
 * The query of the request parsed by `schema`. A query's result depends on its text alone, and clients
 * send the same few (none, or their own `lang` and `fields`), so each schema keeps the results of up to
 * {@link MAX_KEPT_QUERIES} query strings: zod validates each one once. Parsing `lang` and `fields` cost
 * a lookup about 8% of its CPU time in workerd (BENCHMARKS.md, "Validation of the lookup routes").
 */
function parsedQuery(schema: ZodObject, c: Context): ZodSafeParseResult<unknown> {
  const { url } = c.req;
  const at = url.indexOf('?');
  const search = at < 0 ? '' : url.slice(at);
  if (search.length > MAX_KEPT_QUERY) return schema.safeParse(c.req.query());
  let kept = parsedQueries.get(schema);
  if (kept === undefined) {
    kept = new Map();
    parsedQueries.set(schema, kept);
  }
  let parsed = kept.get(search);
  if (parsed === undefined) {
    parsed = schema.safeParse(at < 0 ? {} : c.req.query());
    if (kept.size >= MAX_KEPT_QUERIES) kept.clear();
    kept.set(search, parsed);
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
