/**
 * @module Reads a MaxMind DB held in memory: its metadata (`metadata.ts`), search-tree lookups by
 * 16-byte address (or, on the service's hot path, by 32-bit IPv4 number), and a walk over every
 * network. Works in Workers and in Node; it allocates nothing per lookup.
 */
import { type MmdbDecoded, MmdbDecoder, MmdbFormatError } from './decoder.ts';
import { findMarker, type MmdbMetadata, readMetadata } from './metadata.ts';

/** Where an address led: a data offset (or -1 when the address has no data) and the prefix length. */
export interface MmdbLookup {
  /** Offset in the data section, or -1. */
  offset: number;
  /** Prefix length of the network found, in the address's own family (0..32 or 0..128). */
  prefixLength: number;
}

/**
 * log2 of the slots of the IPv6 /32 path cache (8 bytes each: 512 KB). The benchmark's 20,000 IPv6
 * addresses fall in 10,725 /32s.
 */
const IPV6_PATH_BITS = 16;

/**
 * A MaxMind DB reader over bytes already in memory.
 *
 * @throws MmdbFormatError from the constructor when the metadata or the layout is invalid, and from
 *   `lookup`/`decode` when the tree or data is corrupt where they read it.
 */
export class MmdbReader {
  readonly metadata: MmdbMetadata;
  /** Decoder for the data section; offsets are those of {@link MmdbLookup}. */
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
  /** Where each IPv4 /16 leads from the IPv4 root (0: not looked up yet; the root is no one's child). */
  private ipv4Jump: Int32Array | undefined;
  /** The same for the first 16 bits of an IPv6 address, from the root. */
  private ipv6Jump: Int32Array | undefined;
  /** Where recently seen IPv6 /32s lead, per slot: [the first 32 bits, the node] (node 0: empty). See {@link ipv6Slash32}. */
  private ipv6Paths: Int32Array | undefined;
  private readonly ipv6PathShift: number;

