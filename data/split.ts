/**
 * @module Where a sharded build cuts the address space: N ranges whose files come out about equal in
 * size. A file holds the search-tree nodes of its range and, once each, the data parts (records,
 * locations, names arrays, networks) its leaves reach; the cuts fall between leaves, at the smallest
 * largest-shard cost that N ranges allow (a greedy sweep, bisected on that cost).
 */
import { FIRST_POSITION, LAST_POSITION, type Position, previousPosition, type ShardRange } from '../src/geo/shard-ranges.ts';
import type { SearchTree } from './mmdb/search-tree.ts';

/**
 * The data parts each leaf id reaches, and what each costs a file that holds it. Parts are numbered
 * 0..partBytes.length-1; leaf id `i` reaches `partList[partStart[i]]` to `partList[partStart[i + 1] - 1]`.
 */
export interface LeafParts {
  readonly partStart: Int32Array;
  readonly partList: Int32Array;
  /** Bytes each part adds to a file's data section (an estimate: its own encoding, without deduplication). */
  readonly partBytes: Float64Array;
}

/** A split into ranges that the build cannot make. */
export class SplitError extends Error {
  override readonly name = 'SplitError';
}

/** Every leaf and empty space of a tree in address order: leaf id (-1: empty) and nodes entered before it. */
interface Slots {
  readonly count: number;
  readonly ids: Int32Array;
  readonly nodes: Uint8Array;
}

/**
 * The ranges of `count` shards of `tree`, about equal in estimated file size. The files' search-tree
 * nodes are taken as 28-bit records (7 bytes a node), or as 24-bit ones (6 bytes) when every shard's
 * nodes and data then stay within what 24 bits address, as the writer would choose.
 *
 * @returns `count` ranges tiling the address space, in order.
 * @throws SplitError when the tree has fewer leaves and empty spaces than `count`.
 */
export function splitRanges(tree: SearchTree, parts: LeafParts, count: number): ShardRange[] {
  if (count === 1) return [{ first: FIRST_POSITION, last: LAST_POSITION }];
  const slots = slotsOf(tree);
  if (slots.count < count) throw new SplitError(`the database has ${slots.count} networks and gaps, too few for ${count} shards`);
  const wide = cutsFor(slots, parts, 7, count);
  const narrow = cutsFor(slots, parts, 6, count);
  const fits24Bits = shardSizes(slots, parts, narrow).every(({ nodes, dataBytes }) => nodes + 16 + dataBytes < 2 ** 24);
  return rangesAt(tree, fits24Bits ? narrow : wide);
}

/** The cuts (slot indices where shards 1.. start) of `count` shards of about equal estimated size with nodes of `nodeBytes`. */
function cutsFor(slots: Slots, parts: LeafParts, nodeBytes: number, count: number): number[] {
  const stamps = new Int32Array(parts.partBytes.length).fill(-1);
  let generation = 0;
  /** The cuts (slot indices where shards 1.. start) of a sweep that closes a shard before it exceeds `limit`; undefined past `count` shards. */
  const sweep = (limit: number): number[] | undefined => {
    const cuts: number[] = [];
    let cost = 0;
    generation++;
    for (let i = 0; i < slots.count; i++) {
      let bytes = slotBytes(i, slots, parts, stamps, generation, nodeBytes);
      if (cost + bytes > limit && cost > 0) {
        if (cuts.length === count - 1) return undefined;
        cuts.push(i);
        cost = 0;
        generation++;
        bytes = slotBytes(i, slots, parts, stamps, generation, nodeBytes);
      }
      cost += bytes;
      markParts(slots.ids[i] as number, parts, stamps, generation);
    }
    return cuts;
  };
  const total = totalBytes(slots, parts, nodeBytes);
  let low = total / count;
  let high = total;
  while (high - low > Math.max(1, total * 1e-6)) {
    const middle = (low + high) / 2;
    if (sweep(middle)) high = middle;
    else low = middle;
  }
  const cuts = sweep(high) ?? [];
  // Ranges too coarse for `count` shards of equal cost (a few huge leaves): halve the longest in leaves.
  while (cuts.length < count - 1) {
    const bounds = [0, ...cuts, slots.count];
    const widths = bounds.slice(1).map((end, k) => end - (bounds[k] as number));
    const widest = widths.indexOf(Math.max(...widths));
    cuts.splice(widest, 0, Math.floor(((bounds[widest] as number) + (bounds[widest + 1] as number)) / 2));
  }
  return cuts;
}

