/** @module An account document as KV holds it (`account:<id>`, docs/storage.md), read without the service's code. */
import type { AccountDocument } from '../../src/access/kv-schema.ts';

/**
 * The JSON stored under `account:<accountId>`.
 *
 * @throws {Error} when there is none.
 */
export async function storedAccount(kv: KVNamespace, accountId: string): Promise<AccountDocument> {
  const text = await kv.get(`account:${accountId}`);
  if (text === null) throw new Error(`account:${accountId} is not stored`);
  return JSON.parse(text) as AccountDocument;
}
