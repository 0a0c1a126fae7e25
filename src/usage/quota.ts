/**
 * @module An account's optional quotas (docs/accounts.md, "Quotas"): lookups per UTC calendar month,
 * and lookups per UTC day of answers that a whitelisted website alone authenticated. A request is
 * admitted when its lookups fit in every quota that binds it, so a bulk that would cross one is
 * refused whole; its state is told in the IETF RateLimit fields, as the free plan's limits are.
 */
import type { Quotas } from '../access/kv-schema.ts';
import type { FieldDecision, FieldPolicy } from '../ratelimit/headers.ts';
import { nextDayStart, nextMonthStart } from './period.ts';
import type { UsedLookups } from './recorder.ts';

/** A quota that binds a request, as a RateLimit policy, with what it counts and when its period ends. */
export interface QuotaPolicy extends FieldPolicy {
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
    const left = Math.max(0, policy.quota - (policy.name === 'monthly' ? used.month : used.websiteToday));
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
