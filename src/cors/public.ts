/**
 * @module CORS of the free server: its answers are public and credential-free, so any web page may
 * read them (`Access-Control-Allow-Origin: *`), the RateLimit fields included
 * (`Access-Control-Expose-Headers`), and a preflight is answered before the rate limiter, uncounted.
 * The paid servers' CORS, for whitelisted origins only, is `access/cors.ts`.
 */
import type { MiddlewareHandler } from 'hono';
import { isPreflight } from '../access/cors.ts';
import type { AppEnv } from '../env.ts';

/**
 * Response fields a page may read beyond the CORS-safelisted ones: the rate-limit state, how long to
 * wait after a 429 or 503, the database version of a lookup, and `Allow` of a 405.
 */
const EXPOSED_HEADERS = 'RateLimit, RateLimit-Policy, Retry-After, X-Database-Version, Allow';

/** Headers of every answer that is not a preflight. */
const ANSWER_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED_HEADERS,
};

/**
 * Headers of a preflight answer (204). `Content-Type` lets a page send the JSON body of a paid-only
 * endpoint and read its 403 `PAID_PLAN_REQUIRED`; `Authorization` is allowed so that a page sending a
 * key gets the answer anyway (the free server ignores keys). No credentials (cookies) are ever allowed.
 */
const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type',
  'Access-Control-Max-Age': '600',
};

/**
 * Hono middleware of the free plan, registered before the rate-limit gate: answers preflights
 * (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) with 204, and puts
 * {@link ANSWER_HEADERS} on every other answer, problems (429 included) too.
 *
 * @example
 *   app.use('*', publicCors());
 *   app.use('*', rateLimitGate());
 */
export function publicCors(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (isPreflight(c.req.method, (name) => c.req.header(name))) return c.body(null, 204, PREFLIGHT_HEADERS);
    // Before `next`: a problem rendered by the app's error handler keeps headers set so far.
    for (const [name, value] of Object.entries(ANSWER_HEADERS)) c.header(name, value);
    await next();
    // A handler may have returned a Response built without the context; set in place, as the rate-limit gate does.
    if (c.res.headers.has('Access-Control-Allow-Origin')) return;
    try {
      for (const [name, value] of Object.entries(ANSWER_HEADERS)) c.res.headers.set(name, value);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      for (const [name, value] of Object.entries(ANSWER_HEADERS)) c.header(name, value);
    }
  };
}
