/**
 * @module An account's API keys: made (shown once, kept as a SHA-256), revoked, and rotated with a grace
 * period. The key's format is the Worker's (`src/access/api-key.ts`); each operation writes the account
 * document last (`account-store.ts`).
 */
import { AccountInputError } from '../src/access/account.ts';
import { generateApiKey, generateKeyId, hashApiKey } from '../src/access/api-key.ts';
import { type AccountDocument, apiKeyIndexKey, type StoredKey } from '../src/access/kv-schema.ts';
import { AccountStateError, existingAccount, type KvStore, writeAccount, writeWithIndex } from './account-store.ts';
import { type AccountView, accountView } from './account-view.ts';

/**
 * Makes a new API key for an account. The key is returned here and nowhere else; only its SHA-256 is kept.
 *
 * @returns the key id (for revoking) and the key text (`ipgeo_…`).
 * @throws {AccountStateError} when the account does not exist.
 */
export async function createApiKey(kv: KvStore, accountId: string, now: Date = new Date()): Promise<{ keyId: string; key: string }> {
  const account = await existingAccount(kv, accountId);
  const { keyId, key } = await addKey(kv, account, now);
  return { keyId, key };
}

/**
 * Revokes one key of an account. Its index entry stays, so that the Worker can tell a revoked key
 * from an unknown one in its logs; the answer to the client is the same.
 *
 * @throws {AccountStateError} when the account or the key does not exist, or the key is revoked already.
 */
export async function revokeApiKey(kv: KvStore, accountId: string, keyId: string, now: Date = new Date()): Promise<AccountView> {
  const account = await existingAccount(kv, accountId);
  const stored = account.keys.find((candidate) => candidate.id === keyId);
  if (!stored) throw new AccountStateError(`Account ${accountId} has no key ${keyId}.`);
  // A key in its grace period after a rotation (revocation ahead) may be revoked at once.
  if (isRevoked(stored, now)) throw new AccountStateError(`Key ${keyId} was revoked already, at ${stored.revokedAt}.`);
  stored.revokedAt = now.toISOString();
  await writeAccount(kv, account);
  return accountView(account);
}

/** The longest grace period of a rotated key, in seconds (90 days). */
const MAX_GRACE_SECONDS = 90 * 86_400;

/**
 * Replaces an API key: makes a new one, and revokes the old one at `now + graceSeconds` (at once
 * when 0), so that clients can switch over. Until then both work; the Worker reads the revocation
 * time on every request (`src/access/check.ts`). One account document write, after the new key's index entry.
 *
 * @param options.keyId the key to replace; may be left out when the account has exactly one key that is not revoked.
 * @param options.graceSeconds 0 to {@link MAX_GRACE_SECONDS}.
 * @returns the new key (shown this once), its id, and when the old one stops working.
 * @throws {AccountInputError} for a grace period out of range.
 * @throws {AccountStateError} when the account or the key does not exist, the key is revoked, or no key is named among several.
 */
export async function rotateApiKey(
  kv: KvStore,
  accountId: string,
  options: { keyId?: string | undefined; graceSeconds?: number; now?: Date } = {},
): Promise<{ keyId: string; key: string; replaced: string; oldKeyRevokedAt: string }> {
  const now = options.now ?? new Date();
  const grace = options.graceSeconds ?? 0;
  if (!Number.isInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS) {
    throw new AccountInputError(`The grace period must be 0 to ${MAX_GRACE_SECONDS / 86_400} days; got ${grace} s.`);
  }
  const account = await existingAccount(kv, accountId);
  const old = keyToReplace(account, options.keyId);
  const oldKeyRevokedAt = new Date(now.getTime() + grace * 1000).toISOString();
  old.revokedAt = oldKeyRevokedAt;
  const { keyId, key } = await addKey(kv, account, now);
  return { keyId, key, replaced: old.id, oldKeyRevokedAt };
}

/** Whether a key no longer works at `now` (a revocation ahead, in a grace period, does not count yet). */
export function isRevoked(key: Pick<StoredKey, 'revokedAt'>, now: Date = new Date()): boolean {
  return key.revokedAt !== null && Date.parse(key.revokedAt) <= now.getTime();
}

/**
 * The key that a rotation replaces: the one named, or the account's only key that is not revoked.
 *
 * @throws {AccountStateError} when the named key does not exist or is revoked, or none is named among several.
 */
function keyToReplace(account: AccountDocument, keyId: string | undefined): StoredKey {
  if (keyId !== undefined) {
    const named = account.keys.find((key) => key.id === keyId);
    if (!named) throw new AccountStateError(`Account ${account.id} has no key ${keyId}.`);
    if (named.revokedAt !== null)
      throw new AccountStateError(`Key ${named.id} is revoked already (at ${named.revokedAt}); make a new key with \`key\` instead.`);
    return named;
  }
  const live = account.keys.filter((key) => key.revokedAt === null);
  const [only] = live;
  if (live.length === 1 && only !== undefined) return only;
  throw new AccountStateError(
    live.length === 0
      ? `Account ${account.id} has no key that is not revoked; make one with \`key\` instead.`
      : `Account ${account.id} has ${live.length} keys (${live.map((key) => key.id).join(', ')}); name the one to replace with --key.`,
  );
}

/** Adds a new key to `account` and writes its index entry, then the document (with any other change made to it). */
async function addKey(kv: KvStore, account: AccountDocument, now: Date): Promise<{ keyId: string; key: string }> {
  let keyId = generateKeyId();
  while (account.keys.some((stored) => stored.id === keyId)) keyId = generateKeyId();
  const key = generateApiKey();
  const sha256 = await hashApiKey(key);
  account.keys.push({ id: keyId, sha256, createdAt: now.toISOString(), revokedAt: null });
  await writeWithIndex(kv, apiKeyIndexKey(sha256), JSON.stringify({ account: account.id, key: keyId }), account);
  return { keyId, key };
}
