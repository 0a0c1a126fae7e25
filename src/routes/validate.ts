/** @module A route's request schemas as one synchronous validator, and as the OpenAPI parameters and body that document them (a route with one handler: no validator chain, no promise for Hono to await). */
import { createRoute, OpenAPIHono, type RouteConfig, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ZodObject, ZodSafeParseResult, ZodType } from 'zod';
import { validationProblem } from './hooks.ts';

/** The request schemas of a route, as `createRoute` takes them (a JSON body's schema as `json`). */
export interface RequestSchemas {
  readonly params?: ZodObject;
  readonly query?: ZodObject;
  readonly json?: ZodType;
}

/** What a part of the request parses into: undefined when the route has no schema for it. */
type Parsed<S> = S extends ZodType ? z.output<S> : undefined;

/** Query strings longer than this are parsed on every request, not kept (a kept query costs its length). */
const MAX_KEPT_QUERY = 256;
/** How many parsed queries a route keeps; when full, they are forgotten and kept again as they come. */
const MAX_KEPT_QUERIES = 256;

/**
 * A route's request: its schemas, made once per route, which validate each request in the route's
 * one handler ({@link validate}) and document it ({@link documented}).
 *
 * @example
 * const NAMED = new RouteRequest({ params: IpParamSchema, query: LookupQuerySchema });
 * app.openapi(createRoute({ ...config, ...NAMED.documented('get', '/{ip}') }), (c) => answer(c, NAMED.validate(c)));
 */
export class RouteRequest<S extends RequestSchemas> {
  /** The keys of {@link RequestSchemas.params} when it is an object of plain strings (see {@link parsedParams}). */
  private readonly plainParams: readonly string[] | undefined;
  /** Parsed queries by query string (see {@link parsedQuery}). */
  private readonly keptQueries = new Map<string, ZodSafeParseResult<unknown>>();

  constructor(readonly schemas: S) {
    const { params } = schemas;
    const plain =
      params?.def.catchall === undefined &&
      (params?.def.checks?.length ?? 0) === 0 &&
      Object.values(params?.shape ?? {}).every((value) => {
        const def = value.def as { type: string; checks?: readonly unknown[]; coerce?: boolean };
        return def.type === 'string' && (def.checks?.length ?? 0) === 0 && def.coerce !== true;
      });
    this.plainParams = params && plain ? Object.keys(params.shape) : undefined;
  }

  /**
   * The path parameters, query and JSON `body` of the request, parsed by the schemas (`safeParse`,
   * synchronous).
   *
   * @throws ProblemError of the app's one hook mapping ({@link validationProblem}) for the first part that fails.
   */
  validate(c: Context, body?: unknown): { param: Parsed<S['params']>; query: Parsed<S['query']>; json: Parsed<S['json']> } {
    const param = this.schemas.params && this.parsedParams(this.schemas.params, c);
    if (param && !param.success) throw validationProblem('param', param.error.issues, c);
    const query = this.schemas.query && this.parsedQuery(this.schemas.query, c);
    if (query && !query.success) throw validationProblem('query', query.error.issues, c);
    const json = this.schemas.json?.safeParse(body);
    if (json && !json.success) throw validationProblem('json', json.error.issues, c);
    return { param: param?.data, query: query?.data, json: json?.data } as ReturnType<RouteRequest<S>['validate']>;
  }

  /**
   * The path parameters parsed by `schema`. Hono gives every parameter as a string, and an object of
   * plain strings (no checks of its own or of a value, no coercion, no transform: `{ip}`) accepts
   * every object of strings, so for such a schema the parse is checking that each of its keys holds a
   * string, done here; any other schema is parsed by zod, whose parse is slow in a Worker, which
   * forbids `eval` (docs/hot-path.md, "Validation of the lookup routes").
   */
  private parsedParams(schema: ZodObject, c: Context): ZodSafeParseResult<unknown> {
    const keys = this.plainParams;
    if (keys === undefined) return schema.safeParse(c.req.param());
    const data: Record<string, string> = {};
    for (const key of keys) {
      const value = c.req.param(key);
      if (typeof value !== 'string') return schema.safeParse(c.req.param()); // zod says what is wrong
      data[key] = value;
    }
    return { success: true, data };
  }

  /**
   * The query of the request parsed by `schema`. A query's result depends on its text alone, and
   * clients send the same few (none, or their own `lang` and `fields`), so each route keeps the results
   * of up to {@link MAX_KEPT_QUERIES} query strings: zod validates each one once. Parsing `lang` and
   * `fields` costs a lookup microseconds of CPU in workerd, far more than in Node (BENCHMARKS.md,
   * "Validation of the lookup routes").
   */
  private parsedQuery(schema: ZodObject, c: Context): ZodSafeParseResult<unknown> {
    const { url } = c.req;
    const at = url.indexOf('?');
    const search = at < 0 ? '' : url.slice(at);
    if (search.length > MAX_KEPT_QUERY) return schema.safeParse(c.req.query());
    let parsed = this.keptQueries.get(search);
    if (parsed === undefined) {
      parsed = schema.safeParse(at < 0 ? {} : c.req.query());
      if (this.keptQueries.size >= MAX_KEPT_QUERIES) this.keptQueries.clear();
      this.keptQueries.set(search, parsed);
    }
    return parsed;
  }

  /**
   * The OpenAPI parameters and request body that `@hono/zod-openapi` generates for these schemas on
   * `method path`, for a route that validates with {@link validate} inside its one handler instead of
   * the asynchronous validator chain that `app.openapi` adds for a route's `request` (that chain, and
   * the promise of a route with more than one handler, cost a single lookup about 10% of its CPU time
   * and a bulk request more: docs/hot-path.md, "Validation of the lookup routes").
   */
  documented(method: 'get' | 'post', path: string): DocumentedRequest {
    const { json, ...parameters } = this.schemas;
    const body = json === undefined ? {} : { body: { required: true, content: { 'application/json': { schema: json } } } };
    const generator = new OpenAPIHono();
    generator.openapi(createRoute({ method, path, request: { ...parameters, ...body }, responses: { 200: { description: '' } } }), (c) => c.body(null));
    const operation = generator.getOpenAPI31Document({ openapi: '3.1.0', info: { title: '', version: '' } }).paths?.[path]?.[method];
    return {
      parameters: (operation?.parameters ?? []) as DocumentedRequest['parameters'],
      ...(operation?.requestBody ? { requestBody: operation.requestBody as NonNullable<DocumentedRequest['requestBody']> } : {}),
    };
  }
}

/** What documents a request in an OpenAPI operation: its parameters and its body. */
export interface DocumentedRequest {
  readonly parameters: NonNullable<RouteConfig['parameters']>;
  readonly requestBody?: NonNullable<RouteConfig['requestBody']>;
}
