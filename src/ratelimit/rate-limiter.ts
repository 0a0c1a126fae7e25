/**
 * @module The Durable Object that counts one free-plan client's requests (one object per client key:
 * an IPv4 address or an IPv6 /64, `ip/client-key.ts`). Its log of admitted requests lives in the
 * object's memory only, and is read, decided on and replaced with no `await` in between, so concurrent
 * requests of one client are decided one after another. Why memory is enough, and what an abnormal
 * reset costs: docs/decisions/0003-rate-limiter-in-memory-log.md.
 */
import { DurableObject } from 'cloudflare:workers';
import { admit, withdraw } from './window.ts';
import { packDecision } from './wire.ts';

/** Counts one client's requests. Called over RPC by `ratelimit/client.ts`. */
export class RateLimiter extends DurableObject<Env> {
  /**
   * Admitted request times in ms since the epoch, ascending, pruned to the longest window by `admit`
   * (at most 60 entries under the free plan's policies).
   */
  #log: readonly number[] = [];

  /**
   * Decides a rate-limited request and, when it is admitted, counts it.
   *
   * @param now the request time in ms since the epoch; the object's own clock when omitted (production).
   *   Tests pass it to walk through windows without waiting.
   * @returns the decision, with the state of every policy after it, packed by `packDecision` (`wire.ts`).
   */
  hit(now: number = Date.now()): number {
    const { decision, log } = admit(this.#log, now);
    this.#log = log;
    return packDecision(decision);
  }

  /**
   * The state of the policies at `now` without counting anything: for free answers that are not
   * rate-limited (`/openapi.json`, `/docs`) but still carry the RateLimit fields.
   *
   * @param now ms since the epoch; the object's own clock when omitted.
   * @returns the decision packed by `packDecision` (`wire.ts`).
   */
  peek(now: number = Date.now()): number {
    return packDecision(admit(this.#log, now, { consume: false }).decision);
  }

  /**
   * Takes back the latest admission ({@link withdraw}), for a request whose answer is not to count (a
   * 5xx of the service), and reports the state after it.
   *
   * @param now ms since the epoch; the object's own clock when omitted.
   * @returns the state of the policies, packed by `packDecision` (`wire.ts`).
   */
  refund(now: number = Date.now()): number {
    this.#log = withdraw(this.#log);
    return this.peek(now);
  }

  /**
   * The admitted request times that this instance holds (ms since the epoch, ascending), as a copy.
   * Read-only and for tests, which call it through `runInDurableObject`; the Worker never does.
   */
  admittedTimes(): number[] {
    return [...this.#log];
  }
}
