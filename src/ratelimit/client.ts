/**
 * @module Asks a client's {@link RateLimiter} Durable Object for a decision, and decides in this
 * isolate when it cannot: after an RPC error or no answer within {@link LIMITER_TIMEOUT_MS}, an
 * {@link IsolateLimiter} with the same windows decides for {@link LIMITER_RETRY_MS} before the object
 * is asked again (fail soft: an outage neither refuses every free request nor admits them all). The
 * wait is bounded by one timer settled inside one promise, since an RPC call takes no `AbortSignal`.
 */

import { IsolateLimiter } from './fallback.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { LimitDecision } from './window.ts';
import { unpackDecision } from './wire.ts';

/** How long a Durable Object answer may take before the isolate decides instead, in ms. */
const LIMITER_TIMEOUT_MS = 1000;
/** After a failure, how long this isolate decides on its own before asking Durable Objects again, in ms. */
const LIMITER_RETRY_MS = 5000;

/** Who decided: the client's Durable Object (exact, global) or this isolate (during an outage). */
export type LimitSource = 'durable-object' | 'isolate';

/** A decision and who made it. */
export interface CheckedLimit {
  readonly decision: LimitDecision;
  readonly source: LimitSource;
}

/** `hit` counts a rate-limited request; `peek` only reads the state for answers that are not limited. */
export type LimitMode = 'hit' | 'peek';

/** Decides free-plan requests; one instance per isolate. */
export class RateLimitClient {
  readonly #fallback = new IsolateLimiter();
  readonly #now: () => number;
  readonly #timeoutMs: number;
  readonly #retryMs: number;
  #localUntil = 0;

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
   * The decision for one request of the client `key`.
   *
   * @param namespace the `RATE_LIMITER` binding.
   * @param key the client key from `clientKey()`, naming the Durable Object.
   * @returns never rejects: an unreachable Durable Object yields the isolate's decision.
   */
  async check(namespace: DurableObjectNamespace<RateLimiter>, key: string, mode: LimitMode): Promise<CheckedLimit> {
    const now = this.#now();
    if (now >= this.#localUntil) {
      try {
        const stub = namespace.getByName(key);
        const packed = await withTimeout(mode === 'hit' ? stub.hit() : stub.peek(), this.#timeoutMs);
        return { decision: unpackDecision(packed), source: 'durable-object' };
      } catch (error) {
        this.#localUntil = now + this.#retryMs;
        console.error(`rate limiter unreachable; deciding in this isolate for ${this.#retryMs} ms`, error);
      }
    }
    return { decision: this.#fallback.decide(key, now, mode === 'hit'), source: 'isolate' };
  }

  /**
   * Takes back the admission of one request of `key` that {@link check} counted, where it was counted
   * (`counted.source`), for an answer that is not to count.
   *
   * @returns the state after it; null when the Durable Object cannot be reached (logged: the request
   *   then stays counted, and the isolate's outage mode is not entered for a refund alone).
   */
  async refund(namespace: DurableObjectNamespace<RateLimiter>, key: string, counted: LimitSource): Promise<LimitDecision | null> {
    if (counted === 'isolate') return this.#fallback.refund(key, this.#now());
    try {
      return unpackDecision(await withTimeout(namespace.getByName(key).refund(), this.#timeoutMs));
    } catch (error) {
      console.error('rate limiter unreachable; a request that failed stays counted', error);
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
