/**
 * @module What one paid isolate knows and does about its accounts' usage: it counts answers
 * (`recorder.ts`), keeps what the store told it of each account (`known.ts`, `reads.ts`), and notes the
 * lookups of requests admitted and not yet counted; a quota is decided on the sum of the three
 * ({@link IsolateUsage.used}), never above what the store will hold. One instance per app, that is
 * per isolate (`app.ts`).
 */

import { KnownTotals } from './known.ts';
import type { UsedLookups } from './quota.ts';
import { AccountReads } from './reads.ts';
import { UsageRecorder } from './recorder.ts';
import { atLeast, noUse, withRows } from './totals.ts';
import type { AccountTotals } from './wire.ts';

/** Lookups admitted by this isolate whose answers are being made, of an account's keys and addresses, and of its websites. */
interface Admitted {
  byKeys: number;
  byWebsites: number;
}

/** One isolate's usage state. */
export class IsolateUsage {
  readonly known = new KnownTotals();
  readonly recorder = new UsageRecorder(this.known);
  readonly reads = new AccountReads(this.recorder, this.known);
  /**
   * Not an `LruMap`: dropping an entry would forget lookups admitted and not yet counted, and let a quota
   * pass by them. It holds only accounts with a request in flight, each removed when its last settles.
   */
  readonly #admitted = new Map<string, Admitted>();

  /**
   * `account`'s totals today and this month as far as this isolate knows: the store's as it last told
   * them (by a write's answer or a read), and this isolate's counts that the store has not confirmed.
   * Less than the truth by what other isolates counted since the store last told this one: the bound
   * of docs/accounts.md, "Quotas".
   */
  totalsOf(account: string): AccountTotals {
    const day = this.recorder.today();
    const told = this.known.get(account)?.totals;
    // Of another day or month, what it tells of today and this month only (`atLeast`).
    let known = told === undefined ? noUse(day) : atLeast(day, undefined, told);
    for (const part of this.recorder.unconfirmed(account)) known = withRows(known, part.rows);
    return known;
  }

  /** What the quotas of `account` are decided on: {@link totalsOf}, and the lookups admitted and not yet counted. */
  used(account: string): UsedLookups {
    const { dayTotals, monthTotals } = this.totalsOf(account);
    const admitted = this.#admitted.get(account);
    return {
      month: monthTotals.lookups - monthTotals.websiteLookups + (admitted?.byKeys ?? 0),
      websiteToday: dayTotals.websiteLookups + (admitted?.byWebsites ?? 0),
      websiteMonth: monthTotals.websiteLookups + (admitted?.byWebsites ?? 0),
    };
  }

  /** Notes `lookups` admitted for `account` (by a website alone or not), until {@link settle} when its answer is counted or dropped. */
  admit(account: string, website: boolean, lookups: number): void {
    let admitted = this.#admitted.get(account);
    if (admitted === undefined) {
      admitted = { byKeys: 0, byWebsites: 0 };
      this.#admitted.set(account, admitted);
    }
    if (website) admitted.byWebsites += lookups;
    else admitted.byKeys += lookups;
  }

  /** Takes back what {@link admit} noted. */
  settle(account: string, website: boolean, lookups: number): void {
    const admitted = this.#admitted.get(account);
    if (admitted === undefined) return;
    if (website) admitted.byWebsites -= lookups;
    else admitted.byKeys -= lookups;
    if (admitted.byKeys === 0 && admitted.byWebsites === 0) this.#admitted.delete(account);
  }
}
