/**
 * @module The operational events: what an operator must find with invocation logs off (a 5xx answered,
 * a usage write that failed, a rate limiter out of reach, a revoked key presented, …), each written as
 * one line of JSON that Workers Logs indexes field by field (docs/production.md, "Operational events").
 * Each kind is bounded per isolate (`bound.ts`), so that no client can make every request log; strings
 * are cut to {@link MAX_TEXT} characters, so that no input can make an event large.
 */
import { EventBound } from './bound.ts';
import { coloOf, type RequestPlace } from './place.ts';

/** One operational event, without the fields every event carries (`colo`, `suppressed`). */
export type OperationalEvent =
  /** 500 `INTERNAL_ERROR` answered for an error nobody expected (`errors/render.ts`): its name and message, and its stack's first lines. */
  | { readonly event: 'internal-error'; readonly status: 500; readonly why: string; readonly stack?: string }
  /**
   * 503 `DATA_UNAVAILABLE` answered: no verified database could be had for the request, or its wait
   * for another request's load was given up (`why` says which, as the problem's cause); sharded, a
   * shard could not answer the request's addresses (`why`: `shard <index>: ` and the shard's reason).
   */
  | { readonly event: 'data-unavailable'; readonly status: 503; readonly why: string }
  /** 503 `ACCOUNTS_UNAVAILABLE` answered: KV could not be read for a credential the isolate had not cached. */
  | { readonly event: 'accounts-unavailable'; readonly status: 503; readonly why: string }
  /** 503 `USAGE_UNAVAILABLE` answered: the usage store could not be read for `account` (`GET /api/usage`). */
  | { readonly event: 'usage-read-failed'; readonly status: 503; readonly account: string; readonly why: string }
  /** The totals of `account` could not be read for its quotas; requests are admitted on what this isolate counted (docs/accounts.md). */
  | { readonly event: 'usage-totals-unread'; readonly account: string; readonly why: string }
  /** Ledger shard `shard` of `account` could not tell its root its totals (usage Worker); it tries again after `retryMs`. */
  | { readonly event: 'usage-shard-unsynced'; readonly account: string; readonly shard: number; readonly retryMs: number; readonly why: string }
  /** A write of usage batch `batch` failed; it is tried again after `retryMs`. */
  | { readonly event: 'usage-write-failed'; readonly batch: string; readonly retryMs: number; readonly why: string }
  /** Batch `batch` was not written within `keptMs`: its `answers` are lost if the isolate ends before a later request writes them. */
  | { readonly event: 'usage-unwritten'; readonly batch: string; readonly answers: number; readonly keptMs: number }
  /**
   * A free client's rate limiter did not answer: on `hit`, this isolate decides that counter's requests
   * for `localMs`; on `refund`, a request that failed stays counted.
   */
  | { readonly event: 'rate-limiter-unreachable'; readonly call: 'hit' | 'refund'; readonly why: string; readonly localMs?: number }
  /** A revoked API key was presented (answered 401). */
  | { readonly event: 'revoked-key'; readonly account: string; readonly key: string }
  /** An entry of the `ACCOUNTS` namespace is not valid, and is ignored (an operator's mistake). */
  | { readonly event: 'invalid-account-entry'; readonly key: string; readonly why: string }
  /** Shard Worker `shard` failed to answer the app (its lookups answer as unavailable). */
  | { readonly event: 'shard-unavailable'; readonly shard: number; readonly why: string };

/** The kinds written at level `warn` in Workers Logs; all others are errors. */
const WARNINGS: ReadonlySet<OperationalEvent['event']> = new Set(['revoked-key']);

/** The most characters of a string field (a reason, a key name); a stack gets {@link MAX_STACK}. */
const MAX_TEXT = 300;
const MAX_STACK = 1_000;

/** Writes one line at a level; `console.error` and `console.warn` by default. */
type Sink = (level: 'error' | 'warn', line: string) => void;

const consoleSink: Sink = (level, line) => (level === 'warn' ? console.warn(line) : console.error(line));

/** The events of one isolate: the bound, and where lines go. */
class OperationalEvents {
  readonly #bound: EventBound;
  readonly #sink: Sink;

  constructor(now: () => number, sink: Sink) {
    this.#bound = new EventBound(now);
    this.#sink = sink;
  }

  report(event: OperationalEvent, place?: RequestPlace): void {
    const admitted = this.#bound.admit(event.event);
    if (admitted === null) return;
    const colo = coloOf(place);
    const fields = Object.fromEntries(
      Object.entries(event).map(([name, value]) => [name, typeof value === 'string' ? value.slice(0, name === 'stack' ? MAX_STACK : MAX_TEXT) : value]),
    );
    const line = {
      ...fields,
      ...(colo === undefined ? {} : { colo }),
      ...(admitted.suppressed > 0 ? { suppressed: admitted.suppressed } : {}),
    };
    this.#sink(WARNINGS.has(event.event) ? 'warn' : 'error', JSON.stringify(line));
  }
}

/** This isolate's events, on the console. */
const isolateEvents = new OperationalEvents(() => Date.now(), consoleSink);

/**
 * Writes `event` as one JSON line, unless this isolate wrote `EVENTS_PER_MINUTE` (`bound.ts`) of its
 * kind in the last minute: then it is only counted, and the next one written carries `suppressed`, how many
 * were not. With `place`, the line names the Cloudflare location (`colo`).
 *
 * @example reportEvent({ event: 'data-unavailable', status: 503, why: 'the load did not finish within 20 s' }, c.req.raw)
 */
export function reportEvent(event: OperationalEvent, place?: RequestPlace): void {
  isolateEvents.report(event, place);
}

/** An error as an event's `why`: its name and message (a thrown value that is not an `Error`, as text). */
export function whyOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
