/** @module Reads a MaxMind DB held in memory: its metadata, search-tree lookups by address (IPv4 as one 32-bit word, IPv6 as four) without allocating, and a walk over every network. */
import { type MmdbDecoded, MmdbDecoder, MmdbFormatError } from './decoder.ts';
import { findMarker, type MmdbMetadata, readMetadata } from './metadata.ts';
import { OffsetCache } from './offset-cache.ts';

/** log2 of the slots of the path caches: IPv4 has 65,536 /16s; the benchmark's 20,000 IPv6 addresses fall in 10,725 /32s. */
const PATH_BITS = 16;

/**
 * A MaxMind DB reader over bytes already in memory.
 *
 * @throws MmdbFormatError from the constructor when the metadata or the layout is invalid, and from
 *   the lookups and `decode` when the tree or data is corrupt where they read it.
 */
export class MmdbReader {
  readonly metadata: MmdbMetadata;
  /** Decoder for the data section; offsets are those the lookups return. */
  readonly data: MmdbDecoder;
  private readonly bytes: Uint8Array;
  /** The search tree only: reads of records never leave it. */
  private readonly view: DataView;
  private readonly nodeCount: number;
  private readonly recordSize: number;
  private readonly treeSize: number;
  private readonly dataSize: number;
  private readonly ipv4Root: number;
  private readonly ipv4RootDepth: number;
  /** Where IPv4 /16s lead from the IPv4 root ({@link offsetOfIpv4}), and IPv6 /32s from the root ({@link offsetOfIpv6}). */
  private readonly ipv4Slash16s = new OffsetCache<number>(PATH_BITS);
  private readonly ipv6Slash32s: OffsetCache<number>;

