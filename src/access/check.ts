/**
 * @module Decides whether a request may use a paid server (docs/specification.md, 5.2), and whether
 * its `Origin` gets CORS headers: by an API key, else a whitelisted `CF-Connecting-IP`, else the
 * whitelisted exact hostname of `Origin`, each of an active account ({@link checkAccess}). A key fails
 * its checksum without a KV read.
 */
import { type IpAddress, parseIp } from '../ip/address.ts';
import { originHostname, type Standing, standingOf } from './account.ts';
import { apiKeyForm, bearerToken, hashApiKey } from './api-key.ts';
import type { AccountDirectory, KvReader } from './directory.ts';
import type { AccountDocument, Quotas } from './kv-schema.ts';
import { serverAddressRefusal } from './server-address.ts';

/** How a request proved its right to a paid server. */
type Credential = 'key' | 'address' | 'origin';

/** The request facts that access depends on. */
export interface AccessRequest {
  /** The `Authorization` header, if any. */
  readonly authorization: string | undefined;
  /** `CF-Connecting-IP`, or '' when absent. */
  readonly clientIp: string;
  /** The `Origin` header, if any. */
  readonly origin: string | undefined;
}

/** What a deployment accepts beyond the defaults: set by its variables (`middleware.ts` reads them). */
export interface AccessPolicy {
  /** Keys without a checksum (`ipgeo_` and 43 base64url characters, made before it) are looked up; else refused unread. */
  readonly legacyKeys: boolean;
  /** A whitelisted hostname also matches `http://` origins and explicit ports (local development only). */
  readonly httpOrigins: boolean;
}

/** The defaults: checksummed keys only, and `https://<hostname>` origins only. */
const STRICT_ACCESS: AccessPolicy = Object.freeze({ legacyKeys: false, httpOrigins: false });

/** Why access is refused: mapped to public problem codes by one switch in `middleware.ts`. */
export type AccessFailure =
  | { readonly kind: 'no-credential' }
  | { readonly kind: 'key-malformed' }
  | { readonly kind: 'key-unknown' }
  | { readonly kind: 'key-revoked'; readonly accountId: string; readonly keyId: string }
  | { readonly kind: 'inactive'; readonly via: Credential; readonly accountId: string; readonly reason: 'cancelled' | 'expired'; readonly since: string }
  | { readonly kind: 'origin-forbidden'; readonly origin: string };

/** The prefix of the credential of a request granted by a whitelisted website alone: `website:app.example.com`. */
export const WEBSITE_CREDENTIAL_PREFIX = 'website:';

/** A granted request: its account, and the credential that granted it (what usage is counted by, `usage/wire.ts`). */
export interface AccessGrant {
  readonly granted: true;
  readonly accountId: string;
  readonly via: Credential;
  /** `key_…` (the key's id), `ip:<address>` (the whitelisted address) or `website:<hostname>` (the whitelisted hostname). */
  readonly credential: string;
  /** The account's quotas; undefined when it has none. */
  readonly quotas: Quotas | undefined;
}

/** The outcome of {@link checkAccess}. */
export type AccessResult = (AccessGrant | { readonly granted: false; readonly failure: AccessFailure }) & {
  /** The `Origin` value to answer CORS for, or null. */
  readonly corsOrigin: string | null;
};

/**
 * Checks a request's credentials, in this order:
 *
 * 1. `Authorization: Bearer <key>`. A key that is sent decides alone: when it is malformed, unknown,
 *    revoked, or belongs to an inactive account, the request is refused even if its address or origin
 *    is whitelisted, so that a client never runs unnoticed on a credential other than the one it sent.
 *    A key that fails its checksum, or has the shape of a key made before the checksum while the
 *    deployment does not accept those ({@link AccessPolicy.legacyKeys}), is refused without a KV read.
 * 2. The `CF-Connecting-IP` address, whitelisted by an active account, unless `allow-ip` would refuse
 *    it today (`server-address.ts`): an entry written before that refusal grants nothing.
 * 3. The exact hostname of `Origin`, whitelisted by an active account, sent as `https://<hostname>`
 *    (other schemes and explicit ports only under {@link AccessPolicy.httpOrigins}).
 *
 * Refusals, most specific first: a whitelisted address or origin of an inactive account is `inactive`;
 * a request that carries an `Origin` (a browser's) and matches nothing is `origin-forbidden`; anything
 * else is `no-credential`. CORS: the `Origin` is answered with CORS headers when an account whitelists
 * its hostname, whatever granted the request, even when that account is inactive (so that the website
 * can read why it is refused); other origins get none.
 *
 * @param now ms since the epoch, for account expiry.
 * @param policy what the deployment accepts beyond the defaults.
 * @returns a grant or a failure, and the CORS origin; never throws for bad credentials (only for KV failures).
 */
