/**
 * @module What an account allows at a given instant, and the canonical forms that whitelists are kept
 * in, so that the operator tool writes exactly what the Worker looks up.
 */
import { type IpAddress, IpAddressError, parseIp, parseIpAddress } from '../ip/address.ts';
import type { AccountDocument } from './kv-schema.ts';
import { serverAddressRefusal } from './server-address.ts';

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
 * A server address in the canonical form the Worker looks `CF-Connecting-IP` up in.
 *
 * @throws {AccountInputError} when `text` is not an IPv4 or IPv6 address (networks are not accepted).
 * @example canonicalAddress('::FFFF:203.0.113.7') // '203.0.113.7'
 */
export function canonicalAddress(text: string): string {
  return parsedAddress(text).canonical;
}

function parsedAddress(text: string): IpAddress {
  try {
    return parseIpAddress(text);
  } catch (error) {
    if (error instanceof IpAddressError) throw new AccountInputError(`${JSON.stringify(text)} is not a single IPv4 or IPv6 address.`);
    throw error;
  }
}

/**
 * A server address that can be whitelisted, in canonical form: one that a customer's server can send
 * requests from, as `CF-Connecting-IP` shows it (`server-address.ts`).
 *
 * @throws {AccountInputError} when `text` is not one address, or is one that no request from a server
 *   carries (the message says why: the range, its kind and its RFC, or the address Cloudflare gives
 *   requests of other zones' Workers).
 * @example whitelistableAddress('203.0.113.7') // '203.0.113.7'
 */
export function whitelistableAddress(text: string): string {
  const address = parsedAddress(text);
  const refusal = serverAddressRefusal(address);
  if (refusal !== null) throw new AccountInputError(`${refusal} Whitelist the server's public address.`);
  return address.canonical;
}

/**
 * Why a whitelisted server address grants nothing when a request arrives (`allow-ip` would refuse it
 * today: an entry written before that refusal existed), or null when it is honoured.
 *
 * @example ignoredWhitelistEntry('2a06:98c0:3600::103') // '2a06:98c0:3600::103 is the CF-Connecting-IP that …'
 */
export function ignoredWhitelistEntry(address: string): string | null {
  const parsed = parseIp(address);
  return parsed === undefined ? `${JSON.stringify(address)} is not a single IPv4 or IPv6 address.` : serverAddressRefusal(parsed);
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

/**
 * Checks a calendar date `YYYY-MM-DD`.
 *
 * @throws {AccountInputError} when it is not a real date.
 */
export function checkDate(text: string): string {
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : null;
  if (parsed === null || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== text) {
    throw new AccountInputError(`${JSON.stringify(text)} is not a date in the form YYYY-MM-DD.`);
  }
  return text;
}
