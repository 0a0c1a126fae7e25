/**
 * @module The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers) on every answer of
 * the free server (docs/api.md, "Conventions"): `RateLimit-Policy: "burst";q=10;w=10,
 * "minute";q=60;w=60` and `RateLimit: "burst";r=7;t=4`, which names the policy nearest to exhaustion
 * (fewest requests left; on a tie, the slower to give one back). A refusal adds `Retry-After`.
 */
import { FREE_POLICIES, type LimitDecision, type Policy, type PolicyState } from './window.ts';

/** `RateLimit-Policy` for a set of policies, e.g. `"burst";q=10;w=10, "minute";q=60;w=60`. */
export function rateLimitPolicyField(policies: readonly Policy[] = FREE_POLICIES): string {
  return policies === FREE_POLICIES ? FREE_POLICY_FIELD : policyField(policies);
}

function policyField(policies: readonly Policy[]): string {
  return policies.map((policy) => `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`).join(', ');
}

/** The free plan's field, built once: every free answer carries it. */
const FREE_POLICY_FIELD = policyField(FREE_POLICIES);

/** The policy nearest to exhaustion among those of a decision, or undefined when there are none. */
export function nearestPolicy(decision: LimitDecision): PolicyState | undefined {
  let nearest: PolicyState | undefined;
  for (const state of decision.policies) {
    if (nearest === undefined || state.remaining < nearest.remaining || (state.remaining === nearest.remaining && state.resetSeconds > nearest.resetSeconds)) {
      nearest = state;
    }
  }
  return nearest;
}

/**
 * The header fields of an answer under `decision`: `RateLimit-Policy` and `RateLimit`, plus
 * `Retry-After` (seconds) when the request was refused.
 *
 * @example rateLimitHeaders(decision) // { 'RateLimit-Policy': '"burst";q=10;w=10, …', RateLimit: '"burst";r=9;t=10' }
 */
export function rateLimitHeaders(decision: LimitDecision, policies: readonly Policy[] = FREE_POLICIES): Record<string, string> {
  const headers: Record<string, string> = { 'RateLimit-Policy': rateLimitPolicyField(policies) };
  const nearest = nearestPolicy(decision);
  if (nearest) headers.RateLimit = `"${nearest.name}";r=${nearest.remaining};t=${nearest.resetSeconds}`;
  if (!decision.allowed) headers['Retry-After'] = String(decision.retryAfterSeconds);
  return headers;
}
