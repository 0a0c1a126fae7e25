/**
 * @module The limiter of last resort: the same sliding windows, kept in this isolate's memory, used
 * while the client's Durable Object cannot be reached. It is exact for the requests that reach this
 * isolate only, so a client whose requests are spread over n isolates may get up to n times the
 * limit during an outage. That is the price of keeping the free service up; see `client.ts`.
 */
import { admit, type LimitDecision, withdraw } from './window.ts';

/** A bounded per-isolate store of logs, one per client key. */
export class IsolateLimiter {
  readonly #logs = new Map<string, number[]>();

  /** @param maxClients how many client logs to keep; the least recently used is dropped beyond that. */
  constructor(readonly maxClients = 10_000) {}

  /**
   * Decides a request of `key` at `now` (ms since the epoch), counting it when admitted unless
   * `consume` is false.
   */
  decide(key: string, now: number, consume: boolean): LimitDecision {
    const { decision, log } = admit(this.#logs.get(key) ?? [], now, { consume });
    this.#logs.delete(key);
    if (log.length > 0) this.#logs.set(key, log);
    for (const oldest of this.#logs.keys()) {
      if (this.#logs.size <= this.maxClients) break;
      this.#logs.delete(oldest);
    }
    return decision;
  }

  /** Takes back the latest admission of `key` ({@link withdraw}) and reports the state at `now`. */
  refund(key: string, now: number): LimitDecision {
    const log = withdraw(this.#logs.get(key) ?? []);
    if (log.length > 0) this.#logs.set(key, log);
    else this.#logs.delete(key);
    return this.decide(key, now, false);
  }
}
