/**
 * @module The free server's gate: counts every `/api/*` request against its client's limits, refuses
 * with `429 RATE_LIMITED` over them, and puts the RateLimit fields on every answer, problems included;
 * other paths and {@link UNCOUNTED_PATHS} are neither counted nor refused. A request is counted when
 * admitted, so concurrent ones are decided exactly, and given back when its answer is a 5xx, the
 * service's failure (docs/api.md, "Conventions"). The client is `CF-Connecting-IP` only, IPv6 by /64;
 * a key lifts nothing here (docs/specification.md, 5.1).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { type AppEnv, clientIpOf } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { clientKey } from '../ip/client-key.ts';
import { RateLimitClient } from './client.ts';
import { rateLimitHeaders } from './headers.ts';
import { FREE_POLICIES } from './window.ts';

/** The one key of every request that carries no parseable client address, so that leaving the header out buys nothing. */
export const UNKNOWN_CLIENT_KEY = 'unknown';

/** `/api/` paths that are not counted: the status endpoint (docs/api.md, "Conventions"), so that checking the data costs no quota. */
export const UNCOUNTED_PATHS: ReadonlySet<string> = new Set(['/api/v1/status']);

const limiter = new RateLimitClient();
const LIMITS = FREE_POLICIES.map((policy) => `${policy.quota} requests in ${policy.windowSeconds} s`).join(', ');

/** The rate-limit key of a request's client address (see `ip/client-key.ts`). */
export function clientKeyOf(address: string): string {
  try {
    return clientKey(address);
  } catch {
    return UNKNOWN_CLIENT_KEY;
  }
}

/**
 * Hono middleware of the free plan.
 *
 * @throws {ProblemError} `RATE_LIMITED` (429, with `Retry-After`) when the client is over a limit.
 */
export function rateLimitGate(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const limited = c.req.path.startsWith('/api/') && !UNCOUNTED_PATHS.has(c.req.path);
    const client = clientKeyOf(clientIpOf(c.req));
    const { decision, source } = await limiter.check(c.env.RATE_LIMITER, client, limited ? 'hit' : 'peek');
    let headers = rateLimitHeaders(decision);
    setHeaders(c, headers);
    // Uncounted paths (`/openapi.json`, `/docs`) only report the client's state: never refused.
    if (!decision.allowed && limited) {
      throw new ProblemError('RATE_LIMITED', `This client is over the free plan's limits (${LIMITS}); retry in ${decision.retryAfterSeconds} s.`, { headers });
    }
    await next();
    if (limited && c.res.status >= 500) {
      const refunded = await limiter.refund(c.env.RATE_LIMITER, client, source);
      if (refunded !== null) headers = rateLimitHeaders(refunded);
    }
    // Again on the final answer: a handler may have returned a Response built without the context.
    putOnAnswer(c, headers);
  };
}

function setHeaders(c: Context<AppEnv>, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
}

/**
 * Sets the fields on the final answer in place. `c.header` on a finished answer copies the whole
 * Response first, once per field: in a profile of the free lookup that was about a tenth of the
 * isolate's time per request. Every answer of this app has mutable headers; one that had not (a
 * Response passed on from `fetch`) is copied as `c.header` does.
 */
function putOnAnswer(c: Context<AppEnv>, headers: Readonly<Record<string, string>>): void {
  const target = c.res.headers;
  try {
    for (const [name, value] of Object.entries(headers)) target.set(name, value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    setHeaders(c, headers);
  }
}
