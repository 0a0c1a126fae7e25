/**
 * @module The Durable Object that counts one free-plan client's requests (one object per client key:
 * an IPv4 address or an IPv6 /64, see `ip/client-key.ts`). The log of admitted requests is kept in the
 * object's memory only: nothing is written to storage, and no alarm is set.
 *
 * Exact under concurrency: {@link RateLimiter.hit} reads, decides and replaces the log with no
 * `await` in between, so concurrent requests of one client are decided one after another against the
 * same log.
 *
 * Why memory is enough. Cloudflare's lifecycle documentation
 * (https://developers.cloudflare.com/durable-objects/concepts/durable-object-lifecycle/) keeps an object
 * in memory while its requests come within 10 seconds of each other. An idle object that can hibernate
 * (this one can: no timers, no pending I/O, no WebSockets, so it is not billed for idle time either) may
 * be removed after 10 s without a request or event; one that cannot, after 70 to 140 s. When an eviction
 * follows at least 10 s without a request, the log it loses holds nothing that a later decision can see:
 *
 * - the burst window (10 s) of the next request holds no earlier admission either way;
 * - the minute window needs no memory of its own: "at most 10 in any 10 s", held at every admission,
 *   already bounds any 60 s to six disjoint 10-second windows of at most 10, i.e. 60 (`window.ts`).
 *   An admission after a gap of at least 10 s cannot break the 10-in-10-s rule with what was forgotten,
 *   so the rule, and with it the minute limit, holds over the client's whole history.
 *
 * So the limits stay exact across normal evictions. What memory gives up is the abnormal reset: the
 * object replaced while its client is active (a deployment, an update of the runtime, a move to another
 * host: the same documentation lists these), or evicted after less than 10 s idle (which it does not
 * describe today). The new instance starts with an empty log, so the client may get up to one extra
 * burst (10 requests) in the windows that span the reset: at most 20 in those 10 s, 70 in that minute.
 * That is accepted because these limits protect the service rather than meter anything paid for, resets
 * are rare, and the isolate fallback (`client.ts`) already accepts a looser bound during an outage.
 * Persisting the log cost a storage read on every request and a write on every admitted one (its answer
 * held back until the write was durable), plus an alarm per client to delete it all again, each of them
 * billed; in the profile of BENCHMARKS.md the storage calls and the alarm took nearly a third of the
 * isolate's time per free request. That bought exactness only at the rare resets.
 *
 * Nothing is in storage, so nothing needs cleaning up: a client that came once leaves nothing behind
 * once its object is evicted.
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
