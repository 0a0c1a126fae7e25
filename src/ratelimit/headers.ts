/**
 * @module The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers) on every counted
 * answer of the free server (docs/api.md, "The free plan's limits"): `RateLimit-Policy` lists the
 * client's policies (`"burst";q=10;w=10, "minute";q=60;w=60`, and for IPv6 those of its /56 and /48
 * too) and `RateLimit: "burst";r=7;t=4` names the one nearest to exhaustion (`window.ts`). A refusal
 * adds `Retry-After`. A paid account's quotas are told in the same fields (`usage/quota.ts`).
 */
import { CLIENT_POLICIES, IPV6_POLICIES, type Policy } from './window.ts';

/** What the fields tell of a policy: the free plan's limits and a paid account's quotas alike. */
export type FieldPolicy = Pick<Policy, 'name' | 'quota' | 'windowSeconds'>;

/** A decision as the fields tell it: the free plan's `LimitDecision` (`window.ts`), or a paid account's quota decision. */
export interface FieldDecision {
  readonly allowed: boolean;
  /** Whole seconds until a request would be admitted; 0 when allowed. */
  readonly retryAfterSeconds: number;
  /** The policy that the `RateLimit` field names, with its requests left and whole seconds until it gives one back. */
  readonly binding: { readonly policy: FieldPolicy; readonly remaining: number; readonly resetSeconds: number };
}

/** `RateLimit-Policy` of a set of policies, e.g. `"burst";q=10;w=10, "minute";q=60;w=60`. */
export function rateLimitPolicyField(policies: readonly FieldPolicy[] = CLIENT_POLICIES): string {
  return POLICY_FIELDS.get(policies) ?? policyField(policies);
}

function policyField(policies: readonly FieldPolicy[]): string {
  return policies.map((policy) => `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`).join(', ');
}

/** The fields of the free plan's two sets, built once: every counted answer carries one. */
const POLICY_FIELDS = new Map<readonly FieldPolicy[], string>([CLIENT_POLICIES, IPV6_POLICIES].map((policies) => [policies, policyField(policies)]));

/**
 * The header fields of an answer under `decision`: `RateLimit-Policy` and `RateLimit`, plus
 * `Retry-After` (seconds) when the request was refused.
 *
 * @param policies the client's policies, those the decision was made under.
 * @example rateLimitHeaders(decision, CLIENT_POLICIES) // { 'RateLimit-Policy': '"burst";q=10;w=10, …', RateLimit: '"burst";r=9;t=10' }
 */
export function rateLimitHeaders(decision: FieldDecision, policies: readonly FieldPolicy[]): Record<string, string> {
  const { policy, remaining, resetSeconds } = decision.binding;
  const headers: Record<string, string> = {
    'RateLimit-Policy': rateLimitPolicyField(policies),
    RateLimit: `"${policy.name}";r=${remaining};t=${resetSeconds}`,
  };
  if (!decision.allowed) headers['Retry-After'] = String(decision.retryAfterSeconds);
  return headers;
}
