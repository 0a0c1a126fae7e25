/**
 * @module The middleware that runs before every route: the free plan's rate limits, or the paid plans'
 * access check. One entry point, so that `app.ts` stays the same for both plans.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Plan } from '../env.ts';
import { rateLimitGate } from '../ratelimit/middleware.ts';
import { accessGate } from './middleware.ts';

/**
 * The gate of a plan.
 *
 * - `free`: every `/api/*` request but `/api/v1/status`, and each view of `/`, counts against its client's
 *   limits (429 `RATE_LIMITED` over them) and carries `RateLimit-Policy` and `RateLimit`; other requests
 *   pass untouched. Keys are ignored.
 * - `paid`: every `/api/*` request but `/api/countrycodes` and `/api/status` needs an API key, a whitelisted server
 *   address or a whitelisted website origin; whitelisted origins get CORS, preflights included.
 */
export function planGate(plan: Plan): MiddlewareHandler<AppEnv> {
  return plan === 'free' ? rateLimitGate() : accessGate();
}
