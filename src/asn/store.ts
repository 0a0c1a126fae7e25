/**
 * @module One isolate's view of the current version's ASN object (docs/storage.md): it follows the
 * bucket's current record at most once a minute, as the database does, so that it is published,
 * switched and rolled back with it; keeps that version's index (at most 1 MiB) once verified and the
 * blocks it answered from last; and reads one block per answer otherwise (`pieces.ts`). Holds settled
 * values only: a request that finds no index or block reads it itself. A failure (of one piece's bytes,
 * else of the whole object, or of the record) stands for `RETRY_AFTER_SECONDS`, nothing read meanwhile
 * that it covers (kept blocks still answer); one is logged in that time at most. Speaks no HTTP:
 * it answers a page, its absence, or throws `DataUnavailableError`.
 */

import { ASN_LAYOUT, type AsnIndex, AsnLayoutError, type AsnPage, blockOf, findInBlock, parseAsnIndex } from '../geo/asn-layout.ts';
import { CHECK_INTERVAL_MS, type DataBucket, LoadFailure, readRecord, reasonOf } from '../geo/bucket.ts';
import { type Deployment, logDataEvent, type RequestPlace } from '../geo/data-events.ts';
import type { PublishedAsn } from '../geo/published.ts';
import { RETRY_AFTER_SECONDS } from '../geo/retry-after.ts';
import { unavailable } from '../geo/unavailable.ts';
import { LruMap } from '../memory/lru-map.ts';
import { type PieceContext, PieceDamage, type RangeBucket, readPiece } from './pieces.ts';

/** The bindings the ASN answers use: the bucket, read whole (the record) and by range, and the deployment's names. */
export type AsnEnv = Deployment & { readonly GEO_DATA: DataBucket['GEO_DATA'] & RangeBucket['GEO_DATA'] };

/** What the data says of a page of an ASN, in the version `version`: the page, how many pages it has when not that many, or that it is not there. */
export type AsnFinding =
  | { readonly kind: 'found'; readonly version: string; readonly page: AsnPage }
  | { readonly kind: 'no-page'; readonly version: string; readonly pages: number }
  | { readonly kind: 'not-found'; readonly version: string };

/**
 * The version an isolate answers ASNs from: its ASN object (none for a version published before it),
 * its index once read, and the blocks last answered from, verified, least recently used first.
 */
interface Held {
  readonly version: string;
  readonly file: PublishedAsn | undefined;
  index: AsnIndex | undefined;
  readonly blocks: LruMap<number, Uint8Array>;
  /**
   * The failed reads, by piece (`the index`, `block 54`: its bytes were wrong) or {@link OBJECT} (any
   * other failure): when, and why; each stands for {@link RETRY_AFTER_SECONDS}.
   */
  readonly failures: Map<string, Failure>;
  /** When a failure of this version was last logged (ms since the epoch): one line a {@link RETRY_AFTER_SECONDS} at most. */
  loggedAt: number | undefined;
}

/** A failed read: when (ms since the epoch), and the log's sentence. */
interface Failure {
  readonly at: number;
  readonly why: string;
}

/** The name a failure of the whole object stands under (R2 failing, the object missing or of another size): it stops every piece's read. */
const OBJECT = 'the object';

/** A version held from now on, nothing of its object read yet. */
function holding(version: string, file: PublishedAsn | undefined): Held {
  return { version, file, index: undefined, blocks: new LruMap(ASN_LAYOUT.keptBlocks), failures: new Map(), loggedAt: undefined };
}

/** A minute's check not done after this long was abandoned (its request cancelled): another may start. */
const CHECK_ABANDONED_MS = 2 * CHECK_INTERVAL_MS;

/** One isolate's ASN object: see the module comment. */
export class AsnStore {
  private held: Held | undefined;
  private checkedAt = 0;
  private checkingSince: number | undefined;
  /** The last failed read of the record before any version was held: it stands for {@link RETRY_AFTER_SECONDS}. */
  private recordFailure: Failure | undefined;

  /** @param now the clock, ms since the epoch (tests pass their own). */
  constructor(private readonly now: () => number = () => Date.now()) {}

  /**
   * Page `page` (from 0) of `asn` in the current version.
   *
   * @param place the request's `cf`, whose location the data events name.
   * @throws DataUnavailableError when the record cannot be read, the version has no ASN object, or its
   *   index or the block cannot be read or fails its check (then, for {@link RETRY_AFTER_SECONDS}, every
   *   request for that piece, or for any piece not kept when the failure was the whole object's, without
   *   reading it again).
   */
  async find(env: AsnEnv, ctx: PieceContext, place: RequestPlace | undefined, asn: number, page: number): Promise<AsnFinding> {
    const held = this.current(env, ctx) ?? (await this.read(env));
    const { version, file } = held;
    if (file === undefined) throw unavailable(`version ${version} was published without an ASN object: publish a build of this release (npm run data:publish)`);
    const damaged = (why: string) => logDataEvent({ event: 'damage', version, source: 'cache', why }, env, place);
    let index = held.index;
    if (index === undefined) {
      index = await this.piece(held, file, 'the index', env, place, async () => {
        const piece = { offset: 0, length: file.indexBytes, sha256: bytesOfHex(file.indexSha256), name: 'the index' };
        return parseAsnIndex((await readPiece(env, ctx, file, piece, damaged)).bytes, file);
      });
      held.index = index;
    }
    const at = blockOf(index, asn, page);
    if (at < 0) return { kind: 'not-found', version };
    const kept = this.kept(held, at);
    const found = await this.piece(
      held,
      file,
      `block ${at}`,
      env,
      place,
      async () => findInBlock(kept ?? (await this.block(held, file, index, at, env, ctx, damaged)), asn, page),
      kept !== undefined,
    );
    return { ...found, version };
  }

