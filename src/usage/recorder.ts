/**
 * @module Counts a paid isolate's answers in memory and writes them to the usage store (`ledger.ts`)
 * in batches: a batch gathers the counts of {@link FLUSH_MS}, then one call per account writes it to
 * the ledger object this isolate's slot names (`spread.ts`); the store applies each part once by its
 * id, so any request may retry a write. The request that opens a batch keeps the isolate alive with its
 * `waitUntil` until the batch is written, and a later request takes over when its time runs out.
 * Requests share settled state only, never a promise (docs/decisions/0007-usage-counted-in-batches.md).
 */

import { reportEvent, whyOf } from '../events/operational.ts';
import type { KnownTotals } from './known.ts';
import type { UsageLedger } from './ledger.ts';
import { DayClock } from './period.ts';
import { shardName, shardOf } from './spread.ts';
import type { UsageKind, UsagePart, UsageRow } from './wire.ts';

/** How long a batch gathers counts before it is written, in ms: also what an isolate's knowledge of its accounts' totals may lag by (docs/accounts.md, "Quotas"). */
const FLUSH_MS = 1_000;
/** How long one request's `waitUntil` holds the isolate for a batch, at most: Workers allow 30 s after the answer. */
const KEEP_MS = 25_000;
/** How long a write may go unanswered before another request writes the batch again, in ms (a writer's request may have ended). */
const WRITE_TIMEOUT_MS = 5_000;
/** How often a request waiting for its batch looks again while another request writes, in ms. */
const POLL_MS = 50;
/** After a failed write, how long before the next try, in ms. */
const RETRY_MS = 1_000;

/** One answer to count. */
export interface UsageCount {
  readonly account: string;
  /** The deployment that answered (`REGION`). */
  readonly deployment: string;
  readonly kind: UsageKind;
  /** `key_…`, `ip:<address>` or `website:<hostname>` (`wire.ts`). */
  readonly credential: string;
  /** A success (2xx) counts a request and its lookups; a problem (4xx) counts a problem. */
  readonly outcome: 'success' | 'problem';
  /** The lookups of a success. */
  readonly lookups: number;
}

/** The request context that the recorder uses: its `waitUntil`, and the binding it writes with. */
export interface RecordingRequest {
  readonly ctx: Pick<ExecutionContext, 'waitUntil'>;
  readonly store: DurableObjectNamespace<UsageLedger>;
}

type Row = { -readonly [measure in keyof UsageRow]: UsageRow[measure] };

/** One account's counts in one batch. */
class Part {
  readonly rows = new Map<string, Row>();
  /** Whether the store has confirmed it. */
  acked = false;
  /** The object of the account's ledger it is written to (`spread.ts`), fixed at its first write so that its retries reach the same object. */
  target: number | null = null;

  add(count: UsageCount, day: string): void {
    const key = `${day}\u0000${count.deployment}\u0000${count.kind}\u0000${count.credential}`;
    let row = this.rows.get(key);
    if (row === undefined) {
      row = { day, deployment: count.deployment, kind: count.kind, credential: count.credential, requests: 0, lookups: 0, problems: 0 };
      this.rows.set(key, row);
    }
    if (count.outcome === 'success') {
      row.requests += 1;
      row.lookups += count.lookups;
    } else {
      row.problems += 1;
    }
  }
}

/** The counts of {@link FLUSH_MS} of one isolate, by account. */
class Batch {
  /** Not an `LruMap`: dropping a part would lose its counts. A batch holds the accounts of one {@link FLUSH_MS}, then is written and dropped whole. */
  readonly parts = new Map<string, Part>();
  /** Until when (ms, `performance.now()`) a request's `waitUntil` keeps the isolate for this batch. */
  keptUntil = 0;
  written = false;

  constructor(
    readonly id: string,
    /** When it was opened (ms, `performance.now()`). */
    readonly openedAt: number,
  ) {}
}

/** A write in progress, since when (taken over after {@link WRITE_TIMEOUT_MS}). */
interface Writer {
  readonly since: number;
}

/** Counts one isolate's paid answers; one instance per isolate (`isolate.ts`). */
export class UsageRecorder {
  readonly #days = new DayClock();
  /** This isolate's prefix of batch ids; made on first use (random values cannot be made at start-up). */
  #isolate = '';
  #sequence = 0;
  /** The batch that gathers counts. */
  #open: Batch | null = null;
  /** The batch being written: at most one, so that an isolate writes its batches in order and holds at most two. */
  #sealed: Batch | null = null;
  #writer: Writer | null = null;
  /** When the last write failed (ms, `performance.now()`), or -Infinity. */
  #failedAt = Number.NEGATIVE_INFINITY;
  /** This isolate's slot among the objects of a spread ledger (`spread.ts`); drawn on first use, as `#isolate`. */
  #slot = -1;
  readonly #known: KnownTotals;

