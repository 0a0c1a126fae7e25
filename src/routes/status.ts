/**
 * @module `GET /api/v1/status` (free) and `GET /api/status` (paid): which data this server answers
 * from and how old it is. Open on both plans: no credential on paid servers, and on the free server it
 * is not counted and carries no RateLimit fields (see `access/middleware.ts`, `ratelimit/middleware.ts`).
 * While the database cannot be loaded it answers 503 `DATA_UNAVAILABLE`, like the lookups; a sharded
 * one answers while any shard does, naming each shard that cannot and why.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, Plan } from '../env.ts';
import { STATUS_PATHS } from '../http/paths.ts';
import { dataStatus } from '../lookup/data-status.ts';
import { statusBody } from '../lookup/status-body.ts';
import { problemResponses } from '../schemas/problem.ts';
import { StatusSchema } from '../schemas/status.ts';

function statusRoute(plan: Plan) {
  return createRoute({
    method: 'get',
    path: STATUS_PATHS[plan],
    tags: ['Status'],
    summary: 'Data version and age',
    description:
      "The plan and region of this server, the version, build date, counts, SHA-256, sources and the operator's corrections of the database it answers from, the flags its data can set, its shards (one covering everything where the database is not sharded) with the version each answers from, and whether that data is stale (a source older than 30 days). Open to everyone; on the free server it does not count against the rate limits.",
    responses: {
      200: {
        description: 'The status.',
        headers: {
          'Cache-Control': { description: '`no-store`: the status is read afresh every time.', schema: { type: 'string', const: 'no-store' }, required: true },
        },
        content: { 'application/json': { schema: StatusSchema } },
      },
      ...problemResponses(['DATA_UNAVAILABLE']),
    },
  });
}

/** Registers the status route of `plan`. */
export function registerStatusRoute(app: OpenAPIHono<AppEnv>, plan: Plan): void {
  app.openapi(statusRoute(plan), async (c) => {
    const status = await dataStatus({ env: c.env, ctx: c.executionCtx, place: c.req.raw });
    return c.json(statusBody(plan, c.env.REGION, status, Date.now()), 200, { 'Cache-Control': 'no-store' });
  });
}
