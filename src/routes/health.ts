/**
 * @module `GET /health`: a liveness probe for load balancers and uptime checks, and the trivial route
 * that the benchmarks (`npm run bench`) take as the runtime's own ceiling.
 *
 * It answers `200 ok` (text/plain, not cached) without touching the database, KV or the rate limiter:
 * it is registered before every middleware of the app, so neither the free plan's rate limits nor the
 * paid plans' access check runs for it, on any plan. It says the isolate is up, not that the data is
 * loaded; a lookup answers `503 DATA_UNAVAILABLE` for that. It is not part of the OpenAPI document,
 * whose per-plan decorations (RateLimit fields, access problems) do not apply to it.
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../env.ts';

/** The path of the liveness probe. */
export const HEALTH_PATH = '/health';

/**
 * Registers `GET /health` (and so `HEAD /health`). Call it before any `app.use`, so that no middleware
 * runs for the probe.
 *
 * @example
 *   const app = new OpenAPIHono<AppEnv>();
 *   registerHealthRoute(app); // curl http://localhost:8787/health → ok
 */
export function registerHealthRoute(app: Hono<AppEnv>): void {
  app.get(HEALTH_PATH, (c) => c.text('ok', 200, { 'Cache-Control': 'no-store' }));
}
