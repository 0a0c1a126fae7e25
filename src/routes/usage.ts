/**
 * @module `GET /api/usage` (paid only): the account's use today and this month, across the paid
 * deployments, with its quotas (docs/api.md, "Usage and quotas"). It answers a secret credential only
 * (an API key or a whitelisted server address: a website's `Origin` anyone can send), is not counted,
 * and reads the ledger at most once a second per isolate and account (`usage/reads.ts`). While the
 * usage store cannot be read it answers 503 `USAGE_UNAVAILABLE`.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { WEBSITE_CREDENTIAL_PREFIX } from '../access/check.ts';
import type { AppEnv } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { reportEvent, whyOf } from '../events/operational.ts';
import { problemResponses } from '../schemas/problem.ts';
import { UsageSchema } from '../schemas/usage.ts';
import type { IsolateUsage } from '../usage/isolate.ts';
import { isoSeconds, usageStoreOf } from '../usage/middleware.ts';
import { nextDayStart, nextMonthStart } from '../usage/period.ts';
import { LedgerUnreadableError } from '../usage/reads.ts';

/** Seconds a client is asked to wait (`Retry-After`) when the usage store cannot be read. */
const USAGE_RETRY_AFTER_SECONDS = 5;

const usageRoute = createRoute({
  method: 'get',
  path: '/api/usage',
  tags: ['Usage'],
  summary: "The account's usage and quotas",
  description:
    "What the account of the credential has used today and this month (UTC), across every paid deployment: successful requests and their lookups, problem answers, and lookups of answers authenticated by a whitelisted website alone; with the account's quotas and what is left of them (null where it has none). Answers an API key or a whitelisted server address only: a request that a whitelisted website alone authenticates is refused with 403 `SECRET_CREDENTIAL_REQUIRED`, since anyone can send a website's `Origin`. Read from the usage store at most once a second per server isolate: two calls within a second may answer the same figures. This request is not counted.",
  responses: {
    200: {
      description: "The account's usage.",
      headers: {
        'Cache-Control': { description: '`no-store`: the counts change with every request.', schema: { type: 'string', const: 'no-store' }, required: true },
      },
      content: { 'application/json': { schema: UsageSchema } },
    },
    ...problemResponses(['SECRET_CREDENTIAL_REQUIRED', 'USAGE_UNAVAILABLE']),
  },
});

/**
 * Registers `GET /api/usage` on a paid app.
 *
 * @param usage the isolate's usage state, the usage gate's.
 */
export function registerUsageRoute(app: OpenAPIHono<AppEnv>, usage: IsolateUsage): void {
  app.openapi(usageRoute, async (c) => {
    const grant = c.get('paidGrant');
    if (grant === undefined) throw new Error('GET /api/usage ran without a grant of the access gate');
    if (grant.credential.startsWith(WEBSITE_CREDENTIAL_PREFIX)) {
      throw new ProblemError(
        'SECRET_CREDENTIAL_REQUIRED',
        "The account's usage is read with an API key or from a whitelisted server address: a website's Origin is not a secret, any client can send it.",
      );
    }
    try {
      await usage.reads.fresh(grant.accountId, { ctx: c.executionCtx, store: usageStoreOf(c.env) });
    } catch (error) {
      if (!(error instanceof LedgerUnreadableError)) throw error;
      reportEvent({ event: 'usage-read-failed', status: 503, account: grant.accountId, why: whyOf(error) }, c.req.raw);
      throw new ProblemError('USAGE_UNAVAILABLE', 'The usage data cannot be read at the moment. Try again shortly.', {
        headers: { 'Retry-After': String(USAGE_RETRY_AFTER_SECONDS) },
      });
    }
    const { day, dayTotals, month, monthTotals } = usage.totalsOf(grant.accountId);
    const monthly = grant.quotas?.monthly ?? null;
    const dailyWebsite = grant.quotas?.dailyWebsite ?? null;
    const monthlyWebsite = grant.quotas?.monthlyWebsite ?? null;
    const left = (quota: number | null, used: number) => (quota === null ? null : Math.max(0, quota - used));
    c.header('Cache-Control', 'no-store');
    return c.json(
      {
        account: grant.accountId,
        day: {
          start: day,
          requests: dayTotals.requests,
          lookups: dayTotals.lookups,
          problems: dayTotals.problems,
          websiteLookups: dayTotals.websiteLookups,
          websiteQuota: dailyWebsite,
          websiteRemaining: left(dailyWebsite, dayTotals.websiteLookups),
          resetsAt: isoSeconds(nextDayStart(day)),
        },
        month: {
          start: month,
          requests: monthTotals.requests,
          lookups: monthTotals.lookups,
          problems: monthTotals.problems,
          quota: monthly,
          remaining: left(monthly, monthTotals.lookups - monthTotals.websiteLookups),
          websiteLookups: monthTotals.websiteLookups,
          websiteQuota: monthlyWebsite,
          websiteRemaining: left(monthlyWebsite, monthTotals.websiteLookups),
          resetsAt: isoSeconds(nextMonthStart(day)),
        },
      },
      200,
    );
  });
}
