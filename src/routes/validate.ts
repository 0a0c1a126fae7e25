/** @module The single lookup routes' request schemas as one synchronous validator, and as the OpenAPI parameters that document them (a route with one handler: Hono answers it without a promise). */
import { createRoute, OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ZodObject } from 'zod';
import { validationProblem } from './hooks.ts';

/** The request schemas of a GET route, as `createRoute` takes them. */
export interface GetRequest {
  readonly params?: ZodObject;
  readonly query?: ZodObject;
}

/**
 * The path parameters and the query of the request, parsed by `request`'s schemas (`safeParse`,
 * synchronous).
 *
 * @throws ProblemError of the app's one hook mapping ({@link validationProblem}) for the first part that fails.
 */
export function validate<P, Q>(request: { readonly params?: ZodObject; readonly query?: ZodObject }, c: Context): { param: P; query: Q } {
  const param = request.params?.safeParse(c.req.param());
  if (param && !param.success) throw validationProblem('param', param.error.issues, c);
  const query = request.query?.safeParse(c.req.query());
  if (query && !query.success) throw validationProblem('query', query.error.issues, c);
  return { param: param?.data as P, query: query?.data as Q };
}

/**
 * The OpenAPI parameter objects that `@hono/zod-openapi` generates for `request` on `path`, for a route
 * that validates with {@link validate} inside its one handler instead of the asynchronous validator
 * chain that `app.openapi` adds for a route's `request` (that chain, and the promise of a route with
 * more than one handler, cost a single lookup about 10% of its CPU time: BENCHMARKS.md, "Validation of
 * the single lookup routes").
 */
export function parametersOf(path: string, request: GetRequest): NonNullable<RouteConfig['parameters']> {
  const generator = new OpenAPIHono();
  generator.openapi(createRoute({ method: 'get', path, request, responses: { 200: { description: '' } } }), (c) => c.body(null));
  const document = generator.getOpenAPI31Document({ openapi: '3.1.0', info: { title: '', version: '' } });
  return (document.paths?.[path]?.get?.parameters ?? []) as NonNullable<RouteConfig['parameters']>;
}
