/**
 * @module `GET /health`: a liveness probe for load balancers and uptime checks, and the benchmarks'
 * trivial route. It answers `200 ok` (text/plain, not cached) without the database, KV or the rate
 * limiter, being registered before every gate on every plan (only `nosniff` is put on it, `app.ts`). It says the isolate is up, not that
 * the data is loaded (a lookup answers `503 DATA_UNAVAILABLE` for that); the OpenAPI document omits it.
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../env.ts';

/** The path of the liveness probe. */
export const HEALTH_PATH = '/health';

/**
 * Registers `GET /health` (and so `HEAD /health`). Call it before the gates' `app.use`, so that no gate
 * runs for the probe.
 *
 * @example
 *   const app = new OpenAPIHono<AppEnv>();
 *   registerHealthRoute(app); // curl http://localhost:8787/health → ok
 */
export function registerHealthRoute(app: Hono<AppEnv>): void {
  app.get(HEALTH_PATH, (c) => c.text('ok', 200, { 'Cache-Control': 'no-store' }));
}
