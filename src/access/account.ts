/**
 * @module What an account allows at a given instant, and the canonical form of a whitelisted website
 * hostname, so that the operator tool (`operator/whitelists.ts`) writes exactly what the Worker looks an
 * `Origin` up by. Server addresses are kept in the canonical form of `ip/address.ts`.
 */
import type { AccountDocument } from './kv-schema.ts';

const DAY_MS = 86_400_000;

/** Whether an account gives access now, and if not, why (the problem detail says which). */
export type Standing = { readonly active: true } | { readonly active: false; readonly reason: 'cancelled' | 'expired'; readonly since: string };

/**
 * The standing of `account` at `now`.
 *
 * An account with `expires: '2027-01-31'` gives access through the end of 31 January 2027, UTC.
 *
 * @param now ms since the epoch.
 */
export function standingOf(account: AccountDocument, now: number): Standing {
  if (account.status === 'cancelled') return { active: false, reason: 'cancelled', since: (account.cancelledAt ?? account.createdAt).slice(0, 10) };
  if (account.expires !== null && now >= Date.parse(`${account.expires}T00:00:00Z`) + DAY_MS) {
    return { active: false, reason: 'expired', since: account.expires };
  }
  return { active: true };
}

/** Input that cannot be stored as given; `message` says why, for the operator. */
export class AccountInputError extends Error {
  override readonly name = 'AccountInputError';
}

/**
 * A hostname as a whitelist holds it (RFC 1035 names, RFC 1123 letters and digits): labels of 1 to 63
 * characters, 253 characters at most in all. `domain:<hostname>` stays within KV's 512-byte key.
 */
const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * A website hostname as browsers put it in `Origin`: lower case, internationalised names in punycode.
 *
 * @throws {AccountInputError} for anything but a bare hostname (no scheme, port, path or wildcard).
 * @example canonicalHostname('App.Example.com') // 'app.example.com'
 */
export function canonicalHostname(text: string): string {
  if (!/^[^\s/:@?#*\\[\]]+$/.test(text)) throw new AccountInputError(`${JSON.stringify(text)} is not a bare hostname such as app.example.com.`);
  let hostname: string;
  try {
    hostname = new URL(`https://${text}`).hostname;
  } catch {
    throw new AccountInputError(`${JSON.stringify(text)} is not a valid hostname.`);
  }
  if (!HOSTNAME.test(hostname)) {
    throw new AccountInputError(`${JSON.stringify(text)} is not a valid hostname.`);
  }
  return hostname;
}

/**
 * The hostname of an `Origin` header value, canonical as {@link canonicalHostname} gives it, or null
 * when the value is not a serialised origin that a whitelisted hostname stands for (`null`, paths,
 * garbage, other schemes, a hostname no whitelist can hold, such as one longer than 253 characters).
 *
 * A whitelisted hostname stands for its website as browsers serialise it: `https://` and the default
 * port, so `https://app.example.com` and nothing else for `app.example.com`. With `allowHttp` (a
 * deployment's `ALLOW_HTTP_ORIGINS`, for local development: `docs/accounts.md`) it also stands for
 * `http://` and any explicit port, e.g. a page served at `http://app.example.test:8080`.
 *
 * @example originHostname('https://App.Example.com', false) // 'app.example.com'
 * @example originHostname('http://app.example.com:8080', false) // null
 */
export function originHostname(origin: string, allowHttp: boolean): string | null {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return null;
  }
  if (url.origin !== origin.toLowerCase() || !HOSTNAME.test(url.hostname)) return null;
  if (url.protocol === 'https:' && url.port === '') return url.hostname;
  return allowHttp && (url.protocol === 'https:' || url.protocol === 'http:') ? url.hostname : null;
}
