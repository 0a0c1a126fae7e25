/**
 * @module One isolate's reads of its accounts' whole ledgers (`ledger-reads.ts`): at most one in flight
 * per account, started by the request that needs it and kept alive by that request's `waitUntil`; the
 * other requests that need it poll its settled outcome, never its promise (a Workers rule). A read that
 * has not answered within {@link READ_TIMEOUT_MS} is given up by those waiting (it may still settle, and
 * then counts). Its outcome, the account's exact totals, is kept as what the isolate knows of the account (`known.ts`),
 * which `GET /api/usage` answers for {@link USAGE_CACHE_MS} before it reads again
 * (docs/decisions/0009-ledger-spread-over-shards.md).
 */

import { reportEvent, whyOf } from '../events/operational.ts';
import { LruMap } from '../memory/lru-map.ts';
import type { KnownTotals } from './known.ts';
import type { UsageLedger } from './ledger.ts';
import { readLedgerTotals } from './ledger-reads.ts';
import type { UsageRecorder } from './recorder.ts';

/**
 * How long requests wait for a read, in ms: two round trips between the farthest regions (the root,
 * then the shards of a spread ledger) and an object's start, with room; beyond it the store counts as
 * unreachable for this read.
 *
 * @internal exported for the tests of a slow store, which wait for it (`test/workers-paid/usage-faults.test.ts`).
 */
export const READ_TIMEOUT_MS = 1_500;
/** How long a read's totals answer `GET /api/usage` again, in ms: a flood of it costs the ledger one read a second per isolate and account. */
const USAGE_CACHE_MS = 1_000;
/** After a read failed or was given up, how long before the next may start, in ms. */
const RETRY_MS = 1_000;
/** After how long a read that never settled stops counting as in flight, in ms (the request that held it may have been cancelled). */
const STUCK_MS = 10_000;
/** How often a waiting request looks at the read's outcome, in ms. */
const POLL_MS = 10;
/** How many accounts' reads an isolate remembers; the longest unused goes first. */
const MAX_READS = 10_000;

/** The request that starts a read: its `waitUntil`, and the binding it reads with. */
export interface ReadingRequest {
  readonly ctx: Pick<ExecutionContext, 'waitUntil'>;
  readonly store: DurableObjectNamespace<UsageLedger>;
}

/** The settled state of one account's reads in this isolate (times in ms, `performance.now()`). */
interface ReadState {
  /** When the read in flight started, or null when none is. */
  since: number | null;
  /** When the last read that answered settled, or -Infinity. */
  settledAt: number;
  /** When the last read failed or was given up. */
  failedAt: number;
}

/** Raised when the ledger could not be read in time (`GET /api/usage` answers 503 `USAGE_UNAVAILABLE`). */
export class LedgerUnreadableError extends Error {
  override readonly name = 'LedgerUnreadableError';
}

/** One isolate's reads; one instance per isolate (`isolate.ts`). */
export class AccountReads {
  readonly #states = new LruMap<string, ReadState>(MAX_READS);
  readonly #recorder: UsageRecorder;
  readonly #known: KnownTotals;

  constructor(recorder: UsageRecorder, known: KnownTotals) {
    this.#recorder = recorder;
    this.#known = known;
  }

  /**
   * Makes sure this isolate knows `account`'s totals before a quota is decided on them: when it has no
   * totals of the account, reads the ledger (or waits for the read in flight) for at most
   * {@link READ_TIMEOUT_MS}. Waits only while no read of the account has failed in this isolate; after
   * one, requests go on at once (on what the isolate counted itself) while reads are tried again in the
   * background, each {@link RETRY_MS}.
   *
   * @returns whether the isolate knows the totals now.
   */
  async known(account: string, request: ReadingRequest): Promise<boolean> {
    if (this.#known.get(account) !== undefined) return true;
    const state = this.#state(account);
    const waits = state.failedAt === Number.NEGATIVE_INFINITY;
    this.#startIfDue(account, state, request);
    if (waits) await this.#settle(state, performance.now());
    return this.#known.get(account) !== undefined;
  }

  /**
   * Makes sure what the isolate knows of the account is a read's of at most {@link USAGE_CACHE_MS} ago (or later, kept by
   * writes), for `GET /api/usage`: exact up to the ledger's last write before that read.
   *
   * @throws {LedgerUnreadableError} when no read answered within {@link READ_TIMEOUT_MS}, or one failed
   *   less than {@link RETRY_MS} ago (so that a flood costs the ledger one read a second at most).
   */
  async fresh(account: string, request: ReadingRequest): Promise<void> {
    const state = this.#state(account);
    const asked = performance.now();
    if (asked - state.settledAt < USAGE_CACHE_MS) return;
    this.#startIfDue(account, state, request);
    await this.#settle(state, asked);
    if (state.settledAt >= asked) return;
    throw new LedgerUnreadableError(`the usage ledger of account ${account} did not answer a read within ${READ_TIMEOUT_MS} ms`);
  }

  #state(account: string): ReadState {
    let state = this.#states.get(account);
    if (state === undefined) {
      state = { since: null, settledAt: Number.NEGATIVE_INFINITY, failedAt: Number.NEGATIVE_INFINITY };
      this.#states.set(account, state);
    }
    return state;
  }

  /** Starts a read with `request`'s binding unless one is in flight, or one failed less than {@link RETRY_MS} ago. */
  #startIfDue(account: string, state: ReadState, request: ReadingRequest): void {
    const now = performance.now();
    if (state.since !== null && now - state.since < STUCK_MS) return;
    if (now - state.failedAt < RETRY_MS) return;
    const since = now;
    state.since = since;
    request.ctx.waitUntil(this.#read(account, state, since, request.store));
  }

  /** Waits until the read in flight settles, or {@link READ_TIMEOUT_MS} after it started (then it is given up: a failure for those waiting). */
  async #settle(state: ReadState, asked: number): Promise<void> {
    while (state.since !== null && state.settledAt < asked) {
      if (performance.now() - state.since >= READ_TIMEOUT_MS) {
        state.failedAt = performance.now();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** The read itself, the `waitUntil` of the request that started it: its outcome is settled state that others poll. */
  async #read(account: string, state: ReadState, since: number, store: DurableObjectNamespace<UsageLedger>): Promise<void> {
    const day = this.#recorder.today();
    const own = this.#recorder.unconfirmed(account).map((part) => part.id);
    try {
      const read = await readLedgerTotals(store, account, day, own);
      // The parts it holds are in its totals: from now on they are in what is known, no longer this isolate's own.
      this.#recorder.confirm(account, read.applied);
      this.#known.remember(account, day, read.totals, read.spread);
      state.settledAt = performance.now();
    } catch (error) {
      state.failedAt = performance.now();
      reportEvent({ event: 'usage-totals-unread', account, why: whyOf(error) });
    } finally {
      if (state.since === since) state.since = null;
    }
  }
}