/** The estimated nodes and data bytes of each shard that `cuts` make. */
function shardSizes(slots: Slots, parts: LeafParts, cuts: readonly number[]): { nodes: number; dataBytes: number }[] {
  const stamps = new Int32Array(parts.partBytes.length).fill(-1);
  const bounds = [0, ...cuts, slots.count];
  return bounds.slice(1).map((end, shard) => {
    let nodes = 0;
    let dataBytes = 0;
    for (let i = bounds[shard] as number; i < end; i++) {
      nodes += slots.nodes[i] as number;
      dataBytes += slotBytes(i, slots, parts, stamps, shard, 0);
      markParts(slots.ids[i] as number, parts, stamps, shard);
    }
    return { nodes, dataBytes };
  });
}

function slotsOf(tree: SearchTree): Slots {
  let ids = new Int32Array(1 << 16);
  let nodes = new Uint8Array(1 << 16);
  let count = 0;
  tree.forEachSlot((id, _prefixLength, _start, entered) => {
    if (count === ids.length) {
      const moreIds = new Int32Array(ids.length * 2);
      moreIds.set(ids);
      ids = moreIds;
      const moreNodes = new Uint8Array(nodes.length * 2);
      moreNodes.set(nodes);
      nodes = moreNodes;
    }
    ids[count] = id ?? -1;
    nodes[count] = entered;
    count++;
  });
  return { count, ids, nodes };
}

/** What slot `i` adds to the shard of `generation`: its nodes, and its parts not yet in that shard. */
function slotBytes(i: number, slots: Slots, parts: LeafParts, stamps: Int32Array, generation: number, nodeBytes: number): number {
  let bytes = (slots.nodes[i] as number) * nodeBytes;
  const id = slots.ids[i] as number;
  if (id < 0) return bytes;
  for (let k = parts.partStart[id] as number, end = parts.partStart[id + 1] as number; k < end; k++) {
    const part = parts.partList[k] as number;
    if (stamps[part] !== generation) bytes += parts.partBytes[part] as number;
  }
  return bytes;
}

function markParts(id: number, parts: LeafParts, stamps: Int32Array, generation: number): void {
  if (id < 0) return;
  for (let k = parts.partStart[id] as number, end = parts.partStart[id + 1] as number; k < end; k++) stamps[parts.partList[k] as number] = generation;
}

/** The estimated size of one file holding everything: every node, every part reached once. */
function totalBytes(slots: Slots, parts: LeafParts, nodeBytes: number): number {
  const stamps = new Int32Array(parts.partBytes.length).fill(-1);
  let bytes = 0;
  for (let i = 0; i < slots.count; i++) {
    bytes += slotBytes(i, slots, parts, stamps, 0, nodeBytes);
    markParts(slots.ids[i] as number, parts, stamps, 0);
  }
  return bytes;
}

/** The ranges that start at `::` and at the first address of each cut slot. */
function rangesAt(tree: SearchTree, cuts: readonly number[]): ShardRange[] {
  const starts = [FIRST_POSITION];
  let index = 0;
  let next = 0;
  tree.forEachSlot((_id, _prefixLength, start) => {
    if (index++ === cuts[next]) {
      starts.push(position(start));
      next++;
    }
  });
  return starts.map((first, k) => ({
    first,
    last: k + 1 < starts.length ? (previousPosition(starts[k + 1] as Position) as Position) : LAST_POSITION,
  }));
}

/** A 16-byte address as a position. */
function position(bytes: Uint8Array): Position {
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  return { w0: view.getUint32(0), w1: view.getUint32(4), w2: view.getUint32(8), w3: view.getUint32(12) };
}

/** A position as 16 bytes, as the search tree takes addresses. */
export function positionBytes(at: Position): Uint8Array {
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, at.w0);
  view.setUint32(4, at.w1);
  view.setUint32(8, at.w2);
  view.setUint32(12, at.w3);
  return bytes;
}
