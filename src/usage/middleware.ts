/**
 * @module The paid servers' usage gate, after the access gate (docs/api.md, "Usage and quotas"): counts every
 * answer to a granted request of a counted kind for its account (a success with its lookups, a 4xx as
 * a problem, a 5xx not at all), and enforces the account's quotas, if it has any: once this isolate
 * knows the account's totals (`reads.ts`), a request is admitted before anything is looked up when its
 * lookups fit (a bulk's, told by its route through {@link admitLookups}). `GET /api/usage` is not counted.
 */

import type { Context, MiddlewareHandler } from 'hono';
import { WEBSITE_CREDENTIAL_PREFIX } from '../access/check.ts';
import type { AppEnv } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { lookupKindOf } from '../http/paths.ts';
import { rateLimitHeaders } from '../ratelimit/headers.ts';
import type { IsolateUsage } from './isolate.ts';
import type { UsageLedger } from './ledger.ts';
import { bindingQuotas, decideQuota, type QuotaDecision, type QuotaPolicy } from './quota.ts';
import type { UsageKind } from './wire.ts';

declare module '../env.ts' {
  interface AppVariables {
    /** Set by the usage gate on a counted bulk request: {@link admitLookups} calls it. */
    usageAdmission?: (lookups: number) => void;
  }
}

/** The lookups of a success of each kind but bulk, whose route tells its own ({@link admitLookups}). */
const LOOKUPS: Readonly<Record<Exclude<UsageKind, 'bulk'>, number>> = { single: 1, distance: 2, reference: 0, asn: 1 };

/** The kind of a paid path that is counted, or null: `/api/usage`, the open paths and paths of no route are not. */
export function usageKindOf(path: string): UsageKind | null {
  const lookup = lookupKindOf('paid', path);
  if (lookup !== null) return lookup;
  if (/^\/api\/(?:countries|languages|phonecodes|timezones)(?:\/|$)/.test(path)) return 'reference';
  if (/^\/api\/asn(?:\/|$)/.test(path)) return 'asn';
  return null;
}

/**
 * Tells the usage gate how many lookups a bulk request will make (its distinct addresses), before it
 * makes any. Nothing on a request that the gate does not count.
 *
 * @throws {ProblemError} `QUOTA_EXCEEDED` when they do not fit in a quota of the account.
 */
export function admitLookups(c: Context<AppEnv>, lookups: number): void {
  c.get('usageAdmission')?.(lookups);
}

/**
 * The usage store's binding.
 *
 * @throws {Error} on a deployment without it: a paid deployment of `wrangler.toml` always has it.
 */
export function usageStoreOf(env: AppEnv['Bindings']): DurableObjectNamespace<UsageLedger> {
  if (env.USAGE === undefined) throw new Error('this paid deployment has no USAGE binding (wrangler.toml)');
  return env.USAGE as unknown as DurableObjectNamespace<UsageLedger>;
}

/**
 * Hono middleware of the paid plan, after the access gate.
 *
 * @param usage the isolate's usage state (one per app).
 * @throws {ProblemError} `QUOTA_EXCEEDED` (429, with `Retry-After` and the RateLimit fields) when the
 *   request's lookups do not fit in a quota that binds it.
 */
export function usageGate(usage: IsolateUsage): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const grant = c.get('paidGrant');
    const kind = grant === undefined ? null : usageKindOf(c.req.path);
    if (grant === undefined || kind === null) return next();
    const request = { ctx: c.executionCtx, store: usageStoreOf(c.env) };
    const account = grant.accountId;
    const count = (outcome: 'success' | 'problem', lookups: number) =>
      usage.recorder.record({ account, deployment: c.env.REGION, kind, credential: grant.credential, outcome, lookups }, request);
    const website = grant.credential.startsWith(WEBSITE_CREDENTIAL_PREFIX);
    const quotas = bindingQuotas(grant.quotas, website, usage.recorder.today());
    /** What was admitted: the decision (null without quotas), and the lookups noted as admitted until the answer is counted. */
    const admission: { decision: QuotaDecision | null; lookups: number; noted: number } = {
      decision: null,
      lookups: kind === 'bulk' ? 0 : LOOKUPS[kind],
      noted: 0,
    };
    if (quotas.length > 0) {
      // No request of the account is decided before the isolate knows its totals (or gave up waiting for them).
      await usage.reads.known(account, request);
      const admit = (lookups: number) => {
        const decision = decideQuota(quotas, usage.used(account), lookups, Date.now());
        if (!decision.allowed) throw quotaExceeded(decision, quotas);
        usage.admit(account, website, lookups);
        Object.assign(admission, { decision, lookups, noted: lookups });
      };
      try {
        // A bulk is refused before its body is read when not even one lookup fits; else its route tells its lookups.
        if (kind === 'bulk') {
          const least = decideQuota(quotas, usage.used(account), 1, Date.now());
          if (!least.allowed) throw quotaExceeded(least, quotas);
          c.set('usageAdmission', admit);
        } else {
          admit(admission.lookups);
        }
      } catch (error) {
        count('problem', 0);
        throw error;
      }
    } else if (kind === 'bulk') {
      c.set('usageAdmission', (lookups: number) => {
        admission.lookups = lookups;
      });
    }
    try {
      await next();
    } finally {
      if (admission.noted > 0) usage.settle(account, website, admission.noted);
    }
    // Counted with no await since the admission was settled: exact within the isolate.
    const { status } = c.res;
    if (status >= 500) return;
    if (status >= 400) {
      count('problem', 0);
      return;
    }
    count('success', admission.lookups);
    if (admission.decision !== null) for (const [name, value] of Object.entries(rateLimitHeaders(admission.decision, quotas))) c.header(name, value);
  };
}

/** The 429 of a refused request: which quota, how much of it is left, and when it resets. */
function quotaExceeded(decision: QuotaDecision, quotas: readonly QuotaPolicy[]): ProblemError {
  const { policy: quota, remaining } = decision.binding;
  const resetsAt = isoSeconds(quota.resetsAt);
  const what = {
    monthly: 'monthly quota of lookups by its keys and whitelisted server addresses',
    'daily-website': 'daily quota of lookups authenticated by a whitelisted website alone',
    'monthly-website': 'monthly quota of lookups authenticated by a whitelisted website alone',
  }[quota.name];
  return new ProblemError(
    'QUOTA_EXCEEDED',
    `The lookups of this request do not fit in the account's ${what}, ${quota.quota}: ${remaining} left until ${resetsAt}.`,
    {
      headers: rateLimitHeaders(decision, quotas),
      extensions: { quota: quota.name, limit: quota.quota, remaining, resetsAt },
    },
  );
}

/** An instant as ISO 8601 in UTC to the second, e.g. `2026-12-01T00:00:00Z`. */
export function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}
