/**
 * @module How an account's ledger is laid out over Durable Objects (docs/decisions/0009-ledger-spread-over-shards.md):
 * one object, its root, named by the account id, until the root is written more than
 * {@link SPREAD_AT_WRITES_PER_SECOND} times in a second; from then on {@link LEDGER_SHARDS} objects,
 * the root and `<account>:1` … `<account>:15`, each isolate writing to the one its slot names. Every
 * count lives in exactly one object, so the account's totals and rows are the sums over them.
 */

/** How many objects a spread ledger has, the root included: 5,000 writers a second give each about 313 (decision 0009). */
export const LEDGER_SHARDS = 16;

/** Writes a second to the root beyond which it spreads the ledger (for good): a fifth of the 500 that an object should take at most. */
export const SPREAD_AT_WRITES_PER_SECOND = 100;

/** How often a shard tells the root its totals while it is written, in ms, so that its writers learn the account's totals. */
export const SYNC_MS = 1_000;

/** Where a write lands: the account and the index of its object (0, the root, or 1 to {@link LEDGER_SHARDS} - 1). */
export interface LedgerPlace {
  readonly account: string;
  readonly shard: number;
}

/**
 * The Durable Object name of object `shard` of `account`'s ledger: the account id itself for the root,
 * which is the one object of a ledger that never spread (and of every ledger written before spreading existed).
 *
 * @example shardName('acme', 0) // 'acme'
 * @example shardName('acme', 3) // 'acme:3'
 */
export function shardName(account: string, shard: number): string {
  return shard === 0 ? account : `${account}:${shard}`;
}

/**
 * The object an isolate writes an account's counts to: its random `slot` (fixed per isolate) modulo
 * the ledger's `spread` (1 or {@link LEDGER_SHARDS}), so that the isolates of a busy account spread evenly.
 */
export function shardOf(slot: number, spread: number): number {
  return spread <= 1 ? 0 : slot % spread;
}
