/**
 * @module An account's optional quotas (docs/accounts.md, "Quotas"): lookups per UTC calendar month of
 * its keys and whitelisted server addresses; and, apart, lookups per UTC day and per month of answers
 * that a whitelisted website alone authenticated, so that website traffic (whose `Origin` anyone can
 * send) never spends what the keys need. A request is admitted when its lookups fit in every quota
 * that binds it, so a bulk that would cross one is refused whole; its state is told in the IETF
 * RateLimit fields, as the free plan's limits are.
 */
import type { Quotas } from '../access/kv-schema.ts';
import type { FieldDecision, FieldPolicy } from '../ratelimit/headers.ts';
import { nextDayStart, nextMonthStart } from './period.ts';

/** The quotas there are, by their names in the RateLimit fields and the 429 problem. */
type QuotaName = 'monthly' | 'daily-website' | 'monthly-website';

/** A quota that binds a request, as a RateLimit policy, with what it counts and when its period ends. */
export interface QuotaPolicy extends FieldPolicy {
  readonly name: QuotaName;
  /** The period's end, ms since the epoch. */
  readonly resetsAt: number;
}

/** What the quotas are decided on: an account's lookups in this period as far as the isolate knows, each quota's own. */
export interface UsedLookups {
  /** Lookups this month authenticated by a key or a whitelisted server address (the `monthly` quota's). */
  readonly month: number;
  /** Lookups today and this month authenticated by a whitelisted website alone (`daily-website`, `monthly-website`). */
  readonly websiteToday: number;
  readonly websiteMonth: number;
}

/**
 * The quotas that bind a request of `day`: for a key or a whitelisted server address the monthly one;
 * for a request that a website alone authenticated the daily and the monthly website ones. Empty when
 * none binds: the request is then neither refused nor told about quotas.
 */
export function bindingQuotas(quotas: Quotas | undefined, website: boolean, day: string): QuotaPolicy[] {
  const policies: QuotaPolicy[] = [];
  const month = (name: QuotaName, quota: number): QuotaPolicy => {
    const resetsAt = nextMonthStart(day);
    return { name, quota, windowSeconds: (resetsAt - Date.parse(`${day.slice(0, 7)}-01T00:00:00Z`)) / 1000, resetsAt };
  };
  if (!website) {
    if (quotas?.monthly != null) policies.push(month('monthly', quotas.monthly));
    return policies;
  }
  if (quotas?.dailyWebsite != null) policies.push({ name: 'daily-website', quota: quotas.dailyWebsite, windowSeconds: 86_400, resetsAt: nextDayStart(day) });
  if (quotas?.monthlyWebsite != null) policies.push(month('monthly-website', quotas.monthlyWebsite));
  return policies;
}

/** What `policy` counts of `used`. */
function usedOf(policy: QuotaPolicy, used: UsedLookups): number {
  switch (policy.name) {
    case 'monthly':
      return used.month;
    case 'daily-website':
      return used.websiteToday;
    case 'monthly-website':
      return used.websiteMonth;
    default:
      return policy.name satisfies never;
  }
}

/** Where one quota stands after a decision. */
interface QuotaState {
  readonly policy: QuotaPolicy;
  /** Lookups still admissible in the period (0 when used up). */
  readonly remaining: number;
  /** Whole seconds until the period resets. */
  readonly resetSeconds: number;
}

/** A quota decision, shaped as the free plan's (for `ratelimit/headers.ts`), with the quota that refused. */
export interface QuotaDecision extends FieldDecision {
  /**
   * The quota that the `RateLimit` field names: when refused, the one that refused (of several, the one
   * that resets last); when admitted, the one with the fewest lookups left (on a tie, the later reset).
   */
  readonly binding: QuotaState;
  /** Of the quotas that refused, the one that resets last (what `retryAfterSeconds` waits for); null when admitted. */
  readonly refusedBy: QuotaPolicy | null;
}

/**
 * Whether `lookups` more fit in every policy, given what is `used`, and the state of the binding one
 * after it. A request of no lookups (reference data) always fits.
 *
 * @param policies at least one ({@link bindingQuotas} when it is not empty).
 * @param now ms since the epoch.
 * @returns `retryAfterSeconds`: when refused, the whole seconds until every policy that refused resets.
 * @throws {RangeError} when `policies` is empty.
 */
export function decideQuota(policies: readonly QuotaPolicy[], used: UsedLookups, lookups: number, now: number): QuotaDecision {
  let refused: QuotaState | null = null;
  let nearest: QuotaState | null = null;
  for (const policy of policies) {
    const left = Math.max(0, policy.quota - usedOf(policy, used));
    const fits = lookups <= left;
    const state = { policy, remaining: fits ? left - lookups : left, resetSeconds: Math.max(1, Math.ceil((policy.resetsAt - now) / 1000)) };
    if (!fits && (refused === null || policy.resetsAt > refused.policy.resetsAt)) refused = state;
    if (nearest === null || state.remaining < nearest.remaining || (state.remaining === nearest.remaining && state.resetSeconds > nearest.resetSeconds)) {
      nearest = state;
    }
  }
  if (nearest === null) throw new RangeError('a quota decision needs at least one quota');
  return {
    allowed: refused === null,
    retryAfterSeconds: refused === null ? 0 : refused.resetSeconds,
    binding: refused ?? nearest,
    refusedBy: refused?.policy ?? null,
  };
}