  /** @param known where the store's answers to this isolate's writes are kept. */
  constructor(known: KnownTotals) {
    this.#known = known;
  }

  /** The UTC day that counts are recorded under now (`Date.now()`, which tests move with fake timers). */
  today(): string {
    return this.#days.dayOf(Date.now());
  }

  /**
   * Counts one answer. Synchronous: the batch is written later, and the first request of a batch
   * keeps the isolate alive until then with its own `waitUntil`.
   */
  record(count: UsageCount, request: RecordingRequest): void {
    const day = this.today();
    const now = performance.now();
    let batch = this.#open;
    if (batch === null) {
      if (this.#isolate === '') {
        this.#isolate = crypto.randomUUID();
        this.#slot = crypto.getRandomValues(new Uint32Array(1))[0] as number;
      }
      batch = new Batch(`${this.#isolate}.${++this.#sequence}`, now);
      this.#open = batch;
    }
    // The request that opened the batch keeps it; while the store fails for long, a later one takes over.
    if (batch.keptUntil - now < KEEP_MS / 2) {
      batch.keptUntil = now + KEEP_MS;
      request.ctx.waitUntil(this.#keep(batch, request.store));
    }
    let part = batch.parts.get(count.account);
    if (part === undefined) {
      part = new Part();
      batch.parts.set(count.account, part);
    }
    part.add(count, day);
  }

  /** This isolate's counts of `account` that the store has not confirmed, with the ids of their parts (at most two: the batch being written and the open one). */
  unconfirmed(account: string): { id: string; rows: Iterable<UsageRow> }[] {
    return [...this.#unackedWithIds(account)].map(([id, part]) => ({ id, rows: part.rows.values() }));
  }

  /** Marks this isolate's parts of `account` among `ids` confirmed: a read of the ledger found them applied. */
  confirm(account: string, ids: readonly string[]): void {
    for (const [id, part] of this.#unackedWithIds(account)) if (ids.includes(id)) part.acked = true;
  }

  /** The waitUntil of the request that keeps `batch`: waits until it is due, then writes (or waits for another's write), until it is written or this request's time is up. */
  async #keep(batch: Batch, store: DurableObjectNamespace<UsageLedger>): Promise<void> {
    const until = performance.now() + KEEP_MS;
    await sleep(batch.openedAt + FLUSH_MS - performance.now());
    while (!batch.written && performance.now() < until) {
      if (this.#sealed === null && this.#open !== null && performance.now() - this.#open.openedAt >= FLUSH_MS) {
        this.#sealed = this.#open;
        this.#open = null;
      }
      const writer = this.#writer;
      const idle = writer === null || performance.now() - writer.since > WRITE_TIMEOUT_MS + POLL_MS;
      if (this.#sealed !== null && idle && performance.now() - this.#failedAt >= RETRY_MS) {
        await this.#write(this.#sealed, store);
        continue;
      }
      await sleep(POLL_MS);
    }
    if (!batch.written) {
      const requests = [...batch.parts.values()].reduce((sum, part) => sum + [...part.rows.values()].reduce((n, row) => n + row.requests + row.problems, 0), 0);
      reportEvent({ event: 'usage-unwritten', batch: batch.id, answers: requests, keptMs: KEEP_MS });
    }
  }

  /** Writes each account's part of `batch` that the store has not confirmed, one call per account; marks the batch written once all are. */
  async #write(batch: Batch, store: DurableObjectNamespace<UsageLedger>): Promise<void> {
    const writer: Writer = { since: performance.now() };
    this.#writer = writer;
    try {
      const day = this.today();
      const pending = [...batch.parts].filter(([, part]) => !part.acked);
      const results = await Promise.allSettled(
        pending.map(([account, part]) => {
          part.target ??= shardOf(this.#slot, this.#known.spreadOf(account));
          return store.getByName(shardName(account, part.target)).add([wirePart(batch.id, part)], day, { account, shard: part.target });
        }),
      );
      let failed: unknown = null;
      for (const [index, result] of results.entries()) {
        const [account, part] = pending[index] as [string, Part];
        if (result.status === 'rejected') {
          failed = result.reason;
          continue;
        }
        part.acked = true;
        this.#known.remember(account, day, result.value, result.value.spread);
      }
      if (failed === null) {
        batch.written = true;
        if (this.#sealed === batch) this.#sealed = null;
      } else {
        this.#failedAt = performance.now();
        reportEvent({ event: 'usage-write-failed', batch: batch.id, retryMs: RETRY_MS, why: whyOf(failed) });
      }
    } finally {
      if (this.#writer === writer) this.#writer = null;
    }
  }

  *#unackedWithIds(account: string): Generator<[string, Part]> {
    for (const batch of [this.#sealed, this.#open]) {
      const part = batch?.parts.get(account);
      if (batch && part && !part.acked) yield [batch.id, part];
    }
  }
}

function wirePart(id: string, part: Part): UsagePart {
  return { id, rows: [...part.rows.values()] };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
