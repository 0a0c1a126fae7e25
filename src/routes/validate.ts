/** @module The single lookup routes' validator: their own documented zod schemas run synchronously in one step, in place of `@hono/zod-openapi`'s chain of asynchronous validators. */
import type { Context, MiddlewareHandler } from 'hono';
import type { ZodType } from 'zod';
import type { AppEnv } from '../env.ts';
import { validationProblem } from './hooks.ts';

/** The request schemas of a GET route, as `createRoute` takes them. */
interface GetRequest {
  readonly params?: ZodType;
  readonly query?: ZodType;
}

/**
 * Route middleware that validates the path parameters and the query with the route's own schemas
 * (`safeParse`, synchronous), fails through the app's hook mapping ({@link validationProblem}), records
 * the valid data for `c.req.valid()` and answers with `handler`, so that the validators that
 * `app.openapi` chains after it, which check the same schemas asynchronously, do not run again: that
 * chain cost a single lookup 5% of its CPU time (BENCHMARKS.md, "Validation of the single lookup routes").
 *
 * @example app.openapi({ ...route, middleware: [validated(route.request, serve)] }, serve)
 */
export function validated(request: GetRequest, handler: (c: Context<AppEnv>) => Response | Promise<Response>): MiddlewareHandler<AppEnv> {
  return async (c) => {
    for (const [target, schema, value] of [
      ['param', request.params, request.params && c.req.param()],
      ['query', request.query, request.query && c.req.query()],
    ] as const) {
      if (schema === undefined) continue;
      const result = schema.safeParse(value);
      if (!result.success) throw validationProblem(target, result.error.issues, c);
      c.req.addValidatedData(target, result.data as object);
    }
    return handler(c);
  };
}
