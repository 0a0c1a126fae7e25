/**
 * @module `GET /api/usage` (paid only): the account's use today and this month, across the paid
 * deployments, with its quotas (docs/api.md, "Usage and quotas"). Authenticated like any paid request, and not
 * counted itself. While the usage store cannot be read it answers 503 `USAGE_UNAVAILABLE`.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { paidGrantOf } from '../access/middleware.ts';
import type { AppEnv } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { reportEvent, whyOf } from '../events/operational.ts';
import { problemResponses } from '../schemas/problem.ts';
import { UsageSchema } from '../schemas/usage.ts';
import { isoSeconds, usageOf } from '../usage/middleware.ts';
import { nextDayStart, nextMonthStart } from '../usage/period.ts';

/** Seconds a client is asked to wait (`Retry-After`) when the usage store cannot be read. */
const USAGE_RETRY_AFTER_SECONDS = 5;

const usageRoute = createRoute({
  method: 'get',
  path: '/api/usage',
  tags: ['Usage'],
  summary: "The account's usage and quotas",
  description:
    "What the account of the credential has used today and this month (UTC), across every paid deployment: successful requests and their lookups, problem answers, and lookups of answers authenticated by a whitelisted website alone; with the account's quotas and what is left of them (null where it has none). This request is not counted.",
  responses: {
    200: {
      description: "The account's usage.",
      headers: {
        'Cache-Control': { description: '`no-store`: the counts change with every request.', schema: { type: 'string', const: 'no-store' }, required: true },
      },
      content: { 'application/json': { schema: UsageSchema } },
    },
    ...problemResponses(['USAGE_UNAVAILABLE']),
  },
});

/** Registers `GET /api/usage` on a paid app. */
export function registerUsageRoute(app: OpenAPIHono<AppEnv>): void {
  app.openapi(usageRoute, async (c) => {
    const grant = paidGrantOf(c);
    if (grant === undefined) throw new Error('GET /api/usage ran without a grant of the access gate');
    let totals: Awaited<ReturnType<typeof usageOf>>;
    try {
      totals = await usageOf(grant, c.env);
    } catch (error) {
      reportEvent({ event: 'usage-read-failed', status: 503, account: grant.accountId, why: whyOf(error) }, c.req.raw);
      throw new ProblemError('USAGE_UNAVAILABLE', 'The usage data cannot be read at the moment. Try again shortly.', {
        headers: { 'Retry-After': String(USAGE_RETRY_AFTER_SECONDS) },
      });
    }
    const { day, dayTotals, month, monthTotals } = totals;
    const dailyWebsite = grant.quotas?.dailyWebsite ?? null;
    const monthly = grant.quotas?.monthly ?? null;
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
          remaining: left(monthly, monthTotals.lookups),
          resetsAt: isoSeconds(nextMonthStart(day)),
        },
      },
      200,
    );
  });
}
