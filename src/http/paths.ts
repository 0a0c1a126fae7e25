/**
 * @module The API's paths that more than one layer tells apart: the status endpoint of each plan, the
 * lookup paths (one address, a bulk, a distance) that the version header, the counting and the
 * quotas go by, and the format of a path's answers. The routes (`src/routes/`) register the same
 * paths. It imports nothing, so that the Node tools (`scripts/deploy.ts`) can use it too.
 */

/** The two plans, as `src/env.ts` names them (`Plan`). */
type Plan = 'free' | 'paid';

/** The status endpoint of each plan (`routes/status.ts`): open on both, and not counted on the free one. */
export const STATUS_PATHS: Readonly<Record<Plan, string>> = Object.freeze({ free: '/api/v1/status', paid: '/api/status' });

/** What a lookup path looks up: one address (`{prefix}/json|xml[/{ip}]`), a bulk of them, or the distance between two. */
export type LookupKind = 'single' | 'bulk' | 'distance';

/** The single lookup's paths of each plan, route patterns included (`/api/v1/json/{ip}`); the free server's legacy `/api/json|xml` too. */
const SINGLE_PATHS: Readonly<Record<Plan, RegExp>> = {
  free: /^\/api(?:\/v1)?\/(?:json|xml)(?:\/|$)/,
  paid: /^\/api\/(?:json|xml)(?:\/|$)/,
};
/** Paid servers only: the free server's `/api/bulk/…` and `/api/distance` only refuse (`routes/paid-only.ts`). */
const BULK_PATH = /^\/api\/bulk\/(?:json|xml)\/?$/;
const DISTANCE_PATH = /^\/api\/distance\/?$/;

/**
 * The lookup that `path` asks of a server of `plan`, or null when it is no lookup path.
 *
 * @example lookupKindOf('free', '/api/v1/xml/8.8.8.8') // 'single'
 * @example lookupKindOf('free', '/api/bulk/json') // null: the free server only refuses it
 */
export function lookupKindOf(plan: Plan, path: string): LookupKind | null {
  if (SINGLE_PATHS[plan].test(path)) return 'single';
  if (plan === 'free') return null;
  if (BULK_PATH.test(path)) return 'bulk';
  return DISTANCE_PATH.test(path) ? 'distance' : null;
}

/** The format a path answers in, problems included: XML on the XML routes (`…/xml`, `…/xml/{ip}`, `/api/bulk/xml`), else JSON. */
export function formatOf(path: string): 'json' | 'xml' {
  return /\/xml(\/|$)/.test(path) ? 'xml' : 'json';
}
