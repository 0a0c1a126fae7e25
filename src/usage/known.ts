/**
 * @module What one isolate knows of its accounts' totals: the latest that the usage store told it, by
 * the answer to a write of this isolate's counts or by a read of the whole ledger, and over how many
 * objects the account's ledger is spread. An account absent here is unknown to the isolate
 * (`reads.ts` reads it before a quota is decided on it).
 */
import { LruMap } from '../memory/lru-map.ts';
import { LEDGER_SHARDS } from './spread.ts';
import { atLeast } from './totals.ts';
import type { AccountTotals } from './wire.ts';

/** How many accounts an isolate keeps (about 300 bytes each); the longest unused goes first, and is read again before its next quota decision. */
const MAX_ACCOUNTS = 10_000;

/** An account as the store last told this isolate. */
export interface KnownAccount {
  readonly totals: AccountTotals;
  /** The ledger's spread (`spread.ts`): 1 or {@link LEDGER_SHARDS}. */
  readonly spread: number;
}

/** What one isolate knows of its accounts; one instance per isolate (`isolate.ts`). */
export class KnownTotals {
  readonly #accounts = new LruMap<string, KnownAccount>(MAX_ACCOUNTS);

  /** What this isolate knows of the account, or undefined when it does not know it (never told, or forgotten). */
  get(account: string): KnownAccount | undefined {
    return this.#accounts.get(account);
  }

  /** The ledger's spread as last told, 1 when unknown (a write then goes to the root, whose answer tells it). */
  spreadOf(account: string): number {
    return this.#accounts.get(account)?.spread ?? 1;
  }

  /**
   * Keeps what the store told of `account` on `day` (the writer's or reader's day): for each measure
   * the larger of it and what this isolate knew of the same day and month, since answers from several
   * objects, or a read and a write, may come back in any order, and each is a lower bound of the truth.
   */
  remember(account: string, day: string, totals: AccountTotals, spread: number): void {
    const known = this.#accounts.get(account);
    // An answer of yesterday that comes back after today's adds to the month only.
    const latest = known !== undefined && known.totals.day > day ? known.totals.day : day;
    this.#accounts.set(account, {
      totals: atLeast(latest, known?.totals, totals),
      spread: spread === LEDGER_SHARDS || known?.spread === LEDGER_SHARDS ? LEDGER_SHARDS : 1,
    });
  }
}
