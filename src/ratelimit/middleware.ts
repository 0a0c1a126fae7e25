/**
 * @module The free server's gate: counts every `/api/*` request, and each view of the home page
 * ({@link COUNTED_PAGES}, which renders its own refusal from {@link pageDecision}), against its client's
 * limits, refuses with `429 RATE_LIMITED` over them, and puts the RateLimit fields on the counted
 * answers. Other paths and {@link UNCOUNTED_PATHS} pass through untouched: no Durable Object call, no
 * fields. A request is counted when admitted and given back when its answer is a 5xx (docs/api.md, "The
 * free plan's limits"). The client is `CF-Connecting-IP` only, IPv6 by /64 within its /56 and /48
 * (`ip/client-key.ts`); a key lifts nothing here (docs/specification.md, 5.1).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { type AppEnv, clientIpOf } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { setOnAnswer } from '../http/answer-headers.ts';
import { STATUS_PATHS } from '../http/paths.ts';
import { type ClientKey, clientKey } from '../ip/client-key.ts';
import { RateLimitClient } from './client.ts';
import { rateLimitHeaders } from './headers.ts';
import { type LimitDecision, type Policy, policiesOf } from './window.ts';

/** The one key of every request that carries no parseable client address, so that leaving the header out buys nothing. */
const UNKNOWN_CLIENT: ClientKey = { network: 'unknown', subnet: null };

/** `/api/` paths that are not counted: the status endpoint (docs/api.md, "Conventions"), so that checking the data costs no quota. */
const UNCOUNTED_PATHS: ReadonlySet<string> = new Set([STATUS_PATHS.free]);

/**
 * Pages that count as one request, like the lookup they show (`routes/home.ts`), when asked with GET or
 * HEAD. Over the limit the gate does not raise: the page answers 429 itself, as a page.
 */
const COUNTED_PAGES: ReadonlySet<string> = new Set(['/']);

/**
 * Whether the free plan counts a request of `method` to `path` (docs/api.md, "The free plan's limits"):
 * every `/api/` request but the status endpoint's, and a GET or HEAD of a counted page.
 */
export function isCounted(method: string, path: string): boolean {
  return path.startsWith('/api/') ? !UNCOUNTED_PATHS.has(path) : isCountedPage(method, path);
}

function isCountedPage(method: string, path: string): boolean {
  return COUNTED_PAGES.has(path) && (method === 'GET' || method === 'HEAD');
}

declare module '../env.ts' {
  interface AppVariables {
    /** The gate's decision for a counted page, which the page answers with ({@link pageDecision}). */
    rateLimit?: LimitDecision;
  }
}

/**
 * The gate's decision for this request of a counted page ({@link COUNTED_PAGES}): whether it was
 * admitted, and the state of the binding policy after it (what the `RateLimit` field tells). Undefined
 * on other paths, and on paid servers, which have no gate of this kind.
 */
export function pageDecision(c: Context<AppEnv>): LimitDecision | undefined {
  return c.get('rateLimit');
}

const limiter = new RateLimitClient();

/** The rate-limit key of a request's client address (see `ip/client-key.ts`). */
function clientKeyOf(address: string): ClientKey {
  try {
    return clientKey(address);
  } catch {
    return UNKNOWN_CLIENT;
  }
}

/** Whose requests `policy` counts for `client`, as the refusal's detail words it. */
function scopeOf(policy: Policy, client: ClientKey): string {
  if (policy.prefixLength !== 64) return `the IPv6 /${policy.prefixLength} that holds this address`;
  return client.subnet === null ? 'this address' : "this address's IPv6 /64";
}

/**
 * Hono middleware of the free plan.
 *
 * @throws {ProblemError} `RATE_LIMITED` (429, with `Retry-After`) when the client is over a limit.
 */
export function rateLimitGate(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { method, path } = c.req;
    if (!isCounted(method, path)) return next();
    const client = clientKeyOf(clientIpOf(c.req));
    const policies = policiesOf(client.subnet);
    const { decision, source } = await limiter.check(c.env.RATE_LIMITER, client);
    let headers = rateLimitHeaders(decision, policies);
    setHeaders(c, headers);
    if (isCountedPage(method, path)) c.set('rateLimit', decision);
    else if (!decision.allowed) {
      const { policy } = decision.binding;
      throw new ProblemError(
        'RATE_LIMITED',
        `Over the free plan's limit "${policy.name}", ${policy.quota} requests in any ${policy.windowSeconds} s from ${scopeOf(policy, client)}; retry in ${decision.retryAfterSeconds} s.`,
        { headers },
      );
    }
    await next();
    if (c.res.status >= 500) {
      const refunded = await limiter.refund(c.env.RATE_LIMITER, client, source);
      if (refunded !== null) headers = rateLimitHeaders(refunded, policies);
    }
    // Again on the final answer: a handler may have returned a Response built without the context.
    setOnAnswer(c, headers);
  };
}

function setHeaders(c: Context<AppEnv>, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
}
