/**
 * @module A small per-isolate cache with a time to live, so that a warm paid request costs no KV
 * round trip. Concurrent misses of one key share one load. Failed loads are not cached.
 */

/** Options of a {@link TtlCache}. */
export interface TtlCacheOptions {
  /** How long an entry is served after it was loaded, in ms. */
  readonly ttlMs: number;
  /** How many entries to keep; the oldest loaded is dropped beyond that. */
  readonly maxEntries: number;
  /** The clock, ms since the epoch (tests move it instead of waiting). */
  readonly now?: () => number;
}

/**
 * Caches the results of loads by key.
 *
 * @example
 * const cache = new TtlCache<string | null>({ ttlMs: 30_000, maxEntries: 1000 });
 * await cache.get('account:acme', () => kv.get('account:acme'));
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: Promise<V>; expiresAt: number }>();
  readonly #now: () => number;

  constructor(readonly options: TtlCacheOptions) {
    this.#now = options.now ?? Date.now;
  }

  /** The cached value of `key`, or the result of `load()` (then cached for `ttlMs`). */
  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.#now();
    const hit = this.#entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = load();
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: now + this.options.ttlMs });
    value.catch(() => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.options.maxEntries) break;
      this.#entries.delete(oldest);
    }
    return value;
  }
}
