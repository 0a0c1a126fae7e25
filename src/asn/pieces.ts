/**
 * @module Reads one piece of a version's ASN object (its index, or one block) by range: from this
 * location's Workers cache when it holds a copy, else from R2, whose bytes then go into the cache in the
 * request's `waitUntil` (`cache.put` takes whole answers, so each piece is cached as one, under a key
 * of its own). Bytes are returned only once their length and SHA-256 are those published; a cached copy
 * that fails is deleted and R2 read instead. On `*.workers.dev` the cache keeps nothing: every read is R2's.
 */

import { type ByteRange, cachedCopy, cacheKey, fail, LoadFailure, openCache } from '../geo/bucket.ts';
import type { PublishedAsn } from '../geo/published.ts';

/** An R2 object read by range (the part of `R2ObjectBody` used): `size` is the whole object's. */
interface RangeObject {
  readonly size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** The R2 bucket of the deployment's data, read by range (the part of `R2Bucket` used). */
export interface RangeBucket {
  readonly GEO_DATA: { get(key: string, options: { range: { offset: number; length: number } }): Promise<RangeObject | null> };
}

/** What the answer needs of the request's execution context: the cache's fill outlives it. */
export interface PieceContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** A piece of the ASN object: where it is, its SHA-256 (32 bytes), and its name in the log (`the index`, `block 54`). */
export interface Piece extends ByteRange {
  readonly sha256: Uint8Array;
  readonly name: string;
}

/** Where a piece's bytes came from, and its bytes. */
export interface ReadPiece {
  readonly bytes: Uint8Array;
  readonly source: 'cache' | 'r2';
}

/** A piece whose bytes R2 gave are not the published ones: that piece's damage, where any other failure is the whole object's. */
export class PieceDamage extends LoadFailure {
  constructor(message: string) {
    super(message, 'damage');
  }
}

/** Why `bytes` are not the piece, or undefined when they are. */
async function mismatch(bytes: Uint8Array, piece: Piece): Promise<string | undefined> {
  if (bytes.byteLength !== piece.length) return `${bytes.byteLength} bytes, not ${piece.length}`;
  const sha256 = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return sha256.every((byte, i) => byte === piece.sha256[i]) ? undefined : `another SHA-256 than the published one`;
}

/**
 * The verified bytes of `piece` of `file`.
 *
 * @param damaged told of a cached copy that failed its check (then deleted), for the log.
 * @throws PieceDamage when R2's bytes of the piece are not the published ones; LoadFailure when R2 has
 *   no such object or one of another size (`damage`); whatever R2 throws.
 */
export async function readPiece(env: RangeBucket, ctx: PieceContext, file: PublishedAsn, piece: Piece, damaged: (why: string) => void): Promise<ReadPiece> {
  const cache = await openCache();
  const key = cacheKey(file, piece);
  const cached = await cache?.match(key).catch(() => undefined);
  if (cached !== undefined && cache !== undefined) {
    const bytes = new Uint8Array(await cached.arrayBuffer());
    const wrong = await mismatch(bytes, piece);
    if (wrong === undefined) return { bytes, source: 'cache' };
    damaged(`the cached copy of ${piece.name} of ${file.key} has ${wrong}: deleted`);
    await cache.delete(key).catch(() => false);
  }
  const object = await env.GEO_DATA.get(file.key, { range: { offset: piece.offset, length: piece.length } });
  if (object === null) fail(`R2 has no object ${file.key}, which the current record names`);
  if (object.size !== file.bytes) fail(`object ${file.key} holds ${object.size} bytes, not the published ${file.bytes}: truncated or replaced`, 'damage');
  const bytes = new Uint8Array(await object.arrayBuffer());
  const wrong = await mismatch(bytes, piece);
  if (wrong !== undefined) throw new PieceDamage(`${piece.name} of object ${file.key} has ${wrong}: damaged`);
  if (cache !== undefined) ctx.waitUntil(cache.put(key, cachedCopy(bytes.slice(), piece.length)).catch(() => undefined));
  return { bytes, source: 'r2' };
}
