/**
 * @module How paid-server access appears in the OpenAPI document: the problems that the access check
 * answers before any paid route runs, and the bearer security scheme. For route definitions, e.g.
 * `responses: { …, ...problemResponses([...OWN_PROBLEMS, ...ACCESS_PROBLEMS]) }`.
 */

/** The problems every paid route may answer because of its credentials (`access/middleware.ts`). */
export const ACCESS_PROBLEMS = [
  'AUTHORIZATION_REQUIRED',
  'AUTHORIZATION_INVALID',
  'SUBSCRIPTION_INACTIVE',
  'ORIGIN_FORBIDDEN',
  'ACCOUNTS_UNAVAILABLE',
] as const;

/** The name under which {@link BEARER_SECURITY_SCHEME} is registered (`components.securitySchemes`). */
export const BEARER_SECURITY_NAME = 'apiKey';

/** An OpenAPI security scheme object for `Authorization: Bearer <API key>`. */
export const BEARER_SECURITY_SCHEME = {
  type: 'http' as const,
  scheme: 'bearer',
  description:
    'An API key (`ipgeo_…`) of an active account, for backend code. Instead of a key, a request may come from a whitelisted server address, or carry the `Origin` of a whitelisted website; see docs/accounts.md.',
};
