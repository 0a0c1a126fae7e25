/**
 * @module The paid servers' usage gate, after the access gate (docs/api.md, "Usage and quotas"): counts every
 * answer to a granted request of a counted kind for its account (a success with its lookups, a 4xx as
 * a problem, a 5xx not at all), and enforces the account's quotas, if it has any, on what this isolate
 * knows of its use (`recorder.ts`). `GET /api/usage` is not counted; it reads the account's totals.
 */

import type { Context, MiddlewareHandler } from 'hono';
import { WEBSITE_CREDENTIAL_PREFIX } from '../access/check.ts';
import { type PaidGrant, paidGrantOf } from '../access/middleware.ts';
import type { AppEnv } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { problemAnswer } from '../errors/render.ts';
import { rateLimitHeaders } from '../ratelimit/headers.ts';
import type { UsageLedger } from './ledger.ts';
import { bindingQuotas, decideQuota, type QuotaDecision, type QuotaPolicy } from './quota.ts';
import { type RecordingRequest, UsageRecorder } from './recorder.ts';
import type { AccountTotals, UsageKind } from './wire.ts';

const recorder = new UsageRecorder();

/** The lookups of a success of each kind but bulk, whose route tells its own ({@link countLookups}). */
const LOOKUPS: Readonly<Record<Exclude<UsageKind, 'bulk'>, number>> = { single: 1, distance: 2, reference: 0, asn: 1 };

/** The kind of a paid path that is counted, or null: `/api/usage`, the open paths and paths of no route are not. */
export function usageKindOf(path: string): UsageKind | null {
  if (/^\/api\/(?:json|xml)(?:\/|$)/.test(path)) return 'single';
  if (/^\/api\/bulk\/(?:json|xml)\/?$/.test(path)) return 'bulk';
  if (/^\/api\/distance\/?$/.test(path)) return 'distance';
  if (/^\/api\/(?:countries|languages|phonecodes|timezones)(?:\/|$)/.test(path)) return 'reference';
  if (/^\/api\/asn(?:\/|$)/.test(path)) return 'asn';
  return null;
}

/** The context variable in which a bulk route tells its lookups. */
interface UsageEnv extends AppEnv {
  Variables: { usageLookups: number };
}

/** Tells the usage gate how many lookups a successful bulk answer made (its distinct addresses). */
export function countLookups(c: Context, lookups: number): void {
  (c as unknown as Context<UsageEnv>).set('usageLookups', lookups);
}

/**
 * The usage store's binding.
 *
 * @throws {Error} on a deployment without it: a paid deployment of `wrangler.toml` always has it.
 */
function storeOf(env: AppEnv['Bindings']): DurableObjectNamespace<UsageLedger> {
  if (env.USAGE === undefined) throw new Error('this paid deployment has no USAGE binding (wrangler.toml)');
  return env.USAGE as unknown as DurableObjectNamespace<UsageLedger>;
}

/**
 * Hono middleware of the paid plan, after the access gate.
 *
 * @throws {ProblemError} `QUOTA_EXCEEDED` (429, with `Retry-After` and the RateLimit fields) when the
 *   account has used a quota that binds the request.
 */
export function usageGate(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const grant = paidGrantOf(c);
    const kind = grant === undefined ? null : usageKindOf(c.req.path);
    if (grant === undefined || kind === null) return next();
    const request: RecordingRequest = { ctx: c.executionCtx, store: storeOf(c.env) };
    const count = (outcome: 'success' | 'problem', lookups: number) =>
      recorder.record({ account: grant.accountId, deployment: c.env.REGION, kind, credential: grant.credential, outcome, lookups }, request);
    const quotas = bindingQuotas(grant.quotas, grant.credential.startsWith(WEBSITE_CREDENTIAL_PREFIX), recorder.today());
    // Refused before the route when not even its least use fits (a bulk's is one lookup).
    if (quotas.length > 0) {
      const early = decideQuota(quotas, recorder.used(grant.accountId), kind === 'bulk' ? 1 : LOOKUPS[kind], Date.now());
      if (!early.allowed) {
        count('problem', 0);
        throw quotaExceeded(early, quotas);
      }
    }
    await next();
    const { status } = c.res;
    if (status >= 500) return;
    if (status >= 400) {
      count('problem', 0);
      return;
    }
    const lookups = kind === 'bulk' ? ((c as unknown as Context<UsageEnv>).get('usageLookups') ?? 0) : LOOKUPS[kind];
    if (quotas.length === 0) {
      count('success', lookups);
      return;
    }
    // Decided again with the answer's own lookups, and counted with no await in between: exact within the isolate.
    const decision = decideQuota(quotas, recorder.used(grant.accountId), lookups, Date.now());
    if (!decision.allowed) {
      count('problem', 0);
      c.res = undefined;
      c.res = problemAnswer(quotaExceeded(decision, quotas), c);
      return;
    }
    count('success', lookups);
    for (const [name, value] of Object.entries(rateLimitHeaders(decision, quotas))) c.header(name, value);
  };
}

/** The 429 of a refused request: which quota, how much of it is left, and when it resets. */
function quotaExceeded(decision: QuotaDecision, quotas: readonly QuotaPolicy[]): ProblemError {
  const { policy: quota, remaining } = decision.binding;
  const resetsAt = isoSeconds(quota.resetsAt);
  const what = quota.name === 'monthly' ? 'monthly quota' : 'daily quota of lookups authenticated by a whitelisted website alone';
  return new ProblemError(
    'QUOTA_EXCEEDED',
    `The lookups of this request do not fit in the account's ${what} of ${quota.quota}: ${remaining} left until ${resetsAt}.`,
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

/**
 * The account's usage today and this month (`GET /api/usage`): the store's totals with this isolate's
 * counts that it has not applied yet.
 *
 * @throws {Error} when the store cannot be read (the route answers 503 `USAGE_UNAVAILABLE`).
 */
export function usageOf(grant: PaidGrant, env: AppEnv['Bindings']): Promise<AccountTotals> {
  return recorder.totals(grant.accountId, storeOf(env));
}
