/**
 * @module An account's whitelists: server addresses and website hostnames, each held by one account at
 * a time through its index entry (`src/access/kv-schema.ts`). Adding writes the entry, then the
 * document; removing writes the document, then deletes the entry, so that a failure in between leaves
 * an entry that nothing honours (`account-store.ts`).
 */
import { canonicalHostname } from '../src/access/account.ts';
import { domainIndexKey, ipIndexKey } from '../src/access/kv-schema.ts';
import { AccountStateError, existingAccount, indexHolder, type KvStore, writeAccount, writeWithIndex } from './account-store.ts';
import { type AccountView, accountView } from './account-view.ts';
import { canonicalAddress, whitelistableAddress } from './input.ts';

/** A whitelist of an account document. */
type List = 'ips' | 'domains';

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
 * Takes a server address off an account's whitelist.
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

async function allowIndexed(kv: KvStore, accountId: string, value: string, list: List, indexKey: string, noun: string): Promise<AccountView> {
  const account = await existingAccount(kv, accountId);
  if (account[list].includes(value)) throw new AccountStateError(`Account ${accountId} whitelists the ${noun} ${value} already.`);
  const holder = await indexHolder(kv, indexKey, list, value);
  if (holder !== null && holder !== accountId) throw new AccountStateError(`The ${noun} ${value} is whitelisted by account ${holder}; remove it there first.`);
  account[list].push(value);
  await writeWithIndex(kv, indexKey, JSON.stringify({ account: accountId }), account);
  return accountView(account);
}

async function disallowIndexed(kv: KvStore, accountId: string, value: string, list: List, indexKey: string, noun: string): Promise<AccountView> {
  const account = await existingAccount(kv, accountId);
  if (!account[list].includes(value)) throw new AccountStateError(`Account ${accountId} does not whitelist the ${noun} ${value}.`);
  account[list] = account[list].filter((entry) => entry !== value);
  await writeAccount(kv, account);
  // Another account may have whitelisted the value since (the index points there then): leave that entry.
  if ((await indexHolder(kv, indexKey, list, value)) === null) await kv.delete(indexKey);
  return accountView(account);
}
