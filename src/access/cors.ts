/**
 * @module CORS for whitelisted websites (docs/accounts.md, "Origins"): the paid servers answer cross-origin
 * reads, and preflights, only for an `Origin` whose exact hostname an account whitelists. No cookies
 * are used, so credentials are never allowed; a website needs no key, its origin is its credential.
 */

/** Methods a whitelisted website may use. */
export const CORS_METHODS = 'GET, HEAD, POST, OPTIONS';
/** Request headers a whitelisted website may send (`Content-Type: application/json` for bulk and distance). */
export const CORS_REQUEST_HEADERS = 'Authorization, Content-Type';
/** How long a browser may reuse a preflight answer, in seconds (access itself is checked on every request). */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * Whether a request is a CORS preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`
 * (Fetch standard, "CORS-preflight request").
 */
export function isPreflight(method: string, header: (name: string) => string | undefined): boolean {
  return method === 'OPTIONS' && header('Origin') !== undefined && header('Access-Control-Request-Method') !== undefined;
}

/** Headers of every `/api/*` answer of a paid server: the answer depends on `Origin`, so caches must key on it. */
export function varyOnOrigin(): Record<string, string> {
  return { Vary: 'Origin' };
}

/** Headers of an actual (non-preflight) answer to a whitelisted `origin`. */
export function corsHeaders(origin: string): Record<string, string> {
  return { 'Access-Control-Allow-Origin': origin, ...varyOnOrigin() };
}

/** Headers of a preflight answer (204) to a whitelisted `origin`. */
export function preflightHeaders(origin: string): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': CORS_METHODS,
    'Access-Control-Allow-Headers': CORS_REQUEST_HEADERS,
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
    Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  };
}
