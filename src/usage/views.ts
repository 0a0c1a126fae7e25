/**
 * @module What one isolate knows of its accounts' totals: the latest that the usage store told it, by
 * the answer to a write of this isolate's counts or by a read of the whole ledger, and over how many
 * objects the account's ledger is spread. An account absent here is unknown to the isolate
 * (`reads.ts` reads it before a quota is decided on it).
 */
import { LEDGER_SHARDS } from './spread.ts';
import { atLeast } from './totals.ts';
import type { AccountTotals } from './wire.ts';

/** How many accounts an isolate keeps (about 300 bytes each); the longest unused goes first, and is read again before its next quota decision. */
const MAX_VIEWS = 10_000;

/** An account as the store last told this isolate. */
export interface AccountView {
  readonly totals: AccountTotals;
  /** The ledger's spread (`spread.ts`): 1 or {@link LEDGER_SHARDS}. */
  readonly spread: number;
}

/** One isolate's views; one instance per isolate (`isolate.ts`). */
export class AccountViews {
  readonly #views = new Map<string, AccountView>();

  /** The account's view, or undefined when this isolate does not know it (never told, or forgotten). */
  get(account: string): AccountView | undefined {
    return this.#views.get(account);
  }

  /** The ledger's spread as last told, 1 when unknown (a write then goes to the root, whose answer tells it). */
  spreadOf(account: string): number {
    return this.#views.get(account)?.spread ?? 1;
  }

  /**
   * Keeps what the store told of `account` on `day` (the writer's or reader's day): for each measure
   * the larger of it and what this isolate knew of the same day and month, since answers from several
   * objects, or a read and a write, may come back in any order, and each is a lower bound of the truth.
   */
  remember(account: string, day: string, totals: AccountTotals, spread: number): void {
    const known = this.#views.get(account);
    // An answer of yesterday that comes back after today's adds to the month only.
    const latest = known !== undefined && known.totals.day > day ? known.totals.day : day;
    // Deleted first, so that the map's order is that of last use.
    this.#views.delete(account);
    this.#views.set(account, {
      totals: atLeast(latest, known?.totals, totals),
      spread: spread === LEDGER_SHARDS || known?.spread === LEDGER_SHARDS ? LEDGER_SHARDS : 1,
    });
    if (this.#views.size > MAX_VIEWS) this.#views.delete(this.#views.keys().next().value as string);
  }
}
