/**
 * @module Asks a client's {@link RateLimiter} Durable Object for a decision, and decides in this
 * isolate when it cannot: after an RPC error or no answer within {@link LIMITER_TIMEOUT_MS}, an
 * {@link IsolateLimiter} with the same windows decides that counter's requests for
 * {@link LIMITER_RETRY_MS} before its object is asked again (fail soft: an outage neither refuses every
 * free request nor admits them all). The switch is per counter (`ClientKey.network`): one object that
 * fails leaves every other client decided by its own object. The wait is bounded by one timer settled
 * inside one promise, since an RPC call takes no `AbortSignal`.
 */

import { reportEvent, whyOf } from '../events/operational.ts';
import type { ClientKey } from '../ip/client-key.ts';
import { LruMap } from '../memory/lru-map.ts';
import { IsolateLimiter } from './fallback.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { type LimitDecision, policiesOf } from './window.ts';
import { unpackDecision } from './wire.ts';

/** How long a Durable Object answer may take before the isolate decides instead, in ms. */
const LIMITER_TIMEOUT_MS = 1000;
/** After a counter's object failed, how long this isolate decides for that counter alone before asking it again, in ms. */
const LIMITER_RETRY_MS = 5000;
/** How many counters in their retry delay an isolate remembers; the least recently used is forgotten beyond that (and asked again). */
const MAX_FAILED_COUNTERS = 10_000;

/** Who decided: the client's Durable Object (exact, global) or this isolate (while that object is out). */
export type LimitSource = 'durable-object' | 'isolate';

/** A decision and who made it. */
export interface CheckedLimit {
  readonly decision: LimitDecision;
  readonly source: LimitSource;
}

/** Decides free-plan requests; one instance per isolate. */
export class RateLimitClient {
  readonly #fallback = new IsolateLimiter();
  readonly #now: () => number;
  readonly #timeoutMs: number;
  readonly #retryMs: number;
  /** Per counter whose object failed: until when (ms since the epoch) this isolate decides for it. */
  readonly #localUntil = new LruMap<string, number>(MAX_FAILED_COUNTERS);

  /**
   * @param options.now the clock in ms since the epoch, for the fallback and the retry delay.
   * @param options.timeoutMs defaults to {@link LIMITER_TIMEOUT_MS}; `retryMs` to {@link LIMITER_RETRY_MS}.
   */
  constructor(options: { now?: () => number; timeoutMs?: number; retryMs?: number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = options.timeoutMs ?? LIMITER_TIMEOUT_MS;
    this.#retryMs = options.retryMs ?? LIMITER_RETRY_MS;
  }

  /**
   * Decides one request of the client `key`, counting it when admitted.
   *
   * @param namespace the `RATE_LIMITER` binding.
   * @param key the client key from `clientKey()`: its `network` names the Durable Object.
   * @returns never rejects: an unreachable Durable Object yields the isolate's decision.
   */
  async check(namespace: DurableObjectNamespace<RateLimiter>, key: ClientKey): Promise<CheckedLimit> {
    const now = this.#now();
    const localUntil = this.#localUntil.get(key.network);
    if (localUntil === undefined || now >= localUntil) {
      try {
        const packed = await withTimeout(namespace.getByName(key.network).hit(key.subnet), this.#timeoutMs);
        if (localUntil !== undefined) this.#localUntil.delete(key.network);
        return { decision: unpackDecision(packed, policiesOf(key.subnet)), source: 'durable-object' };
      } catch (error) {
        this.#localUntil.set(key.network, now + this.#retryMs);
        reportEvent({ event: 'rate-limiter-unreachable', call: 'hit', why: whyOf(error), localMs: this.#retryMs });
      }
    }
    return { decision: this.#fallback.decide(key, now, true), source: 'isolate' };
  }

  /**
   * Takes back the admission of one request of `key` that {@link check} counted, where it was counted
   * (`counted.source`), for an answer that is not to count.
   *
   * @returns the state after it; null when the Durable Object cannot be reached (an event: the request
   *   then stays counted, and the counter is not switched to this isolate for a refund alone).
   */
  async refund(namespace: DurableObjectNamespace<RateLimiter>, key: ClientKey, counted: LimitSource): Promise<LimitDecision | null> {
    if (counted === 'isolate') return this.#fallback.refund(key, this.#now());
    try {
      return unpackDecision(await withTimeout(namespace.getByName(key.network).refund(key.subnet), this.#timeoutMs), policiesOf(key.subnet));
    } catch (error) {
      reportEvent({ event: 'rate-limiter-unreachable', call: 'refund', why: whyOf(error) });
      return null;
    }
  }
}

/** `promise`'s outcome, or a rejection after `ms` milliseconds; the timer is cleared as soon as it settles. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
