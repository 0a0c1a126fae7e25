/**
 * @module An account's optional quotas (docs/accounts.md, "Quotas"): lookups per UTC calendar month,
 * and lookups per UTC day of answers that a whitelisted website alone authenticated. A request is
 * admitted when its lookups fit in every quota that binds it, so a bulk that would cross one is
 * refused whole; its state is told in the IETF RateLimit fields, as the free plan's limits are.
 */
import type { Quotas } from '../access/kv-schema.ts';
import type { LimitDecision, Policy } from '../ratelimit/window.ts';
import { nextDayStart, nextMonthStart } from './period.ts';
import type { UsedLookups } from './recorder.ts';

/** A quota that binds a request, as a RateLimit policy, with what it counts and when its period ends. */
export interface QuotaPolicy extends Policy {
  readonly name: 'monthly' | 'daily-website';
  /** The period's end, ms since the epoch. */
  readonly resetsAt: number;
}

/**
 * The quotas that bind a request of `day`: the monthly one, and the daily website one when a website
 * alone authenticated it. Empty when none binds: the request is then neither refused nor told about quotas.
 */
export function bindingQuotas(quotas: Quotas | undefined, website: boolean, day: string): QuotaPolicy[] {
  const policies: QuotaPolicy[] = [];
  if (quotas?.monthly != null) {
    const resetsAt = nextMonthStart(day);
    const windowSeconds = (resetsAt - Date.parse(`${day.slice(0, 7)}-01T00:00:00Z`)) / 1000;
    policies.push({ name: 'monthly', quota: quotas.monthly, windowSeconds, resetsAt });
  }
  if (website && quotas?.dailyWebsite != null)
    policies.push({ name: 'daily-website', quota: quotas.dailyWebsite, windowSeconds: 86_400, resetsAt: nextDayStart(day) });
  return policies;
}

/** A quota decision, shaped as the free plan's (for `ratelimit/headers.ts`), with the quota that refused. */
export interface QuotaDecision extends LimitDecision {
  /** Of the quotas that refused, the one that resets last (what `retryAfterSeconds` waits for); null when admitted. */
  readonly refusedBy: QuotaPolicy | null;
}

/**
 * Whether `lookups` more fit in every policy, given what is `used`, and the state of each after it. A
 * request of no lookups (reference data) always fits.
 *
 * @param now ms since the epoch.
 * @returns `retryAfterSeconds`: when refused, the whole seconds until every policy that refused resets.
 */
export function decideQuota(policies: readonly QuotaPolicy[], used: UsedLookups, lookups: number, now: number): QuotaDecision {
  const left = policies.map((policy) => policy.quota - (policy.name === 'monthly' ? used.month : used.websiteToday));
  const seconds = (policy: QuotaPolicy) => Math.max(1, Math.ceil((policy.resetsAt - now) / 1000));
  let refusedBy: QuotaPolicy | null = null;
  for (const [index, policy] of policies.entries()) {
    if (lookups > Math.max(0, left[index] ?? 0) && (refusedBy === null || policy.resetsAt > refusedBy.resetsAt)) refusedBy = policy;
  }
  return {
    allowed: refusedBy === null,
    retryAfterSeconds: refusedBy === null ? 0 : seconds(refusedBy),
    refusedBy,
    policies: policies.map((policy, index) => ({
      name: policy.name,
      remaining: Math.max(0, (left[index] ?? 0) - (refusedBy === null ? lookups : 0)),
      resetSeconds: seconds(policy),
    })),
  };
}