export async function checkAccess(
  request: AccessRequest,
  kv: KvReader,
  directory: AccountDirectory,
  now: number,
  policy: AccessPolicy = STRICT_ACCESS,
): Promise<AccessResult> {
  // Started at once: a cold request reads its key and its origin from KV in parallel (both its own reads).
  const originAccount = originAccountOf(request.origin, kv, directory, policy);
  originAccount.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled
  const result = await decide(request, kv, directory, now, policy, originAccount);
  const corsOrigin = (await originAccount) !== null ? (request.origin ?? null) : null;
  return { ...result, corsOrigin };
}

/**
 * The `Origin` value to answer CORS for (preflights and public paths), or null when no account
 * whitelists its hostname.
 */
export async function corsOriginOf(
  origin: string | undefined,
  kv: KvReader,
  directory: AccountDirectory,
  policy: AccessPolicy = STRICT_ACCESS,
): Promise<string | null> {
  return (await originAccountOf(origin, kv, directory, policy)) !== null ? (origin ?? null) : null;
}

type Decision = AccessGrant | { granted: false; failure: AccessFailure };

async function decide(
  request: AccessRequest,
  kv: KvReader,
  directory: AccountDirectory,
  now: number,
  policy: AccessPolicy,
  originAccount: Promise<AccountDocument | null>,
): Promise<Decision> {
  const token = bearerToken(request.authorization);
  if (token !== null) return decideByKey(token, kv, directory, now, policy);

  let inactive: AccessFailure | null = null;
  const address = whitelistableClient(request.clientIp);
  const byAddress = address === null ? null : await directory.byAddress(kv, address.canonical);
  if (byAddress !== null && address !== null) {
    const standing = standingOf(byAddress, now);
    if (standing.active) return grant(byAddress, 'address', `ip:${address.canonical}`);
    inactive = inactiveFailure('address', byAddress, standing);
  }

  if (request.origin !== undefined) {
    const byOrigin = await originAccount;
    if (byOrigin !== null) {
      const standing = standingOf(byOrigin, now);
      if (standing.active) return grant(byOrigin, 'origin', `${WEBSITE_CREDENTIAL_PREFIX}${originHostname(request.origin, policy.httpOrigins) ?? ''}`);
      return { granted: false, failure: inactiveFailure('origin', byOrigin, standing) };
    }
    return { granted: false, failure: inactive ?? { kind: 'origin-forbidden', origin: request.origin } };
  }
  return { granted: false, failure: inactive ?? { kind: 'no-credential' } };
}

async function decideByKey(token: string, kv: KvReader, directory: AccountDirectory, now: number, policy: AccessPolicy): Promise<Decision> {
  const form = apiKeyForm(token);
  if (form === 'malformed' || (form === 'legacy' && !policy.legacyKeys)) return { granted: false, failure: { kind: 'key-malformed' } };
  const sha256 = await hashApiKey(token);
  const match = await directory.byKeyHash(kv, sha256);
  // The index found the entry by this very hash; comparing the stored hash again, in constant time,
  // guards against an index entry that points at another key of the account.
  if (match === null || !sameHash(match.key.sha256, sha256)) return { granted: false, failure: { kind: 'key-unknown' } };
  // A revocation may lie ahead: the grace period of a rotated key (`rotateApiKey`, `operator/keys.ts`).
  if (match.key.revokedAt !== null && Date.parse(match.key.revokedAt) <= now)
    return { granted: false, failure: { kind: 'key-revoked', accountId: match.account.id, keyId: match.key.id } };
  const standing = standingOf(match.account, now);
  if (!standing.active) return { granted: false, failure: inactiveFailure('key', match.account, standing) };
  return grant(match.account, 'key', match.key.id);
}

function grant(account: AccountDocument, via: Credential, credential: string): AccessGrant {
  return { granted: true, accountId: account.id, via, credential, quotas: account.quotas };
}

function inactiveFailure(via: Credential, account: AccountDocument, standing: Exclude<Standing, { active: true }>): AccessFailure {
  return { kind: 'inactive', via, accountId: account.id, reason: standing.reason, since: standing.since };
}

async function originAccountOf(origin: string | undefined, kv: KvReader, directory: AccountDirectory, policy: AccessPolicy): Promise<AccountDocument | null> {
  const hostname = origin === undefined ? null : originHostname(origin, policy.httpOrigins);
  return hostname === null ? null : directory.byHostname(kv, hostname);
}

/**
 * The client's address when a whitelist can grant it: an address that `allow-ip` would take today, so
 * that an entry written before a refusal existed grants nothing (the request is answered as from an
 * address that no account whitelists, and no KV read is made for it).
 */
function whitelistableClient(clientIp: string): IpAddress | null {
  const address = clientIp === '' ? undefined : parseIp(clientIp);
  return address === undefined || serverAddressRefusal(address) !== null ? null : address;
}

/** Compares two hex SHA-256 digests without a timing signal (workerd's `crypto.subtle.timingSafeEqual`). */
function sameHash(a: string, b: string): boolean {
  const encoder = new TextEncoder();
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  return left.byteLength === right.byteLength && crypto.subtle.timingSafeEqual(left, right);
}