  /**
   * What `read` makes of the piece `name` of the held version: unavailable without reading while a
   * failure of that piece stands ({@link RETRY_AFTER_SECONDS}), or of the whole object unless the piece
   * is `kept`; else read. A failure is kept under the piece's name when its own bytes or layout were
   * wrong, else under {@link OBJECT}; logged as a data event (`damage` where bytes or layout are wrong,
   * else `refusal`) unless one of the version was in the last {@link RETRY_AFTER_SECONDS}; and thrown
   * as unavailable.
   */
  private async piece<T>(
    held: Held,
    file: PublishedAsn,
    name: string,
    env: AsnEnv,
    place: RequestPlace | undefined,
    read: () => Promise<T>,
    kept = false,
  ): Promise<T> {
    const now = this.now();
    const standing = (key: string) => {
      const failed = held.failures.get(key);
      return failed !== undefined && now - failed.at < RETRY_AFTER_SECONDS * 1000 ? { key, ...failed } : undefined;
    };
    const failed = standing(name) ?? (kept ? undefined : standing(OBJECT));
    if (failed !== undefined) {
      const what = failed.key === OBJECT ? `object ${file.key}` : `${name} of ${file.key}`;
      throw unavailable(`${what} failed ${now - failed.at} ms ago (${failed.why}); waiting before the next read`);
    }
    try {
      return await read();
    } catch (error) {
      const why = error instanceof AsnLayoutError ? `object ${file.key} breaks the ASN layout: ${error.message}` : reasonOf(error);
      const damage = (error instanceof LoadFailure && error.kind === 'damage') || error instanceof AsnLayoutError;
      const own = error instanceof PieceDamage || error instanceof AsnLayoutError;
      const at = this.now();
      held.failures.set(own ? name : OBJECT, { at, why });
      if (held.loggedAt === undefined || at - held.loggedAt >= RETRY_AFTER_SECONDS * 1000) {
        held.loggedAt = at;
        const { version } = held;
        logDataEvent(damage ? { event: 'damage', version, source: 'r2', why } : { event: 'refusal', version, why }, env, place);
      }
      throw unavailable(why);
    }
  }

  /** Block `at` of the held version if the isolate keeps it, made the most recently used. */
  private kept(held: Held, at: number): Uint8Array | undefined {
    return held.blocks.get(at);
  }

  /** Block `at` of the held version read (`pieces.ts`) and kept, the least recently used one let go. */
  private async block(
    held: Held,
    file: PublishedAsn,
    index: AsnIndex,
    at: number,
    env: AsnEnv,
    ctx: PieceContext,
    damaged: (why: string) => void,
  ): Promise<Uint8Array> {
    const piece = {
      offset: file.indexBytes + at * file.blockBytes,
      length: file.blockBytes,
      sha256: index.digests.subarray(at * 32, at * 32 + 32),
      name: `block ${at}`,
    };
    const { bytes } = await readPiece(env, ctx, file, piece, damaged);
    held.blocks.set(at, bytes);
    return bytes;
  }

  /** The version held, its minute's check started in `ctx.waitUntil` when due; undefined before the isolate's first read. */
  private current(env: AsnEnv, ctx: PieceContext): Held | undefined {
    const held = this.held;
    if (held === undefined) return undefined;
    const now = this.now();
    if (now - this.checkedAt >= CHECK_INTERVAL_MS && (this.checkingSince === undefined || now - this.checkingSince >= CHECK_ABANDONED_MS)) {
      this.checkedAt = now;
      ctx.waitUntil(this.check(env, held));
    }
    return held;
  }

  /**
   * Reads the current record (this request's own read) and holds its version unless another request held
   * one meanwhile; a failed read stands for {@link RETRY_AFTER_SECONDS}, every request answered unavailable
   * meanwhile without reading.
   */
  private async read(env: AsnEnv): Promise<Held> {
    const now = this.now();
    const failed = this.recordFailure;
    if (failed !== undefined && now - failed.at < RETRY_AFTER_SECONDS * 1000) {
      throw unavailable(`the current record could not be read ${now - failed.at} ms ago (${failed.why}); waiting before the next read`);
    }
    let current: Awaited<ReturnType<typeof readRecord>>['current'];
    try {
      current = (await readRecord(env)).current;
    } catch (error) {
      this.recordFailure = { at: this.now(), why: reasonOf(error) };
      throw unavailable(this.recordFailure.why);
    }
    this.recordFailure = undefined;
    const read = holding(current.version, current.asn);
    if (this.held === undefined) {
      this.held = read;
      this.checkedAt = this.now();
    }
    return this.held.version === read.version ? this.held : read;
  }

  /**
   * The minute's check: when the record names another version (or the same one with another ASN object,
   * as a publish adds one to a version published before it), that is held from now on, its index read
   * by the next request.
   */
  private async check(env: AsnEnv, seen: Held): Promise<void> {
    const started = this.now();
    this.checkingSince = started;
    try {
      const { current } = await readRecord(env);
      const changed = current.version !== seen.version || current.asn?.sha256 !== seen.file?.sha256;
      if (changed && this.held === seen) this.held = holding(current.version, current.asn);
    } catch (error) {
      logDataEvent({ event: 'refusal', why: `ASN answers staying on ${seen.version}: ${reasonOf(error)}` }, env, undefined);
    } finally {
      if (this.checkingSince === started) this.checkingSince = undefined;
    }
  }
}

/** The 32 bytes of a SHA-256 given in lower-case hex. */
function bytesOfHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}
