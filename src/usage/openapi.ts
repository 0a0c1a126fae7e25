/**
 * @module How an account's quotas appear in the paid servers' OpenAPI document: the RateLimit fields
 * that every counted answer carries while a quota binds its request (`middleware.ts`).
 */

const WHEN = 'Only on answers to an account with a quota that binds the request (`npm run accounts -- set-quota`); absent otherwise.';

/** OpenAPI header objects for `RateLimit-Policy` and `RateLimit` on the paid servers. */
export const QUOTA_HEADERS = {
  'RateLimit-Policy': {
    description: `The account's quotas that bind this request (draft-ietf-httpapi-ratelimit-headers), counted in lookups: for a request with an API key or from a whitelisted server address \`"monthly";q=<lookups>;w=<seconds in this UTC month>\`; for a request that a whitelisted website alone authenticated \`"daily-website";q=<lookups>;w=86400\` and \`"monthly-website";q=<lookups>;w=<seconds in this UTC month>\`, whichever the account has. ${WHEN}`,
    schema: { type: 'string' as const, example: '"monthly";q=1000000;w=2592000' },
  },
  RateLimit: {
    description: `The quota nearest to exhaustion: \`r\` lookups left in its period after this answer, and \`t\` seconds until the period resets (the next UTC month or day). ${WHEN}`,
    schema: { type: 'string' as const, example: '"monthly";r=958978;t=345600' },
  },
};
