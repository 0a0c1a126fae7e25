/**
 * @module Account documents and their index entries in any KV-like store: the `ACCOUNTS` binding in
 * workerd (tests), wrangler's local and remote namespaces (Node). An operation writes at most one
 * account document, last, after its index entries (removed again if the document cannot be written),
 * so a failure at any point leaves the account as it was (`src/access/kv-schema.ts`). KV has no
 * compare-and-set: two operators editing one account at the same moment can lose one edit.
 */
import { type AccountDocument, AccountDocumentSchema, accountKey, WhitelistIndexSchema } from '../src/access/kv-schema.ts';
import { checkAccountId } from './input.ts';

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

/**
 * The account document stored under `account:<id>`, or null when there is none.
 *
 * @throws {AccountInputError} for an id that is not a valid account id.
 * @throws {Error} when the stored value is not a valid document (it is then left untouched).
 */
export async function readAccount(kv: KvStore, accountId: string): Promise<AccountDocument | null> {
  const text = await kv.get(accountKey(checkAccountId(accountId)));
  if (text === null) return null;
  const parsed = AccountDocumentSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`account:${accountId} does not hold a valid account document: ${parsed.error.issues[0]?.message ?? ''}`);
  return parsed.data;
}

/**
 * The account document of `accountId`.
 *
 * @throws {AccountStateError} when the account does not exist.
 */
export async function existingAccount(kv: KvStore, accountId: string): Promise<AccountDocument> {
  const account = await readAccount(kv, accountId);
  if (account === null) throw new AccountStateError(`There is no account ${accountId}.`);
  return account;
}

/** Writes the account document, checked against its schema first. */
export async function writeAccount(kv: KvStore, account: AccountDocument): Promise<void> {
  await kv.put(accountKey(account.id), JSON.stringify(AccountDocumentSchema.parse(account)));
}

/** Puts an index entry, then the document; takes the entry back if the document cannot be written. */
export async function writeWithIndex(kv: KvStore, indexKey: string, indexValue: string, account: AccountDocument): Promise<void> {
  await kv.put(indexKey, indexValue);
  try {
    await writeAccount(kv, account);
  } catch (error) {
    await kv.delete(indexKey).catch(() => undefined);
    throw error;
  }
}

/** The account a whitelist's index entry points to, if that account's document confirms it (else the entry is stale). */
export async function indexHolder(kv: KvStore, indexKey: string, list: 'ips' | 'domains', value: string): Promise<string | null> {
  const text = await kv.get(indexKey);
  if (text === null) return null;
  const entry = WhitelistIndexSchema.safeParse(JSON.parse(text));
  if (!entry.success) return null;
  const holder = await readAccount(kv, entry.data.account);
  return holder?.[list].includes(value) ? holder.id : null;
}
