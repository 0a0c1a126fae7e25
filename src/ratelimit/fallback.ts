/**
 * @module The limiter of last resort: the same sliding windows, kept in this isolate's memory, used for
 * a counter whose Durable Object cannot be reached (`client.ts`). It is exact for the requests that reach
 * this isolate only, so a client whose requests are spread over n isolates may get up to n times the
 * limit while its object is out. That is the price of keeping the free service up.
 */
import type { ClientKey } from '../ip/client-key.ts';
import { LruMap } from '../memory/lru-map.ts';
import { type Admitted, admit, type LimitDecision, withdraw } from './window.ts';

/** A bounded per-isolate store of logs, one per counter (`ClientKey.network`). */
export class IsolateLimiter {
  readonly #logs: LruMap<string, readonly Admitted[]>;

  /** @param maxCounters how many logs to keep; the least recently used is dropped beyond that. */
  constructor(readonly maxCounters = 10_000) {
    this.#logs = new LruMap(maxCounters);
  }

  /**
   * Decides a request of the client `key` at `now` (ms since the epoch), counting it when admitted unless
   * `consume` is false.
   */
  decide(key: ClientKey, now: number, consume: boolean): LimitDecision {
    const { decision, log } = admit(this.#logs.get(key.network) ?? [], now, { subnet: key.subnet, consume });
    if (log.length > 0) this.#logs.set(key.network, log);
    else this.#logs.delete(key.network);
    return decision;
  }

  /** Takes back the latest admission of the client `key` ({@link withdraw}) and reports the state at `now`. */
  refund(key: ClientKey, now: number): LimitDecision {
    const log = withdraw(this.#logs.get(key.network) ?? [], key.subnet);
    if (log.length > 0) this.#logs.set(key.network, log);
    else this.#logs.delete(key.network);
    return this.decide(key, now, false);
  }
}
