/**
 * @module The one bounded map of per-isolate state: at most a fixed number of entries, the least
 * recently used dropped first, and settled values only, never a promise, since a request may not await
 * I/O that another request started (docs/architecture.md, "Rules that hold everywhere").
 */

/** What per-isolate state may hold: anything but a promise or another thenable. */
export type Settled = null | string | number | boolean | bigint | symbol | (object & { readonly then?: never });

/**
 * A `Map` of at most `maxEntries` entries. Reading ({@link get}) or writing ({@link set}) an entry makes
 * it the most recently used; writing a new key to a full map drops the least recently used. Each call
 * costs a constant number of `Map` operations: `Map` keeps its keys in insertion order, so the least
 * recently used is the first key.
 *
 * @example
 * const seen = new LruMap<string, number>(10_000);
 * seen.set('203.0.113.7', Date.now());
 * seen.get('203.0.113.7'); // the time, now the most recently used entry
 */
export class LruMap<K, V extends Settled> {
  readonly #entries = new Map<K, V>();

  /**
   * @param maxEntries how many entries it keeps, at least 1.
   * @throws {RangeError} for a size that is not a whole number of at least 1.
   */
  constructor(readonly maxEntries: number) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError(`a bounded map cannot hold ${maxEntries} entries`);
  }

  /** How many entries it holds. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value of `key`, which becomes the most recently used; undefined when it holds none. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Sets the value of `key`, which becomes the most recently used, and drops the least recently used entry beyond {@link maxEntries}. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as K);
  }

  /** Removes the entry of `key`; whether there was one. */
  delete(key: K): boolean {
    return this.#entries.delete(key);
  }
}
