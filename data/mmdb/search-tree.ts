/**
 * @module The binary search tree of a MaxMind DB, built in memory before it is serialised.
 *
 * Every address is handled in the IPv6 space: an IPv4 network a.b.c.d/n lives at ::a.b.c.d/(96+n),
 * as MaxMind's own writers place it. A leaf holds an integer id chosen by the caller (a data record,
 * a combination of sources, ...); the caller maps ids to data-section offsets when serialising.
 *
 *     node i:  [ left child | right child ]      child = 0        → no data (empty)
 *                                                child > 0        → node index
 *                                                child < 0        → leaf id  -(child + 1)
 *
 * Node 0 is the root, so no child can point to it and 0 is free to mean "empty".
 */

/** A network in the IPv6 space: 16 address bytes (IPv4 at ::a.b.c.d) and a prefix length 1..128. */
export interface Network {
  readonly bytes: Uint8Array;
  readonly prefixLength: number;
}

const EMPTY = 0;
/** Levels per block of the node order (see `number`): 15 nodes, 90 to 120 bytes. */
const BLOCK_HEIGHT = 4;
const leaf = (id: number): number => -(id + 1);
const leafId = (child: number): number => -child - 1;

/** ::ffff:0:0/96 (IPv4-mapped) and 2002::/16 (6to4): the regions aliased to the IPv4 space ::/96. */
const MAPPED_PREFIX = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0);
const SIX_TO_FOUR_PREFIX = Uint8Array.of(0x20, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

/** True when the first `length` bits (a multiple of 8) of `bytes` and `prefix` are equal. */
function startsWith(bytes: Uint8Array, prefix: Uint8Array, length: number): boolean {
  for (let i = 0; i < length >> 3; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** Reads bit `index` (0 = most significant) of a 16-byte address. */
function bitAt(bytes: Uint8Array, index: number): number {
  return ((bytes[index >> 3] as number) >> (7 - (index & 7))) & 1;
}

/**
 * A mutable binary trie over 128-bit addresses whose leaves are integer ids.
 *
 * `insert` replaces whatever the network held; `update` rewrites every leaf (and the empty space)
 * under a network through a function, which is how sources are combined without materialising
 * ranges. Both split leaves on the way down, so the tree stays exact; `finalize` merges siblings
 * that ended up equal, so the serialised tree is as small as the data allows.
 */
export class SearchTree {
  private children = new Int32Array(2 * 1024);
  private nodeCount = 1;

  /** Sets `network` to leaf `id` (an integer ≥ 0), replacing anything below it. */
  insert(network: Network, id: number): void {
    if (!Number.isInteger(id) || id < 0) throw new RangeError(`leaf id must be an integer ≥ 0, got ${id}`);
    const { slot } = this.descend(network);
    this.children[slot] = leaf(id);
  }

  /**
   * Replaces each leaf id under `network` by `fn(id)`; empty space is passed as `undefined`.
   * `fn` returns the new id, or `undefined` to leave the space empty.
   */
  update(network: Network, fn: (id: number | undefined) => number | undefined): void {
    const { slot } = this.descend(network);
    this.children[slot] = this.rewrite(this.children[slot] as number, fn);
  }

  /** Returns the leaf id that holds `bytes` (16 bytes), or `undefined` for empty space. */
  get(bytes: Uint8Array): number | undefined {
    let node = 0;
    for (let depth = 0; depth < 128; depth++) {
      const child = this.children[node * 2 + bitAt(bytes, depth)] as number;
      if (child === EMPTY) return undefined;
      if (child < 0) return leafId(child);
      node = child;
    }
    throw new Error('search tree deeper than 128 bits');
  }

  /**
   * Merges equal siblings, then (when `aliasIpv4`) points ::ffff:0:0/96 (IPv4-mapped) and 2002::/16
   * (6to4) at the IPv4 subtree ::/96, as MaxMind's writers do, and numbers the reachable nodes in
   * cache-friendly blocks (see `number`). The tree must not be modified afterwards.
   *
   * @param rootDepth 0 for an IPv6 database; 96 for an IPv4-only database, whose root is ::/96.
   */
  finalize(options: { aliasIpv4: boolean; rootDepth: 0 | 96 }): FinalTree {
    let root = 0;
    if (options.rootDepth === 96) {
      root = this.nodeAt(new Uint8Array(16), 96);
    }
    const simplified = this.simplify(root, new Map());
    if (simplified !== root) {
      // The whole tree is one value: keep a root whose two halves hold it, as a reader needs a node.
      root = this.newNode(simplified, simplified);
    }
    if (options.aliasIpv4 && options.rootDepth === 0) this.addIpv4Aliases();
    return this.number(root);
  }

  /**
   * Merges equal siblings and points the IPv4-alias regions at the IPv4 subtree, as {@link finalize}
   * does before it numbers the nodes (an IPv6 tree with `aliasIpv4`), so that {@link forEachSlot} and
   * {@link clip} see the same tree whether or not it was finalized before. Doing it again changes nothing.
   */
  settle(): void {
    this.simplify(0, new Map());
    this.addIpv4Aliases();
  }

  /**
   * A new tree holding exactly what this one holds at the positions `first` to `last` (16 bytes each,
   * both included), split where the range ends inside a network. The IPv4-alias regions (::ffff:0:0/96
   * and 2002::/16) are left empty: their addresses are answered at the IPv4 positions they embed, and
   * `finalize` of the new tree aliases them again. This tree is not modified and may be finalized.
   */
  clip(first: Uint8Array, last: Uint8Array): SearchTree {
    const out = new SearchTree();
    const from = this.children;
    const copy = (child: number): number => {
      if (child <= 0) return child;
      const left = copy(from[child * 2] as number);
      return out.newNode(left, copy(from[child * 2 + 1] as number));
    };
    // `low`/`high`: the path so far is the start of `first`/`last`; `mapped`/`sixToFour`: of that region.
    const side = (child: number, depth: number, bit: number, low: boolean, high: boolean, mapped: boolean, sixToFour: boolean): number => {
      const firstBit = bitAt(first, depth);
      const lastBit = bitAt(last, depth);
      if ((low && bit < firstBit) || (high && bit > lastBit)) return EMPTY;
      const inMapped = mapped && bit === bitAt(MAPPED_PREFIX, depth);
      const inSixToFour = sixToFour && bit === bitAt(SIX_TO_FOUR_PREFIX, depth);
      if ((inMapped && depth + 1 === 96) || (inSixToFour && depth + 1 === 16)) return EMPTY;
      return slot(child, depth + 1, low && bit === firstBit, high && bit === lastBit, inMapped, inSixToFour);
    };
    const slot = (child: number, depth: number, low: boolean, high: boolean, mapped: boolean, sixToFour: boolean): number => {
      if (child === EMPTY || depth === 128 || !(low || high || mapped || sixToFour)) return copy(child);
      const [left, right] = child > 0 ? [from[child * 2] as number, from[child * 2 + 1] as number] : [child, child];
      const l = side(left, depth, 0, low, high, mapped, sixToFour);
      const r = side(right, depth, 1, low, high, mapped, sixToFour);
      return l === r && l <= 0 ? l : out.newNode(l, r);
    };
    // Both computed before either is stored: a new node may move `out.children`.
    const left = side(from[0] as number, 0, 0, true, true, true, true);
    const right = side(from[1] as number, 0, 1, true, true, true, true);
    out.children[0] = left;
    out.children[1] = right;
    return out;
  }

  /**
   * Visits every leaf and empty space in address order (the IPv4-alias regions skipped, as in {@link clip}):
   * its leaf id (undefined for empty space), its prefix length, its first address (16 bytes, valid during
   * the call only), and how many nodes the walk entered since the visit before (the nodes a file
   * starting here or before would hold).
   */
  forEachSlot(visit: (id: number | undefined, prefixLength: number, start: Uint8Array, nodesEntered: number) => void): void {
    const children = this.children;
    const path = new Uint8Array(16);
    let entered = 0;
    const node = (index: number, depth: number): void => {
      entered++;
      slot(children[index * 2] as number, depth + 1);
      path[depth >> 3] = (path[depth >> 3] as number) | (0x80 >> (depth & 7));
      slot(children[index * 2 + 1] as number, depth + 1);
      path[depth >> 3] = (path[depth >> 3] as number) & ~(0x80 >> (depth & 7));
    };
    const slot = (child: number, depth: number): void => {
      if ((depth === 96 || depth === 16) && startsWith(path, depth === 96 ? MAPPED_PREFIX : SIX_TO_FOUR_PREFIX, depth)) return;
      if (child > 0) {
        node(child, depth);
        return;
      }
      visit(child === EMPTY ? undefined : leafId(child), depth, path, entered);
      entered = 0;
    };
    node(0, 0);
  }

  /** Walks to the parent of `network`, splitting leaves on the way, and returns the child slot. */
  private descend(network: Network): { slot: number } {
    const { bytes, prefixLength } = network;
    if (prefixLength < 1 || prefixLength > 128) throw new RangeError(`prefix length ${prefixLength} out of 1..128`);
    let node = 0;
    for (let depth = 0; depth < prefixLength - 1; depth++) {
      const slot = node * 2 + bitAt(bytes, depth);
      let child = this.children[slot] as number;
      if (child <= 0) {
        child = this.newNode(child, child);
        this.children[slot] = child;
      }
      node = child;
    }
    return { slot: node * 2 + bitAt(bytes, prefixLength - 1) };
  }

  /** The node at `depth` along `bytes`, created (by splitting) if needed. */
  private nodeAt(bytes: Uint8Array, depth: number): number {
    if (depth === 0) return 0;
    const { slot } = this.descend({ bytes, prefixLength: depth });
    let child = this.children[slot] as number;
    if (child <= 0) {
      child = this.newNode(child, child);
      this.children[slot] = child;
    }
    return child;
  }

  private rewrite(child: number, fn: (id: number | undefined) => number | undefined): number {
    if (child > 0) {
      const left = this.rewrite(this.children[child * 2] as number, fn);
      const right = this.rewrite(this.children[child * 2 + 1] as number, fn);
      this.children[child * 2] = left;
      this.children[child * 2 + 1] = right;
      return child;
    }
    const next = fn(child === EMPTY ? undefined : leafId(child));
    return next === undefined ? EMPTY : leaf(next);
  }

  private newNode(left: number, right: number): number {
    if (this.nodeCount * 2 + 2 > this.children.length) {
      const grown = new Int32Array(this.children.length * 2);
      grown.set(this.children);
      this.children = grown;
    }
    const node = this.nodeCount++;
    this.children[node * 2] = left;
    this.children[node * 2 + 1] = right;
    return node;
  }

  /** Post-order merge of equal siblings; returns what should stand in the parent's slot. */
  private simplify(node: number, done: Map<number, number>): number {
    const known = done.get(node);
    if (known !== undefined) return known;
    // An explicit stack keeps 128-deep trees from costing recursion per level on large inputs.
    const stack: number[] = [node];
    while (stack.length > 0) {
      const current = stack[stack.length - 1] as number;
      const left = this.children[current * 2] as number;
      const right = this.children[current * 2 + 1] as number;
      const pendingLeft = left > 0 && !done.has(left);
      const pendingRight = right > 0 && !done.has(right);
      if (pendingLeft || pendingRight) {
        if (pendingLeft) stack.push(left);
        if (pendingRight) stack.push(right);
        continue;
      }
      stack.pop();
      const l = left > 0 ? (done.get(left) as number) : left;
      const r = right > 0 ? (done.get(right) as number) : right;
      this.children[current * 2] = l;
      this.children[current * 2 + 1] = r;
      done.set(current, l <= 0 && l === r ? l : current);
    }
    return done.get(node) as number;
  }

  private addIpv4Aliases(): void {
    const zero = new Uint8Array(16);
    const ipv4Root = this.childAt(zero, 96);
    if (ipv4Root === EMPTY) return;
    for (const [bytes, depth] of [
      [MAPPED_PREFIX, 96],
      [SIX_TO_FOUR_PREFIX, 16],
    ] as const) {
      const { slot } = this.descend({ bytes, prefixLength: depth });
      this.children[slot] = ipv4Root;
    }
  }

  /** What stands at `depth` along `bytes` without modifying the tree (a node, a leaf or empty). */
  private childAt(bytes: Uint8Array, depth: number): number {
    let child = 0;
    for (let d = 0; d < depth; d++) {
      child = this.children[child * 2 + bitAt(bytes, d)] as number;
      if (child <= 0) return child;
    }
    return child;
  }

  /**
   * Numbers the reachable nodes (node 0 the root) in blocks of {@link BLOCK_HEIGHT} levels: each
   * block's nodes consecutively, level by level, and the blocks below it depth-first after it.
   *
   *     levels 0-3 ─ block A: 15 nodes, ~100 bytes      a lookup reads one node per level, so it
   *     levels 4-7 ─ blocks B1 … B16, each after A      touches one block per 4 levels: 8 blocks
   *        …          and the blocks under B1 before B2  (and cache lines) for an IPv4 address,
   *                                                      where breadth-first order costs up to 32.
   *
   * The order is invisible to readers (records hold node numbers); it only decides which nodes share
   * a cache line, and lookups in a tree of millions of nodes are bound by those misses.
   */
  private number(root: number): FinalTree {
    const ids = new Map<number, number>();
    const order: number[] = [];
    const children = this.children;
    const pending: number[] = [root];
    while (pending.length > 0) {
      const top = pending.pop() as number;
      if (ids.has(top)) continue;
      ids.set(top, order.length);
      order.push(top);
      let level = [top];
      for (let height = 1; height <= BLOCK_HEIGHT && level.length > 0; height++) {
        const next: number[] = [];
        for (const node of level) {
          for (const child of [children[node * 2] as number, children[node * 2 + 1] as number]) {
            if (child <= 0 || ids.has(child)) continue;
            if (height === BLOCK_HEIGHT) {
              next.push(child);
            } else {
              ids.set(child, order.length);
              order.push(child);
              next.push(child);
            }
          }
        }
        if (height === BLOCK_HEIGHT) {
          // The next blocks, leftmost on top of the stack so that it is laid out first.
          for (let i = next.length - 1; i >= 0; i--) pending.push(next[i] as number);
        }
        level = next;
      }
    }
    return {
      nodeCount: order.length,
      forEachNode(visit) {
        const slot = (child: number): TreeSlot =>
          child === EMPTY ? { kind: 'empty' } : child < 0 ? { kind: 'leaf', id: leafId(child) } : { kind: 'node', index: ids.get(child) as number };
        for (const node of order) visit(slot(children[node * 2] as number), slot(children[node * 2 + 1] as number));
      },
      leafIds() {
        const seen = new Set<number>();
        for (const node of order) {
          for (const child of [children[node * 2] as number, children[node * 2 + 1] as number]) {
            if (child < 0) seen.add(leafId(child));
          }
        }
        return seen;
      },
    };
  }
}

/** One side of a finished node. */
export type TreeSlot = { kind: 'empty' } | { kind: 'leaf'; id: number } | { kind: 'node'; index: number };

/** A finished tree: its reachable nodes in their final order (node 0 is the root). */
export interface FinalTree {
  readonly nodeCount: number;
  /** Visits every node in order with its left and right side. */
  forEachNode(visit: (left: TreeSlot, right: TreeSlot) => void): void;
  /** The leaf ids that the finished tree still reaches (overwritten ones are gone). */
  leafIds(): Set<number>;
}
