/**
 * @module A small per-isolate cache with a time to live, so that a warm paid request costs no KV round
 * trip. It holds settled values, never promises: a request may not wait on I/O that another request
 * started ("Cannot perform I/O on behalf of a different request"), so each request that misses reads KV
 * itself and stores what it read. Its bound is that of `memory/lru-map.ts`.
 */
import { LruMap, type Settled } from '../memory/lru-map.ts';

/** Options of a {@link TtlCache}. */
export interface TtlCacheOptions {
  /** How long an entry is served after it was stored, in ms. */
  readonly ttlMs: number;
  /** How many entries to keep; the least recently used is dropped beyond that. */
  readonly maxEntries: number;
  /** The clock, ms since the epoch (tests move it instead of waiting); `Date.now()` by default. */
  readonly now?: () => number;
}

/** A cached value; absent from the cache means "not known", so that `null` can be a value. */
export interface CacheHit<V> {
  readonly value: V;
}

/**
 * Values by key, each served for `ttlMs` after it was stored.
 *
 * @example
 * const cache = new TtlCache<string>({ ttlMs: 30_000, maxEntries: 1000 });
 * const hit = cache.get('account:acme');
 * const value = hit ? hit.value : await kv.get('account:acme'); // this request's own read
 * if (!hit && value !== null) cache.set('account:acme', value);
 */
export class TtlCache<V extends Settled> {
  readonly #entries: LruMap<string, { readonly value: V; readonly expiresAt: number }>;
  readonly #now: () => number;

  constructor(readonly options: TtlCacheOptions) {
    this.#entries = new LruMap(options.maxEntries);
    this.#now = options.now ?? (() => Date.now());
  }

  /** The entry of `key` while it is fresh, else undefined (an expired entry is dropped). */
  get(key: string): CacheHit<V> | undefined {
    const hit = this.#entries.get(key);
    if (hit === undefined) return undefined;
    if (hit.expiresAt > this.#now()) return hit;
    this.#entries.delete(key);
    return undefined;
  }

  /** Stores `value` under `key` for `ttlMs`, dropping the least recently used entry beyond `maxEntries`. */
  set(key: string, value: V): void {
    this.#entries.set(key, { value, expiresAt: this.#now() + this.options.ttlMs });
  }
}
