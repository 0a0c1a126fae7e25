/**
 * @module The answer of `GET /api/usage` as a zod schema for the OpenAPI document: an account's use
 * today and this month (UTC), across the paid deployments, with its quotas where it has any.
 */
import { z } from '@hono/zod-openapi';

const count = (description: string, example: number) => z.number().int().nonnegative().openapi({ description, example });
const resetsAt = (example: string) =>
  z.string().openapi({ description: 'When the period ends and the next begins, RFC 3339, UTC (`YYYY-MM-DDT00:00:00Z`).', example });
const requests = count('Successful answers (2xx) counted in the period.', 56);
const lookups = (example: number) =>
  count('Addresses looked up by those answers: a single lookup 1, a bulk its distinct addresses, a distance 2, reference data 0.', example);
const problems = count('Problem answers (4xx) counted in the period, refusals over a quota included; 5xx are not counted.', 4);

/** The answer. */
export const UsageSchema = z
  .object({
    account: z.string().openapi({ description: 'The account the credential belongs to.', example: 'acme' }),
    day: z
      .object({
        start: z.string().openapi({ description: 'Today, UTC (`YYYY-MM-DD`).', example: '2026-11-27' }),
        requests,
        lookups: lookups(150),
        problems,
        websiteLookups: count('Lookups of answers authenticated by a whitelisted website alone (no key, not a whitelisted server address).', 12),
        websiteQuota: count('The daily quota of those lookups, or null when the account has none.', 1000).nullable(),
        websiteRemaining: count('What is left of it today, or null when there is no such quota.', 988).nullable(),
        resetsAt: resetsAt('2026-11-28T00:00:00Z'),
      })
      .openapi({ description: 'The current UTC day.' }),
    month: z
      .object({
        start: z.string().openapi({ description: "The month's first day, UTC (`YYYY-MM-01`).", example: '2026-11-01' }),
        requests: count('Successful answers (2xx) counted in the period.', 9060),
        lookups: lookups(41022),
        problems: count('Problem answers (4xx) counted in the period, refusals over a quota included; 5xx are not counted.', 31),
        quota: count(
          "The monthly quota of lookups authenticated by the account's keys and whitelisted server addresses (website lookups do not count against it), or null when the account has none.",
          1000000,
        ).nullable(),
        remaining: count('What is left of it this month, or null when there is no quota.', 959122).nullable(),
        websiteLookups: count('Lookups of answers authenticated by a whitelisted website alone this month.', 144),
        websiteQuota: count('The monthly quota of those lookups, or null when the account has none.', 20000).nullable(),
        websiteRemaining: count('What is left of it this month, or null when there is no such quota.', 19856).nullable(),
        resetsAt: resetsAt('2026-12-01T00:00:00Z'),
      })
      .openapi({ description: 'The current UTC calendar month.' }),
  })
  .openapi('Usage', {
    description:
      "The account's use across every paid deployment, as the usage store holds it when read (each server writes its counts once a second), with this server's own counts not yet written.",
  });