  /**
   * @param buffer the whole MMDB file.
   * @param ipv6PathBits log2 of the slots of the IPv6 /32 path cache, 1 to 24; tests make it tiny.
   */
  constructor(buffer: ArrayBuffer | Uint8Array, ipv6PathBits = PATH_BITS) {
    this.ipv6Slash32s = new OffsetCache<number>(ipv6PathBits);
    // A plain view even of a Node Buffer, whose subarrays would be Buffers, slower to make.
    this.bytes = buffer instanceof Uint8Array ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : new Uint8Array(buffer);
    this.metadata = readMetadata(this.bytes);
    this.nodeCount = this.metadata.nodeCount;
    this.recordSize = this.metadata.recordSize;
    this.treeSize = (this.nodeCount * this.recordSize * 2) / 8;
    if (this.treeSize + 16 > this.bytes.length) {
      throw new MmdbFormatError(`search tree of ${this.nodeCount} nodes is larger than the file`);
    }
    const dataEnd = findMarker(this.bytes);
    if (dataEnd < this.treeSize + 16) throw new MmdbFormatError('metadata overlaps the search tree');
    this.dataSize = dataEnd - this.treeSize - 16;
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.treeSize);
    this.data = new MmdbDecoder(this.bytes.subarray(this.treeSize + 16, dataEnd));
    // IPv4 addresses start at ::/96; find that node once instead of walking 96 zero bits per lookup.
    let node = 0;
    let depth = 0;
    if (this.metadata.ipVersion === 6) {
      for (; depth < 96 && node < this.nodeCount; depth++) node = this.record(node, 0);
    }
    this.ipv4Root = node;
    this.ipv4RootDepth = depth;
  }

  /**
   * The data offset of an IPv4 address given as an unsigned 32-bit integer (`a << 24 | b << 16 | …`,
   * as `>>> 0`), or -1 when the database has no data for it. Every address passes through the same few
   * thousand nodes at the top of the tree, so where each /16 leads is remembered on first use, and a
   * lookup walks 16 levels, not 32.
   *
   * @throws MmdbFormatError when a record points outside the data section.
   */
  offsetOfIpv4(address: number): number {
    const top = address >>> 16;
    const node = this.ipv4Slash16s.get(top) ?? this.ipv4Slash16s.set(top, this.walkWord(this.ipv4Root, address, 31, 16));
    return this.resolve(this.walkWord(node, address, 15, 0));
  }

  /**
   * The data offset of an IPv6 address given as four unsigned 32-bit words, most significant first,
   * or -1 when the database has no data for it (or holds IPv4 only). IPv4 is looked up with
   * {@link offsetOfIpv4}, which an IPv6 database aliases at ::a.b.c.d.
   *
   * Where the first 32 bits lead is cached: announced IPv6 space comes in /32s and longer, the
   * addresses a service sees share few of them, and the 32 levels to a /32 cost a random address more
   * node reads than all the rest of its lookup.
   *
   * @throws MmdbFormatError when a record points outside the data section.
   */
  offsetOfIpv6(w0: number, w1: number, w2: number, w3: number): number {
    if (this.metadata.ipVersion === 4) return -1;
    let node = this.ipv6Slash32s.get(w0 | 0) ?? this.ipv6Slash32s.set(w0 | 0, this.walkWord(0, w0, 31, 0));
    node = this.walkWord(node, w1, 31, 0);
    node = this.walkWord(node, w2, 31, 0);
    return this.resolve(this.walkWord(node, w3, 31, 0));
  }

  /**
   * The prefix length of the network that holds an address: the depth at which its walk ends in the
   * search tree, where a leaf stands for the largest network whose addresses share its record (or
   * share having none). IPv4 (`ipv4`, the address in `w3`) is measured in the IPv4 space (0 to 32),
   * IPv6 in the IPv6 space (0 to 128). Walks without the path caches: few answers ask for it.
   *
   * @throws MmdbFormatError when the tree is deeper than the address.
   */
  prefixLengthOf(w0: number, w1: number, w2: number, w3: number, ipv4: boolean): number {
    // An IPv4 space that ends above ::/96 (a network holding all of it): a /0 in IPv4 terms.
    if (ipv4 && this.ipv4RootDepth < 96 && this.metadata.ipVersion === 6) return 0;
    const nodeCount = this.nodeCount;
    const first = ipv4 ? 96 : 0;
    let node = ipv4 ? this.ipv4Root : 0;
    let bit = first;
    for (; bit < 128 && node < nodeCount; bit++) {
      const word = bit < 32 ? w0 : bit < 64 ? w1 : bit < 96 ? w2 : w3;
      node = this.record(node, (word >>> (31 - (bit & 31))) & 1);
    }
    if (node < nodeCount) throw new MmdbFormatError('search tree is deeper than the address');
    return bit - first;
  }

  /** Follows the bits `first` down to `last` (inclusive, 31 = most significant) of `word` from `from`. */
  private walkWord(from: number, word: number, first: number, last: number): number {
    const nodeCount = this.nodeCount;
    let node = from;
    for (let bit = first; bit >= last && node < nodeCount; bit--) node = this.record(node, (word >>> bit) & 1);
    return node;
  }

  /** Decodes the data at `offset` of the data section. */
  decode(offset: number): MmdbDecoded {
    return this.data.decode(offset);
  }

  /**
   * Visits every network that holds data, in address order, with its first address (16 bytes,
   * IPv4 at ::a.b.c.d), its prefix length in the IPv6 space, and its data offset. In an IPv6 database
   * the aliases of the IPv4 subtree (::ffff:0:0/96 and 2002::/16) are skipped, so each IPv4 network is
   * visited once, at ::a.b.c.d.
   */
  walk(visit: (bytes: Uint8Array, prefixLength: number, offset: number) => void): void {
    const path = new Uint8Array(16);
    const aliased = this.metadata.ipVersion === 6 && this.ipv4RootDepth === 96;
    const visitNode = (node: number, depth: number): void => {
      if (depth >= 128) throw new MmdbFormatError('search tree is deeper than 128 bits');
      const byteIndex = depth >> 3;
      const mask = 1 << (7 - (depth & 7));
      for (let bit = 0; bit < 2; bit++) {
        path[byteIndex] = bit ? (path[byteIndex] as number) | mask : (path[byteIndex] as number) & ~mask;
        const child = this.record(node, bit);
        if (child < this.nodeCount) {
          // The IPv4 subtree is reachable from ::/96 and from its aliases; visit it once, at ::/96.
          if (aliased && child === this.ipv4Root && !(depth + 1 === 96 && path.subarray(0, 12).every((b) => b === 0))) continue;
          visitNode(child, depth + 1);
        } else if (child > this.nodeCount) {
          visit(networkStart(path, depth + 1), depth + 1, this.dataOffset(child));
        }
      }
      path[byteIndex] = (path[byteIndex] as number) & ~mask;
    };
    visitNode(0, this.metadata.ipVersion === 4 ? 96 : 0);
  }

  /** The data offset a final record stands for: -1 for "no data". */
  private resolve(node: number): number {
    if (node === this.nodeCount) return -1;
    if (node > this.nodeCount) return this.dataOffset(node);
    throw new MmdbFormatError('search tree is deeper than the address');
  }

  private dataOffset(record: number): number {
    const offset = record - this.nodeCount - 16;
    if (offset < 0 || offset >= this.dataSize) {
      throw new MmdbFormatError(`search tree record ${record} points outside the data section`);
    }
    return offset;
  }

  /**
   * The left (bit 0) or right (bit 1) record of `node`. Reads are 32-bit big-endian words: a node of
   * 24-bit records is [left 3 bytes][right 3 bytes], of 28-bit records [left 3][left ⁴|right ⁴][right 3],
   * of 32-bit records [left 4][right 4]. No word read runs past the node, so none runs past the tree.
   */
  private record(node: number, bit: number): number {
    const view = this.view;
    if (this.recordSize === 24) return bit ? view.getUint32(node * 6 + 2) & 0xffffff : view.getUint32(node * 6) >>> 8;
    if (this.recordSize === 28) {
      if (bit) return view.getUint32(node * 7 + 3) & 0x0fffffff;
      const word = view.getUint32(node * 7);
      return ((word & 0xf0) << 20) | (word >>> 8);
    }
    return view.getUint32(node * 8 + bit * 4);
  }
}

/** A copy of `path` with the bits from `prefixLength` on cleared: the network's first address. */
function networkStart(path: Uint8Array, prefixLength: number): Uint8Array {
  const start = path.slice();
  for (let bit = prefixLength; bit < 128; bit++) start[bit >> 3] = (start[bit >> 3] as number) & ~(1 << (7 - (bit & 7)));
  return start;
}
