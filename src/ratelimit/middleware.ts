/**
 * @module The free server's gate: counts every `/api/*` request, and each view of the home page
 * ({@link COUNTED_PAGES}, which renders its own refusal from {@link pageDecision}), against its client's
 * limits, refuses with `429 RATE_LIMITED` over them, and puts the RateLimit fields on every answer;
 * other paths and {@link UNCOUNTED_PATHS} are neither counted nor refused. A request is counted when
 * admitted and given back when its answer is a 5xx (docs/api.md, "Conventions"). The client is
 * `CF-Connecting-IP` only, IPv6 by /64; a key lifts nothing here (docs/specification.md, 5.1).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { type AppEnv, clientIpOf } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { clientKey } from '../ip/client-key.ts';
import { RateLimitClient } from './client.ts';
import { rateLimitHeaders } from './headers.ts';
import { FREE_POLICIES, type LimitDecision } from './window.ts';

/** The one key of every request that carries no parseable client address, so that leaving the header out buys nothing. */
const UNKNOWN_CLIENT_KEY = 'unknown';

/** `/api/` paths that are not counted: the status endpoint (docs/api.md, "Conventions"), so that checking the data costs no quota. */
export const UNCOUNTED_PATHS: ReadonlySet<string> = new Set(['/api/v1/status']);

/**
 * Pages that count as one request, like the lookup they show (`routes/home.ts`), when asked with GET or
 * HEAD. Over the limit the gate does not raise: the page answers 429 itself, as a page.
 */
const COUNTED_PAGES: ReadonlySet<string> = new Set(['/']);

/** The context variable in which the gate hands a counted page its decision. */
interface RateLimitEnv extends AppEnv {
  Variables: { rateLimit: LimitDecision };
}

/**
 * The gate's decision for this request of a counted page ({@link COUNTED_PAGES}): whether it was
 * admitted, and the state of each policy after it (what the `RateLimit` field tells). Undefined on
 * other paths, and on paid servers, which have no gate of this kind.
 */
export function pageDecision(c: Context): LimitDecision | undefined {
  return (c as unknown as Context<RateLimitEnv>).get('rateLimit');
}

const limiter = new RateLimitClient();
const LIMITS = FREE_POLICIES.map((policy) => `${policy.quota} requests in ${policy.windowSeconds} s`).join(', ');

/** The rate-limit key of a request's client address (see `ip/client-key.ts`). */
function clientKeyOf(address: string): string {
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
    const { path } = c.req;
    const page = COUNTED_PAGES.has(path) && (c.req.method === 'GET' || c.req.method === 'HEAD');
    const limited = page || (path.startsWith('/api/') && !UNCOUNTED_PATHS.has(path));
    const client = clientKeyOf(clientIpOf(c.req));
    const { decision, source } = await limiter.check(c.env.RATE_LIMITER, client, limited ? 'hit' : 'peek');
    let headers = rateLimitHeaders(decision);
    setHeaders(c, headers);
    if (page) (c as unknown as Context<RateLimitEnv>).set('rateLimit', decision);
    // Uncounted paths (`/openapi.json`, `/docs`) only report the client's state: never refused.
    else if (!decision.allowed && limited) {
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
