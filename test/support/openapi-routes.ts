/**
 * @module Compares the routes an app serves with the operations its OpenAPI document lists, for the
 * OpenAPI tests of both plans.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../src/env.ts';

/** `METHOD /path/{param}` for every route the app answers (middleware left out), HEAD beside every GET. */
export function servedOperations(app: OpenAPIHono<AppEnv>): string[] {
  const operations = app.routes
    .filter((route) => route.method !== 'ALL')
    // Hono's `:name` and `:name{regex}` are OpenAPI's `{name}`.
    .flatMap((route) => {
      const path = route.path.replace(/:([A-Za-z0-9_]+)(\{[^/]*\})?/g, '{$1}');
      // Hono answers HEAD for every GET route.
      return route.method === 'GET' ? [`GET ${path}`, `HEAD ${path}`] : [`${route.method} ${path}`];
    });
  return [...new Set(operations)].sort();
}

/** `METHOD /path/{param}` for every operation of an OpenAPI document. */
export function documentedOperations(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}
