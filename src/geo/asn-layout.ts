/**
 * @module The layout of a version's ASN object (`ipgeo-<version>.asn`, docs/storage.md): an index, then
 * blocks of {@link ASN_LAYOUT.blockBytes} bytes, each holding whole page records sorted by ASN and page.
 * The build writes it (`data/asn/`), a Worker reads the index once and one block per answer
 * (`src/asn/store.ts`). Every block and the index are verified by SHA-256 before they are read here.
 */
import { ipv4Text, ipv6Text } from '../ip/address.ts';

/**
 * The fixed figures of the layout (format 1). The build refuses data beyond them; a Worker refuses an
 * object that breaks them. Every number is big-endian:
 *
 *     index   magic "IPGEOASN" | u16 format | u16 0 | u32 blockBytes | u32 blocks | u32 pagePrefixes | u32 asns | u32 0
 *             then per block: u32 first ASN | u32 first page | 32 bytes SHA-256 of the block
 *     block   records, then zero bytes to the block's end (a record never straddles two blocks)
 *     record  u32 asn | u16 page | u16 pages | u16 record bytes | u16 organization bytes
 *             f64 IPv4 addresses | f64 IPv6 /64s | u32 IPv4 prefixes | u32 IPv6 prefixes
 *             u16 countries | u16 IPv4 prefixes here | u16 IPv6 prefixes here | organization (UTF-8)
 *             countries: 2 ASCII bytes (0 0: placed in none) | f64 IPv4 addresses | f64 IPv6 /64s
 *             prefixes: u8 length | the network's first ceil(length / 8) bytes
 */
export const ASN_LAYOUT = {
  magic: 'IPGEOASN',
  format: 1,
  headerBytes: 32,
  /** Bytes of one block's index entry: first ASN, first page, SHA-256. */
  entryBytes: 40,
  /** Bytes of every block: a page record of the largest size fits one. */
  blockBytes: 32_768,
  /** Prefixes of one page: an answer holds at most this many. */
  pagePrefixes: 1_000,
  /** The largest index a Worker keeps in its isolate (1 MiB): 26,213 blocks, 819 MiB of ASN data. */
  maxIndexBytes: 1_048_576,
  /**
   * The verified blocks a Worker keeps beside the index (256 KiB), the least recently used let go, so that
   * the ASNs asked for most answer without a read (`src/asn/store.ts`; docs/decisions/0008-asn-object-in-blocks.md, "Measured").
   */
  keptBlocks: 8,
  /** The longest organisation name, in UTF-8 bytes. */
  maxOrganizationBytes: 512,
  /** The most countries (and the entry of addresses placed in none) one ASN lists. */
  maxCountries: 256,
  /** Bytes of a record before its organisation name. */
  recordHeaderBytes: 42,
  /** Bytes of one country entry. */
  countryBytes: 18,
} as const;

/** A version's ASN index, as a Worker keeps it: the first (ASN, page) of each block and each block's SHA-256. */
export interface AsnIndex {
  readonly blockBytes: number;
  readonly pagePrefixes: number;
  readonly firstAsn: Uint32Array;
  readonly firstPage: Uint32Array;
  /** 32 bytes per block, in block order. */
  readonly digests: Uint8Array;
}

/** How many addresses of an ASN a country holds: IPv4 addresses, and IPv6 /64 networks touched. */
export interface AsnCountry {
  /** ISO 3166-1 alpha-2, as the location data gives it; null for the addresses the data places in no country. */
  readonly code: string | null;
  readonly ipv4: number;
  readonly ipv6: number;
}

/** One page of an ASN as stored: its totals (the same on every page), and the prefixes of this page. */
export interface AsnPage {
  readonly asn: number;
  readonly organization: string;
  /** From 0. */
  readonly page: number;
  readonly pages: number;
  readonly addresses: { readonly ipv4: number; readonly ipv6: number };
  readonly prefixTotals: { readonly ipv4: number; readonly ipv6: number };
  readonly countries: readonly AsnCountry[];
  /** This page's prefixes as CIDR text in address order: `1.1.1.0/24`, and RFC 5952 for IPv6 (`2606:4700::/32`). */
  readonly ipv4: readonly string[];
  readonly ipv6: readonly string[];
}

