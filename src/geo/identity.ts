/**
 * @module The identity of a compiled database: its version, build date, counts, SHA-256 and sources, as
 * the status endpoint and `X-Database-Version` tell them, derived from the loaded bytes (whose metadata
 * carries the sources and counts). The version is `YYYY-MM-DD.hhhhhhhh`: the UTC date of the newest
 * location source's build, telling how fresh the data is, and the first eight hex digits of the file's
 * SHA-256, telling two builds apart. The build writes the same into its manifest (`data/build.ts`).
 */
import { isMmdbMap } from '../mmdb/decoder.ts';
import { readMetadata } from '../mmdb/metadata.ts';
import { FLAGS, type StoredFlag } from './schema.ts';

/** One source of the loaded database. */
export interface DatabaseSource {
  /** Short identifier, e.g. `geolite2-city`. */
  readonly name: string;
  /** What the source contributes: locations, routing facts (ASN), or privacy and hosting flags (`proxy`). */
  readonly provides: 'location' | 'network' | 'proxy';
  /** Package or database version, e.g. `1.0.101`. */
  readonly version: string;
  /** When the source's data was built, RFC 3339 (UTC). */
  readonly builtAt: string;
  readonly licence: string;
  readonly attribution: string;
  /** A flag source's: the flags it can set, in `FLAGS` order (`schema.ts`); absent for other sources. */
  readonly flags?: readonly StoredFlag[];
}

/**
 * A corrections file of the loaded database: an RFC 8805 geofeed of the operator's whose lines take
 * precedence over the location source (docs/operations.md, "Corrections").
 */
interface DatabaseCorrections {
  /** The file's name, or the URL of a published geofeed. */
  readonly name: string;
  /** Hex SHA-256 of the file. */
  readonly sha256: string;
  /** Lines of text in the file. */
  readonly lines: number;
  /** Lines that set a prefix. */
  readonly prefixes: number;
}

/** What identifies a compiled database. */
export interface DatabaseIdentity {
  /** `YYYY-MM-DD.hhhhhhhh`, see the module comment. */
  readonly version: string;
  /** The file's build date (its `build_epoch`): its newest source's (`data/build.ts`), RFC 3339 (UTC). */
  readonly builtAt: string;
  /** Networks (search-tree leaves holding data). */
  readonly networks: number;
  /** Distinct records in the data section. */
  readonly records: number;
  /** Size of the file in bytes. */
  readonly bytes: number;
  /** Hex SHA-256 of the whole file. */
  readonly sha256: string;
  readonly sources: readonly DatabaseSource[];
  /**
   * The flags its flag sources can set, in `FLAGS` order: every other flag is false in every answer. A
   * file of schema 3 or before, built with a source of anonymising networks, sets `proxy` only.
   */
  readonly flags: readonly StoredFlag[];
  /** The operator's corrections compiled in, in precedence order; empty without any. */
  readonly corrections: readonly DatabaseCorrections[];
}

/**
 * A database is stale when a location or routing (ASN) source was built more than this many days ago
 * (GeoLite2 licence, section 6c).
 */
const STALE_AFTER_DAYS = 30;

/**
 * The version string of a database.
 *
 * @param sources the database's sources; the newest `location` source's `builtAt` gives the date.
 * @param sha256 the file's SHA-256, hex.
 * @param fallbackDate RFC 3339 date used when no source provides locations (the file's own build date).
 * @example databaseVersion([{ provides: 'location', builtAt: '2026-09-18T04:49:38.000Z' }], '3f2a9c1d…') // '2026-09-18.3f2a9c1d'
 */
export function databaseVersion(
  sources: readonly Pick<DatabaseSource, 'provides' | 'builtAt'>[],
  sha256: string,
  fallbackDate = new Date(0).toISOString(),
): string {
  const dates = sources.filter((s) => s.provides === 'location').map((s) => Date.parse(s.builtAt));
  const newest = dates.length > 0 ? Math.max(...dates) : Date.parse(fallbackDate);
  return `${new Date(newest).toISOString().slice(0, 10)}.${sha256.slice(0, 8)}`;
}

