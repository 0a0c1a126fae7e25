/**
 * @module How the free server's rate-limit fields appear in the OpenAPI document: header objects to
 * put on every response of a free route, so that the document names the fields the answers carry.
 */
import { rateLimitPolicyField } from './headers.ts';

/** Which answers count against the quotas (`ratelimit/middleware.ts`). */
const COUNTED =
  "Every answer to an `/api/` request counts, client errors (4xx) included, except the service's own failures (5xx, e.g. `503 DATA_UNAVAILABLE`: a client that retries after `Retry-After` spends nothing) and `429` itself; other paths (`/openapi.json`, `/docs`) do not count.";

/** OpenAPI header objects for `RateLimit-Policy` and `RateLimit`, carried by every answer of the free server. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description: `The free plan's quotas (draft-ietf-httpapi-ratelimit-headers): always \`${rateLimitPolicyField()}\`, i.e. at most 10 requests in any 10 seconds and 60 in any minute, per client address (IPv6 by /64). ${COUNTED}`,
    schema: { type: 'string' as const, example: rateLimitPolicyField() },
  },
  RateLimit: {
    description: `The quota nearest to exhaustion: \`r\` requests left in its window, and \`t\` seconds until the oldest request counted in the window leaves it (0 when none is counted). ${COUNTED}`,
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