  /**
   * @param buffer the whole MMDB file.
   * @param ipv6PathBits log2 of the slots of the IPv6 /32 path cache (see {@link offsetOf}), 1 to 24; tests make it tiny.
   * @throws RangeError for `ipv6PathBits` outside 1 to 24.
   */
  constructor(buffer: ArrayBuffer | Uint8Array, ipv6PathBits = IPV6_PATH_BITS) {
    if (!Number.isInteger(ipv6PathBits) || ipv6PathBits < 1 || ipv6PathBits > 24)
      throw new RangeError(`an IPv6 path cache cannot have 2^${ipv6PathBits} slots`);
    this.ipv6PathShift = 32 - ipv6PathBits;
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
   * Finds the data for a 16-byte address (IPv4 at ::a.b.c.d), writing into `out` to avoid
   * allocating. For an IPv4 address pass `ipv4 = true`: the prefix length is then 0..32.
   *
   * @throws MmdbFormatError when a record points outside the file.
   */
  lookup(bytes: Uint8Array, ipv4: boolean, out: MmdbLookup = { offset: -1, prefixLength: 0 }): MmdbLookup {
    let node: number;
    let depth: number;
    if (this.metadata.ipVersion === 4) {
      if (!ipv4) {
        out.offset = -1;
        out.prefixLength = 0;
        return out;
      }
      node = 0;
      depth = 96;
    } else if (ipv4) {
      node = this.ipv4Root;
      depth = this.ipv4RootDepth;
    } else {
      node = 0;
      depth = 0;
    }
    while (node < this.nodeCount && depth < 128) {
      node = this.record(node, ((bytes[depth >> 3] as number) >> (7 - (depth & 7))) & 1);
      depth++;
    }
    const familyDepth = ipv4 ? depth - 96 : depth;
    out.prefixLength = Math.max(0, familyDepth);
    out.offset = this.resolve(node);
    return out;
  }

  /**
   * The data offset of an IPv4 address given as an unsigned 32-bit integer (`a << 24 | b << 16 | …`,
   * as `>>> 0`), or -1 when the database has no data for it: the service's hot path, with no
   * allocation and the record size resolved once per lookup, not once per bit.
   *
   * @throws MmdbFormatError when a record points outside the data section.
   */
  offsetOfIpv4(address: number): number {
    return this.resolve(this.walkIpv4(this.ipv4Slash16(address), address, 15, 0));
  }

  /**
   * Where the first 16 bits of an IPv4 address lead from the IPv4 root. Every address passes through
   * the same few thousand nodes at the top of the tree, so where each /16 leads is remembered on first
   * use, and a lookup walks 16 levels, not 32.
   */
  private ipv4Slash16(address: number): number {
    this.ipv4Jump ??= new Int32Array(1 << 16);
    let node = this.ipv4Jump[address >>> 16] as number;
    if (node === 0) {
      node = this.walkIpv4(this.ipv4Root, address, 31, 16);
      this.ipv4Jump[address >>> 16] = node;
    }
    return node;
  }

  /**
   * The data offsets of many IPv4 addresses at once: `out[i]` is `offsetOfIpv4(addresses[i])` for each
   * `i < count`. The walks advance together, one level of every address before the next level, so the
   * reads of different addresses (each a likely cache miss) are independent and the processor overlaps
   * them, where one walk after another waits for each miss in turn. For the bulk route.
   *
   * @param nodes scratch space of at least `count` entries, overwritten.
   * @throws MmdbFormatError when a record points outside the data section.
   */
  offsetsOfIpv4(addresses: Uint32Array, count: number, nodes: Int32Array, out: Int32Array): void {
    for (let i = 0; i < count; i++) nodes[i] = this.ipv4Slash16(addresses[i] as number);
    const nodeCount = this.nodeCount;
    for (let bit = 15; bit >= 0; bit--) {
      let walking = false;
      for (let i = 0; i < count; i++) {
        const node = nodes[i] as number;
        if (node < nodeCount) {
          nodes[i] = this.record(node, ((addresses[i] as number) >>> bit) & 1);
          walking = true;
        }
      }
      if (!walking) break;
    }
    for (let i = 0; i < count; i++) out[i] = this.resolve(nodes[i] as number);
  }

  /**
   * Follows the bits `first` down to `last` (inclusive, 31 = most significant) of an IPv4 address
   * from `from`, stopping at a record that is not a node; returns where it stopped.
   */
  private walkIpv4(from: number, address: number, first: number, last: number): number {
    const nodeCount = this.nodeCount;
    let node = from;
    let bit = first;
    const view = this.view;
    switch (this.recordSize) {
      case 24:
        for (; bit >= last && node < nodeCount; bit--) {
          node = (address >>> bit) & 1 ? view.getUint32(node * 6 + 2) & 0xffffff : view.getUint32(node * 6) >>> 8;
        }
        break;
      case 28:
        for (; bit >= last && node < nodeCount; bit--) {
          // node * 7: [left 24 bits][left high nibble | right high nibble][right 24 bits]
          if ((address >>> bit) & 1) {
            node = view.getUint32(node * 7 + 3) & 0x0fffffff;
          } else {
            const word = view.getUint32(node * 7);
            node = ((word & 0xf0) << 20) | (word >>> 8);
          }
        }
        break;
      default:
        for (; bit >= last && node < nodeCount; bit--) node = view.getUint32(node * 8 + ((address >>> bit) & 1) * 4);
    }
    return node;
  }

  /**
   * The data offset of a 16-byte address (IPv4 at ::a.b.c.d with `ipv4 = true`), or -1: like
   * {@link lookup} without the prefix length.
   *
   * @throws MmdbFormatError when a record points outside the data section.
   */
  offsetOf(bytes: Uint8Array, ipv4: boolean): number {
    if (ipv4) {
      const address = (((bytes[12] as number) << 24) | ((bytes[13] as number) << 16) | ((bytes[14] as number) << 8) | (bytes[15] as number)) >>> 0;
      return this.offsetOfIpv4(address);
    }
    if (this.metadata.ipVersion === 4) return -1;
    return this.resolve(this.walkBytes(this.ipv6Slash32(bytes), bytes, 32, 128));
  }

  /**
   * Where the first 32 bits of an IPv6 address lead from the root (a node, or a final record when the
   * network is shorter). Below the /16 of {@link ipv6Slash16}, the 16 levels to a /32 cost a random
   * IPv6 address about 16 node reads on 7 cache lines and 2.3 pages (measured over the benchmark's
   * sample), more than all the rest of its lookup. Announced IPv6 space comes in /32s and longer, and
   * the addresses a service sees share few of them, so the end of that walk is cached per /32: a
   * direct-mapped table of 2^{@link IPV6_PATH_BITS} slots, each the /32's bits and the node, where a /32
   * takes the slot of another with the same hash.
   */
  private ipv6Slash32(bytes: Uint8Array): number {
    const top = ((bytes[0] as number) << 24) | ((bytes[1] as number) << 16) | ((bytes[2] as number) << 8) | (bytes[3] as number);
    this.ipv6Paths ??= new Int32Array(2 << (32 - this.ipv6PathShift));
    const paths = this.ipv6Paths;
    const slot = (Math.imul(top, 0x9e3779b1) >>> this.ipv6PathShift) << 1;
    let node = paths[slot + 1] as number;
    if (node === 0 || paths[slot] !== top) {
      node = this.walkBytes(this.ipv6Slash16(bytes), bytes, 16, 32);
      paths[slot] = top;
      paths[slot + 1] = node;
    }
    return node;
  }

  /** Where the first 16 bits of an IPv6 address lead from the root, remembered per value of them as for IPv4. */
  private ipv6Slash16(bytes: Uint8Array): number {
    this.ipv6Jump ??= new Int32Array(1 << 16);
    const top = ((bytes[0] as number) << 8) | (bytes[1] as number);
    let node = this.ipv6Jump[top] as number;
    if (node === 0) {
      node = this.walkBytes(0, bytes, 0, 16);
      this.ipv6Jump[top] = node;
    }
    return node;
  }

  /** Follows the bits `first` up to `end` (exclusive, 0 = most significant) of 16 bytes from `from`. */
  private walkBytes(from: number, bytes: Uint8Array, first: number, end: number): number {
    const nodeCount = this.nodeCount;
    let node = from;
    for (let depth = first; depth < end && node < nodeCount; depth++) {
      node = this.record(node, ((bytes[depth >> 3] as number) >> (7 - (depth & 7))) & 1);
    }
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