/**
 * True when the oldest location or routing (ASN) source was built more than {@link STALE_AFTER_DAYS}
 * days before `now`. Lists of flagged networks do not count: the licence's rule is GeoLite2's, and a
 * list its publisher leaves unchanged for months (Cloudflare's ranges) keeps the date it was first
 * fetched (docs/operations.md, "The data's identity and age").
 *
 * @param now milliseconds since the Unix epoch.
 */
export function isStale(identity: Pick<DatabaseIdentity, 'sources'>, now: number): boolean {
  const dates = identity.sources.filter((s) => s.provides === 'location' || s.provides === 'network').map((s) => Date.parse(s.builtAt));
  const oldest = Math.min(...dates);
  return Number.isFinite(oldest) && now - oldest > STALE_AFTER_DAYS * 86_400_000;
}

/**
 * Identifies a compiled database from its bytes: the SHA-256 of the whole file (`crypto.subtle`), and
 * the sources, corrections and counts its metadata holds. A file without them (an older schema) has no
 * sources or corrections, its counts 0, and its version dated by its own build.
 *
 * @throws MmdbFormatError when the bytes hold no MaxMind DB metadata a reader can use ({@link readMetadata}).
 */
export async function identifyDatabase(bytes: ArrayBuffer): Promise<DatabaseIdentity> {
  const view = new Uint8Array(bytes);
  const { buildEpoch, map } = readMetadata(view);
  const builtAt = new Date(buildEpoch * 1000).toISOString();
  const sources = (Array.isArray(map.sources) ? map.sources : []).filter(isMmdbMap).map(
    (s): DatabaseSource => ({
      name: text(s.name),
      provides: s.provides === 'network' || s.provides === 'proxy' ? s.provides : 'location',
      version: text(s.version),
      builtAt: text(s.built_at),
      licence: text(s.licence),
      attribution: text(s.attribution),
      ...(Array.isArray(s.flags) ? { flags: flagsOf(s.flags) } : {}),
    }),
  );
  const legacy: StoredFlag[] = sources.some((source) => source.provides === 'proxy') ? ['proxy'] : [];
  const corrections = (Array.isArray(map.corrections) ? map.corrections : [])
    .filter(isMmdbMap)
    .map((c): DatabaseCorrections => ({ name: text(c.name), sha256: text(c.sha256), lines: count(c.lines), prefixes: count(c.prefixes) }));
  const counts = isMmdbMap(map.counts) ? map.counts : {};
  const sha256 = hex(await sha256Of(view));
  return {
    version: databaseVersion(sources, sha256, builtAt),
    builtAt,
    networks: count(counts.networks),
    records: count(counts.records),
    bytes: bytes.byteLength,
    sha256,
    sources,
    flags: Array.isArray(map.flags) ? flagsOf(map.flags) : legacy,
    corrections,
  };
}

/** The flags a metadata list names, in `FLAGS` order; anything else in it is ignored. */
function flagsOf(list: readonly unknown[]): StoredFlag[] {
  return FLAGS.filter((flag) => list.includes(flag));
}

/**
 * Bytes a file is handled in where it is streamed: handed to the digest at a time here, read into one
 * reused buffer by the verification, and written to the Workers cache a piece at a time (`bucket.ts`).
 */
export const CHUNK_BYTES = 1 << 20;

/**
 * The SHA-256 of `bytes`. In workerd through `crypto.DigestStream`, a chunk at a time, because
 * `crypto.subtle.digest` takes a copy of its whole input first (Web Crypto), which for the database
 * would double its memory for a moment, next to the isolate's limit; elsewhere (Node) `subtle.digest`.
 */
async function sha256Of(bytes: Uint8Array): Promise<ArrayBuffer> {
  // Typed here: Node's types (the build type-checks this module too) have no DigestStream.
  const { DigestStream } = crypto as unknown as { DigestStream?: new (algorithm: string) => WritableStream<Uint8Array> & { digest: Promise<ArrayBuffer> } };
  if (DigestStream === undefined) return crypto.subtle.digest('SHA-256', bytes);
  const stream = new DigestStream('SHA-256');
  const writer = stream.getWriter();
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) await writer.write(bytes.subarray(at, at + CHUNK_BYTES));
  await writer.close();
  return stream.digest;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function count(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** A digest as lower-case hexadecimal. */
export function hex(digest: ArrayBuffer): string {
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
