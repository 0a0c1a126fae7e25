/**
 * @module The operations of the operator tool (`scripts/accounts.ts`) over any KV-like store: the
 * `ACCOUNTS` binding in workerd (tests), wrangler's local and remote namespaces (Node). Each writes at
 * most one account document, last, after its index entries (removed again if the document cannot be
 * written), so a failure at any point leaves the account as it was (`kv-schema.ts`). KV has no
 * compare-and-set: two operators editing one account at the same moment can lose one edit.
 */
import { AccountInputError, canonicalAddress, canonicalHostname, checkDate, ignoredWhitelistEntry, whitelistableAddress } from './account.ts';
import { generateApiKey, generateKeyId, hashApiKey } from './api-key.ts';
import type { KvListing } from './kv-listing.ts';
import {
  type AccountDocument,
  AccountDocumentSchema,
  AccountIdSchema,
  accountKey,
  apiKeyIndexKey,
  domainIndexKey,
  ipIndexKey,
  type Quotas,
  type StoredKey,
  WhitelistIndexSchema,
} from './kv-schema.ts';

/** The part of a KV namespace that the operations use (KVNamespace fits it). */
export interface KvStore {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** An operation refused because of the accounts' state (unknown account, duplicate, conflict). */
export class AccountStateError extends Error {
  override readonly name = 'AccountStateError';
}

/** An account as operators see it: everything but key hashes. */
export interface AccountView {
  id: string;
  status: 'active' | 'cancelled';
  expires: string | null;
  createdAt: string;
  cancelledAt: string | null;
  ips: string[];
  /** Whitelisted addresses that requests are not granted from, since `allow-ip` refuses them today: why, to remove them (`disallow-ip`). */
  ignoredIps: { ip: string; reason: string }[];
  domains: string[];
  keys: { id: string; createdAt: string; revokedAt: string | null }[];
  /** Its quotas of lookups (docs/accounts.md, "Quotas"): null where it has none. */
  quotas: { monthly: number | null; dailyWebsite: number | null; monthlyWebsite: number | null };
}

/**
 * The account document stored under `account:<id>`, or null when there is none.
 *
 * @throws {AccountInputError} for an id that is not a valid account id.
 * @throws {Error} when the stored value is not a valid document (it is then left untouched).
 */
async function readAccount(kv: KvStore, accountId: string): Promise<AccountDocument | null> {
  const text = await kv.get(accountKey(checkAccountId(accountId)));
  if (text === null) return null;
  const parsed = AccountDocumentSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`account:${accountId} does not hold a valid account document: ${parsed.error.issues[0]?.message ?? ''}`);
  return parsed.data;
}

/**
 * Creates an active account with no keys and empty whitelists.
 *
 * @param options.expires the last day of access, `YYYY-MM-DD` (UTC, inclusive); none when omitted.
 * @throws {AccountStateError} when the account exists. {@link AccountInputError} for a bad id or date.
 */
export async function createAccount(kv: KvStore, accountId: string, options: { expires?: string | undefined; now?: Date } = {}): Promise<AccountView> {
  const expires = options.expires === undefined ? null : checkDate(options.expires);
  if ((await readAccount(kv, accountId)) !== null) throw new AccountStateError(`Account ${accountId} exists already.`);
  const account: AccountDocument = {
    v: 1,
    id: accountId,
    status: 'active',
    expires,
    createdAt: (options.now ?? new Date()).toISOString(),
    cancelledAt: null,
    ips: [],
    domains: [],
    keys: [],
  };
  await writeAccount(kv, account);
  return accountView(account);
}

/**
 * Makes a new API key for an account. The key is returned here and nowhere else; only its SHA-256 is kept.
 *
 * @returns the key id (for revoking) and the key text (`ipgeo_…`).
 * @throws {AccountStateError} when the account does not exist.
 */
