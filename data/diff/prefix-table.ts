/**
 * @module Every prefix of a build's ASN object in address order, each with its ASN, for lookups of single
 * addresses: which ASN holds an address (the longest prefix containing it) and whether a given ASN holds
 * a prefix containing it. Prefixes sit in the 128-bit space of the database's tree (IPv4 at ::/96). Two
 * CIDR prefixes nest or are apart; where prefixes of several ASNs nest, each is kept, linked to the one
 * that encloses it.
 */

/** Word `w` of the last address of a prefix starting at `start` (four words) with `length` bits of 128. */
function lastWord(starts: Uint32Array, at: number, length: number, w: number): number {
  const kept = length - w * 32;
  const word = starts[at * 4 + w] as number;
  return kept >= 32 ? word : kept <= 0 ? 0xffffffff : (word | (0xffffffff >>> kept)) >>> 0;
}

/** Prefixes added one by one, then {@link PrefixTable.sorted} into a table. */
export class PrefixTable {
  private starts = new Uint32Array(4 * 1024);
  private lengths = new Uint8Array(1024);
  private asns = new Uint32Array(1024);
  /** For each prefix (sorted), the closest prefix that encloses it, or -1. */
  private parents = new Int32Array(0);
  private count = 0;

  /** Adds a prefix: its first address as four words (IPv4 in `w3` with `w0`..`w2` zero), its length in the 128-bit space. */
  add(w0: number, w1: number, w2: number, w3: number, length: number, asn: number): void {
    if (this.count === this.lengths.length) {
      const grown = <T extends Uint32Array | Uint8Array>(array: T, make: (n: number) => T): T => {
        const next = make(array.length * 2);
        next.set(array);
        return next;
      };
      this.starts = grown(this.starts, (n) => new Uint32Array(n));
      this.lengths = grown(this.lengths, (n) => new Uint8Array(n));
      this.asns = grown(this.asns, (n) => new Uint32Array(n));
    }
    const at = this.count * 4;
    this.starts[at] = w0;
    this.starts[at + 1] = w1;
    this.starts[at + 2] = w2;
    this.starts[at + 3] = w3;
    this.lengths[this.count] = length;
    this.asns[this.count] = asn;
    this.count++;
  }

  /** Sorts what was added by first address, the enclosing prefix first, and links each to its encloser. */
  sorted(): this {
    const { starts, lengths, asns, count } = this;
    const order = Int32Array.from({ length: count }, (_, i) => i);
    order.sort((a, b) => {
      for (let w = 0; w < 4; w++) {
        const x = starts[a * 4 + w] as number;
        const y = starts[b * 4 + w] as number;
        if (x !== y) return x - y;
      }
      return (lengths[a] as number) - (lengths[b] as number) || (asns[a] as number) - (asns[b] as number);
    });
    this.starts = new Uint32Array(count * 4);
    this.lengths = new Uint8Array(count);
    this.asns = new Uint32Array(count);
    for (let i = 0; i < count; i++) {
      const from = order[i] as number;
      for (let w = 0; w < 4; w++) this.starts[i * 4 + w] = starts[from * 4 + w] as number;
      this.lengths[i] = lengths[from] as number;
      this.asns[i] = asns[from] as number;
    }
    this.parents = new Int32Array(count);
    const open: number[] = [];
    for (let i = 0; i < count; i++) {
      // The open prefixes that end before this one starts are closed; the last left encloses it.
      while (open.length > 0 && this.endsBefore(open.at(-1) as number, i)) open.pop();
      this.parents[i] = open.at(-1) ?? -1;
      open.push(i);
    }
    return this;
  }

  /** Prefixes in the table. */
  get size(): number {
    return this.count;
  }

  /** The ASN of the longest prefix that contains the address (four words, IPv4 in `w3` at ::/96), 0 when none does. */
  holderOf(w0: number, w1: number, w2: number, w3: number): number {
    const at = this.containing(w0, w1, w2, w3);
    return at < 0 ? 0 : (this.asns[at] as number);
  }

  /** Whether a prefix of `asn` contains the address. */
  holds(asn: number, w0: number, w1: number, w2: number, w3: number): boolean {
    for (let at = this.containing(w0, w1, w2, w3); at >= 0; at = this.parents[at] as number) if (this.asns[at] === asn) return true;
    return false;
  }

  /** Whether the prefix at `a` ends before the one at `b` starts. */
  private endsBefore(a: number, b: number): boolean {
    const length = this.lengths[a] as number;
    for (let w = 0; w < 4; w++) {
      const last = lastWord(this.starts, a, length, w);
      const first = this.starts[b * 4 + w] as number;
      if (last !== first) return last < first;
    }
    return false;
  }

  /** The longest prefix containing the address, or -1. */
  private containing(w0: number, w1: number, w2: number, w3: number): number {
    // The last prefix that starts at or before the address: the address is in it or in one that encloses it.
    const starts = this.starts;
    let low = 0;
    let high = this.count - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = middle * 4;
      const x0 = starts[at] as number;
      const x1 = starts[at + 1] as number;
      const x2 = starts[at + 2] as number;
      const before = x0 !== w0 ? x0 < w0 : x1 !== w1 ? x1 < w1 : x2 !== w2 ? x2 < w2 : (starts[at + 3] as number) <= w3;
      if (before) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    while (found >= 0 && !this.reaches(found, w0, w1, w2, w3)) found = this.parents[found] as number;
    return found;
  }

  /** Whether the prefix at `at`, which starts at or before the address, reaches it. */
  private reaches(at: number, w0: number, w1: number, w2: number, w3: number): boolean {
    const length = this.lengths[at] as number;
    const l0 = lastWord(this.starts, at, length, 0);
    if (l0 !== w0) return l0 > w0;
    const l1 = lastWord(this.starts, at, length, 1);
    if (l1 !== w1) return l1 > w1;
    const l2 = lastWord(this.starts, at, length, 2);
    if (l2 !== w2) return l2 > w2;
    return lastWord(this.starts, at, length, 3) >= w3;
  }
}
