/**
 * @module An account's life: created active, shown and listed, renewed, given quotas, cancelled. Each
 * operation writes the account document once, last (`account-store.ts`); keys are in `keys.ts`, the
 * whitelists in `whitelists.ts`.
 */
import { AccountInputError } from '../src/access/account.ts';
import { type AccountDocument, accountKey, type Quotas } from '../src/access/kv-schema.ts';
import { AccountStateError, existingAccount, type KvStore, readAccount, writeAccount } from './account-store.ts';
import { type AccountView, accountView } from './account-view.ts';
import { checkDate } from './input.ts';
import type { KvListing } from './kv-listing.ts';

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
