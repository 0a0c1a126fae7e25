/**
 * @module The Durable Object that counts free-plan requests: one object per counter (`ip/client-key.ts`),
 * an IPv4 address, or an IPv6 /48 that keeps the requests of all its /64s, so that one call decides a
 * request against its /64, its /56 and its /48 (why one object and not three:
 * docs/decisions/0003-rate-limiter-in-memory-log.md). Its log of admitted requests lives in the object's
 * memory only, and is read, decided on and replaced with no `await` in between, so concurrent requests of
 * one counter are decided one after another.
 */
import { DurableObject } from 'cloudflare:workers';
import { type Admitted, admit, policiesOf, withdraw } from './window.ts';
import { packDecision } from './wire.ts';

/** Counts one counter's requests. Called over RPC by `ratelimit/client.ts`. */
export class RateLimiter extends DurableObject<Env> {
  /**
   * Admitted requests by time (ms since the epoch), ascending, pruned to the longest window by `admit`:
   * at most 60 under the IPv4 policies, 3,840 under the IPv6 ones (the /48's minute quota).
   */
  #log: readonly Admitted[] = [];

  /**
   * Decides a request of one client of this counter and, when it is admitted, counts it.
   *
   * @param subnet the client key's `subnet`: null for an IPv4 address, else the client's /64 in this /48.
   * @param now the request time in ms since the epoch; the object's own clock when omitted (production).
   *   Tests pass it to walk through windows without waiting.
   * @returns the decision, packed by `packDecision` (`wire.ts`) under the client's policies.
   */
  hit(subnet: number | null, now: number = Date.now()): number {
    const { decision, log } = admit(this.#log, now, { subnet });
    this.#log = log;
    return packDecision(decision, policiesOf(subnet));
  }

  /**
   * Takes back the client's latest admission ({@link withdraw}), for a request whose answer is not to
   * count (a 5xx of the service), and reports the state after it.
   *
   * @param subnet as for {@link hit}.
   * @param now ms since the epoch; the object's own clock when omitted.
   * @returns the state of the client's policies, packed by `packDecision` (`wire.ts`).
   */
  refund(subnet: number | null, now: number = Date.now()): number {
    this.#log = withdraw(this.#log, subnet);
    return packDecision(admit(this.#log, now, { subnet, consume: false }).decision, policiesOf(subnet));
  }

  /**
   * The admitted request times that this instance holds (ms since the epoch, ascending), of one /64
   * when `subnet` is given, as a copy. Read-only and for tests, which call it through
   * `runInDurableObject`; the Worker never does.
   */
  admittedTimes(subnet?: number): number[] {
    return this.#log.filter((entry) => subnet === undefined || entry.subnet === subnet).map((entry) => entry.at);
  }
}
