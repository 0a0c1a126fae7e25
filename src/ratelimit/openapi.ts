/**
 * @module How the free server's rate limits appear in the OpenAPI document: the limits in words (for
 * the document's description) and header objects to put on every counted response of a free route,
 * so that the document names the fields the answers carry. The figures come from `window.ts`.
 */
import { rateLimitPolicyField } from './headers.ts';
import { CLIENT_POLICIES, IPV6_POLICIES, type Policy } from './window.ts';

/** `10 requests in any 10 s and 60 in any minute` for two policies of one network, burst first. */
function quotas(policies: readonly Policy[], prefixLength: Policy['prefixLength']): string {
  const [burst, minute] = policies.filter((policy) => policy.prefixLength === prefixLength);
  return `${burst?.quota} requests in any ${burst?.windowSeconds} s and ${minute?.quota} in any minute`;
}

/** The free plan's limits and their reasons, in words (docs/api.md, "The free plan's limits", says more). */
export const FREE_PLAN_LIMITS = `Rate limits per client address: ${quotas(CLIENT_POLICIES, 64)} (an IPv6 client by its /64). An IPv6 client also shares ${quotas(IPV6_POLICIES, 56)} with the rest of its /56, and ${quotas(IPV6_POLICIES, 48)} with the rest of its /48: an ISP hands a household a /56 and an office a /48 (RIPE-690; ARIN's Number Resource Policy Manual), so one subscriber can hold 256 or 65,536 /64s, and these caps keep them from multiplying the allowance, while leaving room for several busy /64s (a /56 at 8 times a /64, a /48 at 64 times).`;

/** Which answers count against the quotas (`ratelimit/middleware.ts`). */
const COUNTED =
  "Every answer to an `/api/` request counts, client errors (4xx) included, except the status endpoint, the service's own failures (5xx, e.g. `503 DATA_UNAVAILABLE`: a client that retries after `Retry-After` spends nothing) and `429` itself; so does a view of the home page `/`. Answers that are not counted (`/openapi.json`, `/docs`, the status endpoint, static files) carry no RateLimit fields.";

/** OpenAPI header objects for `RateLimit-Policy` and `RateLimit`, carried by every counted answer of the free server. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description: `The client's quotas (draft-ietf-httpapi-ratelimit-headers): \`${rateLimitPolicyField(CLIENT_POLICIES)}\` for an IPv4 client, \`${rateLimitPolicyField(IPV6_POLICIES)}\` for an IPv6 one (\`-56\` and \`-48\`: the /56 and /48 that hold its /64). ${FREE_PLAN_LIMITS} ${COUNTED}`,
    schema: { type: 'string' as const, example: rateLimitPolicyField(CLIENT_POLICIES) },
  },
  RateLimit: {
    description: `The quota nearest to exhaustion, the one that binds: \`r\` requests left in its window, and \`t\` seconds until the oldest request counted in the window leaves it (0 when none is counted). ${COUNTED}`,
    schema: { type: 'string' as const, example: '"burst";r=7;t=4' },
  },
};

/** OpenAPI header objects of a 429 `RATE_LIMITED` answer: the RateLimit fields and `Retry-After`. */
export const RATE_LIMITED_HEADERS = {
  ...RATE_LIMIT_HEADERS,
  'Retry-After': {
    description: 'Whole seconds until a request of this client will be admitted again.',
    schema: { type: 'integer' as const, example: 4 },
  },
};
