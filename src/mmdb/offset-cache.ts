/** @module The bounded cache of the lookup path by offset: a set-associative map from 32-bit integer keys (data offsets, address prefixes) to values, for the search tree's paths and the entry caches. */

/**
 * A cache of `2 ** bits` slots: a key's Fibonacci hash picks a set of `ways` slots, most recently used
 * first; a hit moves to the front, a new entry takes the front and drops the last. Its memory is fixed
 * when it is made; a hit in the first slot costs a multiply and two array reads. `undefined` is not a
 * value: {@link get} answers it for a key that is not cached.
 * @example const names = new OffsetCache<string>(12, 4); names.get(4711) ?? names.set(4711, decode(4711));
 */
export class OffsetCache<V> {
  private readonly keys: Int32Array;
  private readonly values: (V | undefined)[];
  private readonly shift: number;
  private readonly ways: number;
  /** Clears the low bits of a slot index: the first slot of its set. */
  private readonly setMask: number;

  /**
   * @param bits log2 of the slots, 1 to 24.
   * @param ways slots per set: 1 (direct-mapped), 2, 4 or 8; fewer in a cache of fewer slots.
   * @throws RangeError for other values.
   */
  constructor(bits: number, ways = 4) {
    if (!Number.isInteger(bits) || bits < 1 || bits > 24) throw new RangeError(`a cache cannot have 2^${bits} slots`);
    if (![1, 2, 4, 8].includes(ways)) throw new RangeError(`a cache cannot have sets of ${ways}`);
    ways = Math.min(ways, 1 << bits);
    // An empty slot's key is -1 and its value undefined, so a get of key -1 finds "not cached" there.
    this.keys = new Int32Array(1 << bits).fill(-1);
    this.values = new Array<V | undefined>(1 << bits).fill(undefined);
    this.shift = 32 - bits;
    this.ways = ways;
    this.setMask = ~(ways - 1);
  }

  /** The value cached for `key` (an int32), or undefined. */
  get(key: number): V | undefined {
    const keys = this.keys;
    const set = (Math.imul(key, 0x9e3779b1) >>> this.shift) & this.setMask;
    if (keys[set] === key) return this.values[set];
    const end = set + this.ways;
    for (let at = set + 1; at < end; at++) {
      if (keys[at] === key) {
        const value = this.values[at];
        this.moveToFront(set, at, key, value);
        return value;
      }
    }
    return undefined;
  }

  /** Caches `value` for `key` in front of its set, dropping the set's least recently used entry. */
  set(key: number, value: V): V {
    const set = (Math.imul(key, 0x9e3779b1) >>> this.shift) & this.setMask;
    this.moveToFront(set, set + this.ways - 1, key, value);
    return value;
  }

  /** Moves the entries from `set` up to `at` (exclusive) one slot back and puts `key` first. */
  private moveToFront(set: number, at: number, key: number, value: V | undefined): void {
    const { keys, values } = this;
    for (let slot = at; slot > set; slot--) {
      keys[slot] = keys[slot - 1] as number;
      values[slot] = values[slot - 1];
    }
    keys[set] = key;
    values[set] = value;
  }
}
