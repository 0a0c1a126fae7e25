/**
 * @module The metadata section of a MaxMind DB file: found by its marker within the last 128 KiB, and
 * decoded into the fields a reader needs (MaxMind DB format specification, "Database Metadata").
 */
import { isMmdbMap, type MmdbDecoded, MmdbDecoder, MmdbFormatError } from './decoder.ts';

/** The metadata map of a database, with the fields every reader needs checked. */
export interface MmdbMetadata {
  readonly nodeCount: number;
  /** 24, 28 or 32 bits per record. */
  readonly recordSize: 24 | 28 | 32;
  readonly ipVersion: 4 | 6;
  readonly databaseType: string;
  /** Seconds since the Unix epoch. */
  readonly buildEpoch: number;
  readonly languages: readonly string[];
  readonly description: Readonly<Record<string, string>>;
  readonly binaryFormatMajorVersion: number;
  readonly binaryFormatMinorVersion: number;
  /** The whole metadata map as decoded, with any keys beyond the standard ones. */
  readonly map: Readonly<Record<string, MmdbDecoded>>;
}

const MARKER = Uint8Array.of(0xab, 0xcd, 0xef, ...new TextEncoder().encode('MaxMind.com'));
/** The metadata is within the last 128 KiB of a file, per the specification. */
const METADATA_SEARCH = 128 * 1024;

/**
 * Where the metadata marker starts: the end of the data section.
 *
 * @throws MmdbFormatError when the last 128 KiB hold no marker.
 */
export function findMarker(bytes: Uint8Array): number {
  const floor = Math.max(0, bytes.length - METADATA_SEARCH);
  outer: for (let i = bytes.length - MARKER.length; i >= floor; i--) {
    for (let j = 0; j < MARKER.length; j++) {
      if (bytes[i + j] !== MARKER[j]) continue outer;
    }
    return i;
  }
  throw new MmdbFormatError('no MaxMind DB metadata marker in the last 128 KiB: not a MaxMind DB file');
}

/**
 * The metadata map after the marker, with the fields every reader needs checked.
 *
 * @throws MmdbFormatError when it is missing, not a map, or of a record size, IP version or format
 *   version this reader does not support.
 */
export function readMetadata(bytes: Uint8Array): MmdbMetadata {
  const start = findMarker(bytes) + MARKER.length;
  const raw = new MmdbDecoder(bytes.subarray(start)).decode(0);
  if (!isMmdbMap(raw)) throw new MmdbFormatError('metadata is not a map');
  /** The unsigned 32-bit integer at `key`, one of `allowed` when given. */
  const uint = <T extends number>(key: string, allowed?: readonly T[]): T => {
    const value = raw[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= 2 ** 32) {
      throw new MmdbFormatError(`metadata ${key} is missing or not an unsigned integer`);
    }
    if (allowed !== undefined && !allowed.includes(value as T)) throw new MmdbFormatError(`unsupported ${key} ${value}`);
    return value as T;
  };
  const { build_epoch: epoch, description, languages } = raw;
  return {
    nodeCount: uint('node_count'),
    recordSize: uint('record_size', [24, 28, 32]),
    ipVersion: uint('ip_version', [4, 6]),
    databaseType: typeof raw.database_type === 'string' ? raw.database_type : '',
    buildEpoch: typeof epoch === 'number' ? epoch : typeof epoch === 'bigint' ? Number(epoch) : 0,
    languages: Array.isArray(languages) ? languages.filter((l): l is string => typeof l === 'string') : [],
    description: isMmdbMap(description) ? Object.fromEntries(Object.entries(description).filter((e): e is [string, string] => typeof e[1] === 'string')) : {},
    binaryFormatMajorVersion: uint('binary_format_major_version', [2]),
    binaryFormatMinorVersion: uint('binary_format_minor_version'),
    map: raw,
  };
}