export async function createApiKey(kv: KvStore, accountId: string, now: Date = new Date()): Promise<{ keyId: string; key: string }> {
  const account = await existingAccount(kv, accountId);
  let keyId = generateKeyId();
  while (account.keys.some((stored) => stored.id === keyId)) keyId = generateKeyId();
  const key = generateApiKey();
  const sha256 = await hashApiKey(key);
  account.keys.push({ id: keyId, sha256, createdAt: now.toISOString(), revokedAt: null });
  await writeWithIndex(kv, apiKeyIndexKey(sha256), JSON.stringify({ account: accountId, key: keyId }), account);
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

/**
 * Whitelists a server address (requests from it need no key).
 *
 * @throws {AccountInputError} when `address` is not one IPv4 or IPv6 address, or one that no customer's
 *   server sends from (`whitelistableAddress`: private-use, loopback, link-local, unspecified, multicast,
 *   the address of other zones' Workers).
 * @throws {AccountStateError} when the account does not exist, or another account whitelists the address.
 */
export async function allowIp(kv: KvStore, accountId: string, address: string): Promise<AccountView> {
  const canonical = whitelistableAddress(address);
  return allowIndexed(kv, accountId, canonical, 'ips', ipIndexKey(canonical), 'address');
}

/**
 * Whitelists a website hostname (browser requests whose `Origin` has exactly this hostname need no key).
 *
 * @throws {AccountInputError} when `hostname` is not a bare hostname.
 * @throws {AccountStateError} when the account does not exist, or another account whitelists the hostname.
 */
export async function allowDomain(kv: KvStore, accountId: string, hostname: string): Promise<AccountView> {
  const canonical = canonicalHostname(hostname);
  return allowIndexed(kv, accountId, canonical, 'domains', domainIndexKey(canonical), 'hostname');
}

/**
 * Cancels an account: its keys and whitelists stop giving access (403 `SUBSCRIPTION_INACTIVE`).
 *
 * @throws {AccountStateError} when the account does not exist or is cancelled already.
 */
export async function cancelAccount(kv: KvStore, accountId: string, now: Date = new Date()): Promise<AccountView> {
  const account = await existingAccount(kv, accountId);
  if (account.status === 'cancelled') throw new AccountStateError(`Account ${accountId} was cancelled already, at ${account.cancelledAt ?? '?'}.`);
  account.status = 'cancelled';
  account.cancelledAt = now.toISOString();
  await writeAccount(kv, account);
  return accountView(account);
}

/**
 * An account without its key hashes, for display.
 *
 * @throws {AccountStateError} when the account does not exist.
 */
export async function showAccount(kv: KvStore, accountId: string): Promise<AccountView> {
  return accountView(await existingAccount(kv, accountId));
}

/** The operator's view of a document: key ids and dates, never hashes. */
function accountView(account: AccountDocument): AccountView {
  return {
    id: account.id,
    status: account.status,
    expires: account.expires,
    createdAt: account.createdAt,
    cancelledAt: account.cancelledAt,
    ips: [...account.ips],
    ignoredIps: account.ips.flatMap((ip) => {
      const reason = ignoredWhitelistEntry(ip);
      return reason === null ? [] : [{ ip, reason }];
    }),
    domains: [...account.domains],
    keys: account.keys.map(({ id, createdAt, revokedAt }) => ({ id, createdAt, revokedAt })),
    quotas: {
      monthly: account.quotas?.monthly ?? null,
      dailyWebsite: account.quotas?.dailyWebsite ?? null,
      monthlyWebsite: account.quotas?.monthlyWebsite ?? null,
    },
  };
}

function checkAccountId(accountId: string): string {
  if (!AccountIdSchema.safeParse(accountId).success) {
    throw new AccountInputError(`${JSON.stringify(accountId)} is not an account id: use 1 to 63 lower-case letters, digits and hyphens.`);
  }
  return accountId;
}

async function existingAccount(kv: KvStore, accountId: string): Promise<AccountDocument> {
  const account = await readAccount(kv, accountId);
  if (account === null) throw new AccountStateError(`There is no account ${accountId}.`);
  return account;
}

async function allowIndexed(kv: KvStore, accountId: string, value: string, list: 'ips' | 'domains', indexKey: string, noun: string): Promise<AccountView> {
  const account = await existingAccount(kv, accountId);
  if (account[list].includes(value)) throw new AccountStateError(`Account ${accountId} whitelists the ${noun} ${value} already.`);
  const holder = await indexHolder(kv, indexKey, list, value);
  if (holder !== null && holder !== accountId) throw new AccountStateError(`The ${noun} ${value} is whitelisted by account ${holder}; remove it there first.`);
  account[list].push(value);
  await writeWithIndex(kv, indexKey, JSON.stringify({ account: accountId }), account);
  return accountView(account);
}

/** The account an index entry points to, if that account's document confirms it (else the entry is stale). */
async function indexHolder(kv: KvStore, indexKey: string, list: 'ips' | 'domains', value: string): Promise<string | null> {
  const text = await kv.get(indexKey);
  if (text === null) return null;
  const entry = WhitelistIndexSchema.safeParse(JSON.parse(text));
  if (!entry.success) return null;
  const holder = await readAccount(kv, entry.data.account);
  return holder?.[list].includes(value) ? holder.id : null;
}

async function writeAccount(kv: KvStore, account: AccountDocument): Promise<void> {
  await kv.put(accountKey(account.id), JSON.stringify(AccountDocumentSchema.parse(account)));
}

/** Puts an index entry, then the document; takes the entry back if the document cannot be written. */
async function writeWithIndex(kv: KvStore, indexKey: string, indexValue: string, account: AccountDocument): Promise<void> {
  await kv.put(indexKey, indexValue);
  try {
    await writeAccount(kv, account);
  } catch (error) {
    await kv.delete(indexKey).catch(() => undefined);
    throw error;
  }
}

/**
 * Every account, in id order.
 *
 * @throws {Error} when a listed key does not hold a valid account document.
 */
export async function listAccounts(kv: KvStore & KvListing): Promise<AccountView[]> {
  const views: AccountView[] = [];
  for (const key of await kv.listKeys(accountKey(''))) {
    const account = await readAccount(kv, key.slice(accountKey('').length));
    if (account !== null) views.push(accountView(account));
  }
  return views;
}

/**
 * Takes a server address off an account's whitelist. The document is written first and the index
 * entry removed after it, so that a failure in between leaves an entry that nothing honours.
 *
 * @throws {AccountInputError} when `address` is not one IPv4 or IPv6 address.
 * @throws {AccountStateError} when the account does not exist or does not whitelist the address.
 */
export async function disallowIp(kv: KvStore, accountId: string, address: string): Promise<AccountView> {
  const canonical = canonicalAddress(address);
  return disallowIndexed(kv, accountId, canonical, 'ips', ipIndexKey(canonical), 'address');
}

/**
 * Takes a website hostname off an account's whitelist (as {@link disallowIp} does for addresses).
 *
 * @throws {AccountInputError} when `hostname` is not a bare hostname.
 * @throws {AccountStateError} when the account does not exist or does not whitelist the hostname.
 */
export async function disallowDomain(kv: KvStore, accountId: string, hostname: string): Promise<AccountView> {
  const canonical = canonicalHostname(hostname);
  return disallowIndexed(kv, accountId, canonical, 'domains', domainIndexKey(canonical), 'hostname');
}

/**
 * Sets an account's last day of access, and makes a cancelled account active again.
 *
 * @param expires `YYYY-MM-DD` (UTC, inclusive); today or later.
 * @throws {AccountInputError} for a malformed date or one before today (UTC).
 * @throws {AccountStateError} when the account does not exist.
 */
export async function renewAccount(kv: KvStore, accountId: string, expires: string, now: Date = new Date()): Promise<AccountView> {
  const date = checkDate(expires);
  const today = now.toISOString().slice(0, 10);
  if (date < today) throw new AccountInputError(`${date} is in the past (today is ${today}, UTC): give the new last day of access.`);
  const account = await existingAccount(kv, accountId);
  account.expires = date;
  account.status = 'active';
  account.cancelledAt = null;
  await writeAccount(kv, account);
  return accountView(account);
}

/**
 * Sets or removes an account's quotas (docs/accounts.md, "Quotas"); a quota left out stays as it is.
 * An account with neither keeps no `quotas` member, as before quotas existed.
 *
 * @param quotas.monthly lookups per calendar month (UTC) by keys and whitelisted server addresses, or null to remove it.
 * @param quotas.dailyWebsite lookups per UTC day authenticated by a whitelisted website alone, or null to remove it.
 * @param quotas.monthlyWebsite lookups per calendar month (UTC) authenticated by a whitelisted website alone, or null to remove it.
 * @throws {AccountInputError} for a quota that is not a whole number from 0 to 2^53 - 1.
 * @throws {AccountStateError} when the account does not exist.
 */
export async function setQuotas(kv: KvStore, accountId: string, quotas: { [name in keyof Quotas]?: number | null | undefined }): Promise<AccountView> {
  for (const value of Object.values(quotas)) {
    if (value != null && !(Number.isSafeInteger(value) && value >= 0))
      throw new AccountInputError(`A quota is a whole number of lookups, 0 or more; got ${value}.`);
  }
  const account = await existingAccount(kv, accountId);
  const kept = (name: keyof Quotas) => (quotas[name] === undefined ? (account.quotas?.[name] ?? null) : (quotas[name] ?? null));
  const next = { monthly: kept('monthly'), dailyWebsite: kept('dailyWebsite'), monthlyWebsite: kept('monthlyWebsite') };
  if (Object.values(next).every((value) => value === null)) delete account.quotas;
  else account.quotas = next;
  await writeAccount(kv, account);
  return accountView(account);
}

/** The longest grace period of a rotated key, in seconds (90 days). */
const MAX_GRACE_SECONDS = 90 * 86_400;

/**
 * Replaces an API key: makes a new one, and revokes the old one at `now + graceSeconds` (at once
 * when 0), so that clients can switch over. Until then both work; the Worker reads the revocation
 * time on every request (`check.ts`). One account document write, after the new key's index entry.
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
  const live = account.keys.filter((key) => key.revokedAt === null);
  let old: StoredKey | undefined;
  if (options.keyId !== undefined) {
    old = account.keys.find((key) => key.id === options.keyId);
    if (!old) throw new AccountStateError(`Account ${accountId} has no key ${options.keyId}.`);
    if (old.revokedAt !== null) throw new AccountStateError(`Key ${old.id} is revoked already (at ${old.revokedAt}); make a new key with \`key\` instead.`);
  } else if (live.length === 1) {
    old = live[0];
  } else {
    throw new AccountStateError(
      live.length === 0
        ? `Account ${accountId} has no key that is not revoked; make one with \`key\` instead.`
        : `Account ${accountId} has ${live.length} keys (${live.map((key) => key.id).join(', ')}); name the one to replace with --key.`,
    );
  }
  if (!old) throw new AccountStateError(`Account ${accountId} has no key to replace.`);
  let keyId = generateKeyId();
  while (account.keys.some((stored) => stored.id === keyId)) keyId = generateKeyId();
  const key = generateApiKey();
  const sha256 = await hashApiKey(key);
  const oldKeyRevokedAt = new Date(now.getTime() + grace * 1000).toISOString();
  old.revokedAt = oldKeyRevokedAt;
  account.keys.push({ id: keyId, sha256, createdAt: now.toISOString(), revokedAt: null });
  await writeWithIndex(kv, apiKeyIndexKey(sha256), JSON.stringify({ account: accountId, key: keyId }), account);
  return { keyId, key, replaced: old.id, oldKeyRevokedAt };
}

/** Whether a key no longer works at `now` (a revocation ahead, in a grace period, does not count yet). */
export function isRevoked(key: Pick<StoredKey, 'revokedAt'>, now: Date = new Date()): boolean {
  return key.revokedAt !== null && Date.parse(key.revokedAt) <= now.getTime();
}

async function disallowIndexed(kv: KvStore, accountId: string, value: string, list: 'ips' | 'domains', indexKey: string, noun: string): Promise<AccountView> {
  const account = await existingAccount(kv, accountId);
  if (!account[list].includes(value)) throw new AccountStateError(`Account ${accountId} does not whitelist the ${noun} ${value}.`);
  account[list] = account[list].filter((entry) => entry !== value);
  await writeAccount(kv, account);
  // Another account may have whitelisted the value since (the index points there then): leave that entry.
  if ((await indexHolder(kv, indexKey, list, value)) === null) await kv.delete(indexKey);
  return accountView(account);
}
