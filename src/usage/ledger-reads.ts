/**
 * @module Reads of an account's whole ledger (`spread.ts`): its root, and when the root says the ledger
 * is spread, its shards in parallel, summed. Each count lives in one object, so the sum is exact up to
 * the last write that any of them applied before it answered.
 */
import type { UsageLedger } from './ledger.ts';
import { shardName } from './spread.ts';
import { withTotals } from './totals.ts';
import type { LedgerRead, UsageRow } from './wire.ts';

/** The ledger's objects after the root, when `spread` of them there are. */
function shardsAfterRoot(namespace: DurableObjectNamespace<UsageLedger>, account: string, spread: number) {
  return Array.from({ length: Math.max(0, spread - 1) }, (_, index) => namespace.getByName(shardName(account, index + 1)));
}

/**
 * The account's totals for `day` and its month over every object of its ledger, and which of
 * `partIds` (a reader's own parts) any of them holds.
 *
 * @throws whatever a call to an object throws.
 */
export async function readLedgerTotals(
  namespace: DurableObjectNamespace<UsageLedger>,
  account: string,
  day: string,
  partIds: readonly string[],
): Promise<LedgerRead> {
  const root = await namespace.getByName(account).totals(day, partIds);
  if (root.spread <= 1) return root;
  const shards = await Promise.all(shardsAfterRoot(namespace, account, root.spread).map((stub) => stub.totals(day, partIds)));
  let { totals } = root;
  const applied = new Set(root.applied);
  for (const shard of shards) {
    totals = withTotals(totals, shard.totals);
    for (const id of shard.applied) applied.add(id);
  }
  return { totals, applied: [...applied], spread: root.spread };
}

/**
 * The account's rows from `from` to `to` (UTC days, inclusive) over every object of its ledger, one
 * per day, deployment, kind and credential (the objects' rows of the same key summed), in that order.
 *
 * @throws whatever a call to an object throws.
 */
export async function readLedgerRows(namespace: DurableObjectNamespace<UsageLedger>, account: string, from: string, to: string): Promise<UsageRow[]> {
  const root = await namespace.getByName(account).rows(from, to);
  if (root.spread <= 1) return root.rows;
  const shards = await Promise.all(shardsAfterRoot(namespace, account, root.spread).map((stub) => stub.rows(from, to)));
  const merged = new Map<string, UsageRow>();
  for (const row of [root, ...shards].flatMap((answer) => answer.rows)) {
    const key = [row.day, row.deployment, row.kind, row.credential].join('\u0000');
    const known = merged.get(key);
    merged.set(
      key,
      known === undefined
        ? row
        : { ...known, requests: known.requests + row.requests, lookups: known.lookups + row.lookups, problems: known.problems + row.problems },
    );
  }
  // Ordered as SQLite orders the text of one object's rows (byte order; the values are ASCII).
  return [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}
