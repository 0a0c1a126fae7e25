/**
 * @module Assembles a MaxMind DB file: search tree, 16-byte separator, data section, metadata.
 *
 *     ┌──────────────────────────┬──────────┬──────────────┬─────────────────────────────┐
 *     │ search tree              │ 16 × 0x00│ data section │ \xAB\xCD\xEF MaxMind.com  map│
 *     │ node_count × record_size │          │              │ metadata                    │
 *     │ × 2 / 8 bytes            │          │              │                             │
 *     └──────────────────────────┴──────────┴──────────────┴─────────────────────────────┘
 *
 * A record holds a node index (< node_count), node_count itself for "no data", or
 * node_count + 16 + offset for data at `offset` in the data section.
 */
import { DataSectionWriter, type MmdbValue, mmdbType } from './data-section.ts';
import type { FinalTree, TreeSlot } from './search-tree.ts';

/** Metadata of a database (MaxMind-DB-spec.md, "Database Metadata"). */
export interface MmdbMetadataInput {
  /** 4 or 6. An IPv6 database holds IPv4 at ::/96, aliased from ::ffff:0:0/96 and 2002::/16. */
  readonly ipVersion: 4 | 6;
  readonly databaseType: string;
  readonly languages?: readonly string[];
  /** Language code → description. */
  readonly description?: Readonly<Record<string, string>>;
  /** Seconds since the Unix epoch; defaults to now. */
  readonly buildEpoch?: number;
  /** 24, 28 or 32 bits; defaults to the smallest that can address the file. */
  readonly recordSize?: 24 | 28 | 32;
  /**
   * Further metadata keys (the format allows any; readers ignore those they do not know). Written in
   * full, without pointers, and the whole metadata must stay within the file's last 128 KiB.
   */
  readonly extra?: Readonly<Record<string, MmdbValue>>;
}

/** Readers look for the metadata marker within the file's last 128 KiB (MaxMind-DB-spec.md). */
const METADATA_LIMIT = 128 * 1024;
const METADATA_MARKER = Uint8Array.of(0xab, 0xcd, 0xef, ...new TextEncoder().encode('MaxMind.com'));

/**
 * Serialises a finished tree; `offsetOf` maps its leaf ids to data-section offsets (by default
 * the ids are the offsets).
 *
 * @throws RangeError when the file would not be addressable with the requested record size.
 */
export function assembleMmdb(
  tree: FinalTree,
  data: DataSectionWriter,
  metadata: MmdbMetadataInput,
  offsetOf: (leafId: number) => number = (id) => id,
): Uint8Array {
  const { nodeCount } = tree;
  const dataBytes = data.bytes();
  const largest = nodeCount + 16 + dataBytes.length;
  const recordSize = metadata.recordSize ?? chooseRecordSize(nodeCount, dataBytes.length);
  if (largest >= 2 ** recordSize) {
    throw new RangeError(`${largest} does not fit a ${recordSize}-bit record; use a larger record size`);
  }
  const nodeBytes = (recordSize * 2) / 8;
  const treeBytes = new Uint8Array(nodeCount * nodeBytes);
  const record = (slot: TreeSlot): number => (slot.kind === 'node' ? slot.index : slot.kind === 'empty' ? nodeCount : nodeCount + 16 + offsetOf(slot.id));
  let at = 0;
  tree.forEachNode((leftSlot, rightSlot) => {
    const left = record(leftSlot);
    const right = record(rightSlot);
    if (recordSize === 24) {
      put24(treeBytes, at, left);
      put24(treeBytes, at + 3, right);
    } else if (recordSize === 28) {
      // The middle byte holds the top nibble of each record: left's high, right's low.
      put24(treeBytes, at, left & 0xffffff);
      treeBytes[at + 3] = ((left >>> 24) << 4) | (right >>> 24);
      put24(treeBytes, at + 4, right & 0xffffff);
    } else {
      new DataView(treeBytes.buffer).setUint32(at, left);
      new DataView(treeBytes.buffer).setUint32(at + 4, right);
    }
    at += nodeBytes;
  });

  const meta = new DataSectionWriter(false);
  meta.write({
    binary_format_major_version: mmdbType.uint16(2),
    binary_format_minor_version: mmdbType.uint16(0),
    build_epoch: mmdbType.uint64(BigInt(metadata.buildEpoch ?? Math.floor(Date.now() / 1000))),
    database_type: metadata.databaseType,
    description: (metadata.description ?? {}) as Record<string, MmdbValue>,
    ip_version: mmdbType.uint16(metadata.ipVersion),
    languages: [...(metadata.languages ?? [])],
    node_count: mmdbType.uint32(nodeCount),
    record_size: mmdbType.uint16(recordSize),
    ...metadata.extra,
  });
  const metaBytes = meta.bytes();
  if (metaBytes.length + METADATA_MARKER.length > METADATA_LIMIT) {
    throw new RangeError(`metadata of ${metaBytes.length} bytes would not be found: readers search the last ${METADATA_LIMIT} bytes only`);
  }

  const out = new Uint8Array(treeBytes.length + 16 + dataBytes.length + METADATA_MARKER.length + metaBytes.length);
  out.set(treeBytes, 0);
  out.set(dataBytes, treeBytes.length + 16);
  out.set(METADATA_MARKER, treeBytes.length + 16 + dataBytes.length);
  out.set(metaBytes, treeBytes.length + 16 + dataBytes.length + METADATA_MARKER.length);
  return out;
}

/** The smallest record size (bits) that can address a tree of `nodeCount` nodes and its data. */
export function chooseRecordSize(nodeCount: number, dataSize: number): 24 | 28 | 32 {
  const largest = nodeCount + 16 + dataSize;
  return largest < 2 ** 24 ? 24 : largest < 2 ** 28 ? 28 : 32;
}

function put24(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = (value >>> 16) & 0xff;
  bytes[at + 1] = (value >>> 8) & 0xff;
  bytes[at + 2] = value & 0xff;
}