/** Bytes that break the layout: said in the log, never to clients. */
export class AsnLayoutError extends Error {
  override readonly name = 'AsnLayoutError';
}

function broken(why: string): never {
  throw new AsnLayoutError(why);
}

/**
 * The index of an ASN object, from its verified bytes.
 *
 * @param expected the block size and count the current record publishes.
 * @throws AsnLayoutError when the bytes are not an index of that many blocks of that size, above
 *   {@link ASN_LAYOUT.maxIndexBytes}, or out of order.
 */
export function parseAsnIndex(bytes: Uint8Array, expected: { readonly blockBytes: number; readonly blocks: number }): AsnIndex {
  const { headerBytes, entryBytes } = ASN_LAYOUT;
  if (bytes.byteLength > ASN_LAYOUT.maxIndexBytes) broken(`its index of ${bytes.byteLength} bytes is over ${ASN_LAYOUT.maxIndexBytes}`);
  if (bytes.byteLength < headerBytes) broken('its index is shorter than its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = String.fromCharCode(...bytes.subarray(0, 8));
  if (magic !== ASN_LAYOUT.magic || view.getUint16(8) !== ASN_LAYOUT.format) broken(`it is not an ASN object of format ${ASN_LAYOUT.format}`);
  const blockBytes = view.getUint32(12);
  const blocks = view.getUint32(16);
  const pagePrefixes = view.getUint32(20);
  if (blockBytes !== expected.blockBytes || blocks !== expected.blocks) {
    broken(`its index says ${blocks} blocks of ${blockBytes} bytes, the record ${expected.blocks} of ${expected.blockBytes}`);
  }
  if (bytes.byteLength !== headerBytes + blocks * entryBytes) broken(`its index is ${bytes.byteLength} bytes, not ${headerBytes + blocks * entryBytes}`);
  if (pagePrefixes < 1 || blockBytes < ASN_LAYOUT.recordHeaderBytes) broken('its index gives no room for a record');
  const firstAsn = new Uint32Array(blocks);
  const firstPage = new Uint32Array(blocks);
  const digests = new Uint8Array(blocks * 32);
  for (let k = 0; k < blocks; k++) {
    const at = headerBytes + k * entryBytes;
    firstAsn[k] = view.getUint32(at);
    firstPage[k] = view.getUint32(at + 4);
    digests.set(bytes.subarray(at + 8, at + 40), k * 32);
    if (k > 0 && compareKeys(firstAsn[k - 1] as number, firstPage[k - 1] as number, firstAsn[k] as number, firstPage[k] as number) >= 0) {
      broken(`its blocks ${k - 1} and ${k} are out of order`);
    }
  }
  return { blockBytes, pagePrefixes, firstAsn, firstPage, digests };
}

function compareKeys(asnA: number, pageA: number, asnB: number, pageB: number): number {
  return asnA !== asnB ? asnA - asnB : pageA - pageB;
}

/**
 * The block that holds page `page` (from 0) of `asn` if the object has it: the last whose first record
 * is not after it; -1 when every block starts after it (the ASN is not in the data).
 */
export function blockOf(index: AsnIndex, asn: number, page: number): number {
  let low = 0;
  let high = index.firstAsn.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (compareKeys(index.firstAsn[middle] as number, index.firstPage[middle] as number, asn, page) <= 0) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

/** What a block says of an ASN's page: the page, the ASN's page count when it has no such page, or that it is not there. */
export type BlockFinding =
  | { readonly kind: 'found'; readonly page: AsnPage }
  | { readonly kind: 'no-page'; readonly pages: number }
  | { readonly kind: 'not-found' };

/**
 * Page `page` (from 0) of `asn` in a verified block ({@link blockOf}'s).
 *
 * @throws AsnLayoutError when a record runs past the block or breaks the layout.
 */
export function findInBlock(block: Uint8Array, asn: number, page: number): BlockFinding {
  const view = new DataView(block.buffer, block.byteOffset, block.byteLength);
  let pages = 0;
  for (let at = 0, recordBytes = recordAt(view, 0); recordBytes > 0; recordBytes = recordAt(view, at)) {
    const recordAsn = view.getUint32(at);
    if (recordAsn === asn) {
      const recordPage = view.getUint16(at + 4);
      if (recordPage === page) return { kind: 'found', page: decodeRecord(block.subarray(at, at + recordBytes)) };
      pages = view.getUint16(at + 6);
    } else if (recordAsn > asn) {
      break;
    }
    at += recordBytes;
  }
  return pages > 0 ? { kind: 'no-page', pages } : { kind: 'not-found' };
}

/**
 * Every page record of a verified block, decoded in order (what `data:publish` checks of every block).
 *
 * @throws AsnLayoutError as {@link findInBlock}.
 */
export function pagesInBlock(block: Uint8Array): AsnPage[] {
  const view = new DataView(block.buffer, block.byteOffset, block.byteLength);
  const pages: AsnPage[] = [];
  for (let at = 0, recordBytes = recordAt(view, 0); recordBytes > 0; recordBytes = recordAt(view, at)) {
    pages.push(decodeRecord(block.subarray(at, at + recordBytes)));
    at += recordBytes;
  }
  return pages;
}

/** The length of the record at `at` of a block, 0 where the records end. @throws AsnLayoutError when it runs past the block. */
function recordAt(block: DataView, at: number): number {
  if (at + ASN_LAYOUT.recordHeaderBytes > block.byteLength) return 0;
  const recordBytes = block.getUint16(at + 8);
  if (recordBytes !== 0 && (recordBytes < ASN_LAYOUT.recordHeaderBytes || at + recordBytes > block.byteLength))
    broken(`a record at ${at} of its block runs past it`);
  return recordBytes;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A record's page; the record is whole (its length checked by {@link findInBlock}). */
function decodeRecord(record: Uint8Array): AsnPage {
  const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
  const organizationBytes = view.getUint16(10);
  const countryCount = view.getUint16(36);
  let at = ASN_LAYOUT.recordHeaderBytes;
  const need = (bytes: number) => {
    if (at + bytes > record.byteLength) broken('a record is shorter than its contents');
  };
  need(organizationBytes);
  let organization: string;
  try {
    organization = decoder.decode(record.subarray(at, at + organizationBytes));
  } catch {
    broken('an organisation name is not UTF-8');
  }
  at += organizationBytes;
  const countries: AsnCountry[] = [];
  for (let i = 0; i < countryCount; i++) {
    need(ASN_LAYOUT.countryBytes);
    const first = record[at] as number;
    const second = record[at + 1] as number;
    countries.push({ code: first === 0 ? null : String.fromCharCode(first, second), ipv4: view.getFloat64(at + 2), ipv6: view.getFloat64(at + 10) });
    at += ASN_LAYOUT.countryBytes;
  }
  const prefixes = (count: number, maxLength: 32 | 128) => {
    const out: string[] = [];
    const words = [0, 0, 0, 0];
    for (let i = 0; i < count; i++) {
      need(1);
      const length = record[at] as number;
      if (length > maxLength) broken(`a prefix is /${length}`);
      const bytes = Math.ceil(length / 8);
      need(1 + bytes);
      words.fill(0);
      for (let b = 0; b < bytes; b++) words[b >> 2] = ((words[b >> 2] as number) | ((record[at + 1 + b] as number) << (24 - 8 * (b & 3)))) >>> 0;
      const [w0, w1, w2, w3] = words as [number, number, number, number];
      out.push(`${maxLength === 32 ? ipv4Text(w0) : ipv6Text({ w0, w1, w2, w3 })}/${length}`);
      at += 1 + bytes;
    }
    return out;
  };
  const ipv4 = prefixes(view.getUint16(38), 32);
  const ipv6 = prefixes(view.getUint16(40), 128);
  return {
    asn: view.getUint32(0),
    organization,
    page: view.getUint16(4),
    pages: view.getUint16(6),
    addresses: { ipv4: view.getFloat64(12), ipv6: view.getFloat64(20) },
    prefixTotals: { ipv4: view.getUint32(28), ipv6: view.getUint32(32) },
    countries,
    ipv4,
    ipv6,
  };
}
