/**
 * @module A bounded cache keyed by offset (a data-section offset identifies a stored value), for
 * values that are decoded or derived once and asked for often.
 *
 * Direct-mapped: each offset has one slot (a Fibonacci hash of it), and a newer entry replaces the
 * one in its slot. A lookup or a replacement costs a multiply and two array reads; there is no
 * eviction bookkeeping, and the memory is fixed when it is made, whatever is asked.
 */

/** A direct-mapped cache of `2 ** bits` slots from non-negative offsets to values. */
export class OffsetCache<V> {
  private readonly keys: Int32Array;
  private readonly values: (V | undefined)[];
  private readonly shift: number;

  /** @param bits log2 of the number of slots, 1..30. */
  constructor(bits: number) {
    if (!Number.isInteger(bits) || bits < 1 || bits > 30) throw new RangeError(`cache bits ${bits} out of 1..30`);
    this.keys = new Int32Array(1 << bits).fill(-1);
    this.values = new Array<V | undefined>(1 << bits).fill(undefined);
    this.shift = 32 - bits;
  }

  /** The value stored for `offset`, or undefined. */
  get(offset: number): V | undefined {
    const slot = Math.imul(offset, 0x9e3779b1) >>> this.shift;
    return this.keys[slot] === offset ? this.values[slot] : undefined;
  }

  /** Stores `value` for `offset` (0 ≤ offset < 2³¹), replacing whatever held its slot. */
  set(offset: number, value: V): void {
    const slot = Math.imul(offset, 0x9e3779b1) >>> this.shift;
    this.keys[slot] = offset;
    this.values[slot] = value;
  }
}
