/**
 * @module The bucket's objects as an isolate reads them: the current record, and one published
 * database file (a whole database or a shard of a version) out of this location's Workers cache or the
 * R2 bucket, verified. Bytes are returned only once their size and SHA-256 are the published ones;
 * every failure is a {@link LoadFailure} whose message is for the operator's log (`loading.ts` logs
 * it), never for clients.
 */
import type { DataEvent, DataSource } from './data-events.ts';
import { CHUNK_BYTES, type DatabaseIdentity, hex, identifyDatabase } from './identity.ts';
import { CURRENT_RECORD_KEY, type CurrentRecord, CurrentRecordSchema } from './published.ts';
import { DataUnavailableError } from './unavailable.ts';

/** An R2 object as the load reads it (the part of `R2ObjectBody` used). */
interface StoredObject {
  readonly size: number;
  readonly body: ReadableStream<Uint8Array>;
  text(): Promise<string>;
}

/** The R2 bucket of the deployment's data (the part of `R2Bucket` used). */
export interface DataBucket {
  readonly GEO_DATA: { get(key: string): Promise<StoredObject | null> };
}

/** One published file as the current record names it: its object key, size and SHA-256 (hex). */
export interface PublishedFile {
  readonly key: string;
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * The Workers cache (`caches.open`) that holds database files, and the pieces of ASN objects
 * (`src/asn/pieces.ts`), apart from the zone's HTTP cache.
 */
export const CACHE_NAME = 'ipgeo-data';

/** Why a file cannot be had: said in the log, never to clients. */
export class LoadFailure extends Error {
  override readonly name = 'LoadFailure';
  constructor(
    message: string,
    /** `damage` when bytes were read and failed their check. */
    readonly kind: 'refusal' | 'damage',
  ) {
    super(message);
  }
}

/**
 * What a read's `progress` callback throws to stop the read (another load took its place): the read
 * releases what it holds, cancels its body and passes the error on, never taking it for damage.
 */
export class ReadStopped extends Error {
  override readonly name = 'ReadStopped';
}

/** Throws a {@link LoadFailure}. */
export function fail(reason: string, kind: LoadFailure['kind'] = 'refusal'): never {
  throw new LoadFailure(reason, kind);
}

/** The log's sentence for an error of a load. */
export function reasonOf(error: unknown): string {
  if (error instanceof DataUnavailableError) return error.message;
  return error instanceof LoadFailure ? error.message : `R2 read failed: ${error instanceof Error ? error.message : String(error)}`;
}

/** The event a failed load or check of `version` is logged as: damage when R2's bytes failed their check. */
export function failureEvent(error: unknown, why: string, version: string | undefined): DataEvent {
  if (error instanceof LoadFailure && error.kind === 'damage' && version) return { event: 'damage', version, source: 'r2', why };
  return version ? { event: 'refusal', version, why } : { event: 'refusal', why };
}

/** Frees a buffer's memory now: detaching it does not wait for a garbage collection. */
export function release(buffer: ArrayBuffer): void {
  (buffer as ArrayBuffer & { transfer?(length?: number): ArrayBuffer }).transfer?.(0);
}

/** A range of bytes of a published file: where it starts, and how many. */
export interface ByteRange {
  readonly offset: number;
  readonly length: number;
}

/**
 * The cache key of a file's copy, or of the copy of one `range` of it (a piece of an ASN object,
 * `src/asn/pieces.ts`): its object key and the whole file's digest, then the range, which never change
 * together, so a copy never needs refreshing (the cache drops it in time, or when another version is
 * current).
 *
 * @example cacheKey(file) // 'https://ipgeo-data.invalid/ipgeo-2026-09-18.e097d3ab.mmdb?sha256=e097d3ab…'
 * @example cacheKey(asn, { offset: 14712, length: 32768 }) // 'https://ipgeo-data.invalid/ipgeo-2026-09-18.e097d3ab.asn?sha256=5c1f…&offset=14712&length=32768'
 * @internal Exported for `src/asn/pieces.ts`, the tests that spoil or forget the cached copies, and the
 *   bench Worker that forgets them (`bench/worker/distant.js`).
 */
export function cacheKey(file: PublishedFile, range?: ByteRange): string {
  const whole = `https://${CACHE_NAME}.invalid/${file.key}?sha256=${file.sha256}`;
  return range === undefined ? whole : `${whole}&offset=${range.offset}&length=${range.length}`;
}

/** This location's cache of database files, or undefined where the runtime has none or it fails. */
export async function openCache(): Promise<Cache | undefined> {
  try {
    return await caches.open(CACHE_NAME);
  } catch {
    return undefined;
  }
}

/**
 * The answer that `cache.put` stores as the copy of `bytes` bytes (a file, or a piece of one) with its
 * `body`: immutable, and kept as long as versions are (30 days).
 */
export function cachedCopy(body: ReadableStream<Uint8Array> | Uint8Array, bytes: number): Response {
  return new Response(body, {
    headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes), 'Cache-Control': 'public, max-age=2592000, immutable' },
  });
}

/**
 * The file's bytes from the cache, verified, or undefined when it has none (or no usable one). A copy
 * that fails its check is deleted from this location's cache and reported to `damaged`. `progress` is
 * called as bytes arrive; what it throws is passed on.
 */
export async function readCached(
  cache: Cache,
  file: PublishedFile,
  progress: () => void,
  damaged: (why: string) => void,
): Promise<{ buffer: ArrayBuffer; identity: DatabaseIdentity } | undefined> {
  const key = cacheKey(file);
  let buffer: ArrayBuffer | undefined;
  try {
    const cached = await cache.match(key);
    if (cached === undefined) return undefined;
    if (cached.body === null) fail(`the cached copy of ${file.key} has no body`, 'damage');
    buffer = await readBody(cached.body, file.bytes, `the cached copy of ${file.key}`, progress);
    return { buffer, identity: await identify(buffer, file, 'cache') };
  } catch (error) {
    if (buffer !== undefined) release(buffer);
    if (error instanceof ReadStopped) throw error;
    // A cache that fails to answer is no damage: R2 is read as where there is no cache.
    if (error instanceof LoadFailure) {
      damaged(error.message);
      await cache.delete(key).catch(() => false);
    }
    return undefined;
  }
}

/**
 * Stores the verified bytes of `file` in the cache, a chunk at a time through a stream of known
 * length: `new Response(buffer)` would copy the whole file. Where `put` does nothing (`*.workers.dev`)
 * or fails, the writer is abandoned; nothing is logged, the next cold isolate just reads R2.
 */
export async function fillCache(cache: Cache, file: PublishedFile, buffer: ArrayBuffer): Promise<void> {
  const { readable, writable } = new FixedLengthStream(buffer.byteLength);
  const writer = writable.getWriter();
  const put = cache.put(cacheKey(file), cachedCopy(readable, file.bytes));
  const writing = (async () => {
    for (let at = 0; at < buffer.byteLength; at += CHUNK_BYTES) {
      await writer.write(new Uint8Array(buffer, at, Math.min(CHUNK_BYTES, buffer.byteLength - at)));
    }
    await writer.close();
  })().catch(() => writer.abort().catch(() => undefined)); // the buffer released by a switch meanwhile: put fails
  await put.catch(() => undefined);
  // A put that returned before reading everything leaves the writer waiting: end it.
  await writer.abort().catch(() => undefined);
  await writing;
}

/** Checks bytes read from `source` against the published size and digest; fails with damage otherwise. */
export async function identify(buffer: ArrayBuffer, file: PublishedFile, source: DataSource): Promise<DatabaseIdentity> {
  const from = source === 'cache' ? `the cached copy of ${file.key}` : `object ${file.key}`;
  // The digest is computed in chunks (identity.ts): Web Crypto's one-shot digest would copy the file.
  const identity = await identifyDatabase(buffer).catch((error: Error) => fail(`${from} is not a MaxMind DB: ${error.message}`, 'damage'));
  if (identity.sha256 !== file.sha256) fail(`${from} has SHA-256 ${identity.sha256}, not the published ${file.sha256}: damaged`, 'damage');
  return identity;
}

/**
 * How often an isolate reads the current record, at most: the app's database (`current-database.ts`),
 * its view of a sharded one (`shard-set.ts`) and the ASN object (`src/asn/store.ts`).
 */
export const CHECK_INTERVAL_MS = 60_000;

/** The current record, validated. */
export async function readRecord(env: DataBucket): Promise<CurrentRecord> {
  const object = await env.GEO_DATA.get(CURRENT_RECORD_KEY);
  if (object === null) fail(`R2 has no ${CURRENT_RECORD_KEY}: no version is published (docs/operations.md: npm run data:publish)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await object.text());
  } catch {
    fail(`${CURRENT_RECORD_KEY} is not JSON`);
  }
  const record = CurrentRecordSchema.safeParse(parsed);
  if (!record.success) fail(`${CURRENT_RECORD_KEY} is not a current record: ${record.error.issues[0]?.message ?? 'invalid'}`);
  return record.data;
}

/** The file's object, or a failure when it is missing or not of the published size. */
async function openObject(env: DataBucket, file: PublishedFile): Promise<StoredObject> {
  const object = await env.GEO_DATA.get(file.key);
  if (object === null) fail(`R2 has no object ${file.key}, which ${CURRENT_RECORD_KEY} names as current`);
  if (object.size !== file.bytes) {
    await object.body.cancel();
    fail(`object ${file.key} holds ${object.size} bytes, not the published ${file.bytes}: truncated or replaced`, 'damage');
  }
  return object;
}

/** Reads the whole object from R2 with one request (see {@link readBody}); `progress` is called once it answers, then as bytes arrive. */
export async function readObject(env: DataBucket, file: PublishedFile, progress: () => void): Promise<ArrayBuffer> {
  const object = await openObject(env, file);
  try {
    progress();
  } catch (error) {
    await object.body.cancel();
    throw error;
  }
  return readBody(object.body, file.bytes, `object ${file.key}`, progress);
}

/**
 * Reads a body of `size` bytes straight into one buffer of that size (a BYOB reader fills it in place),
 * calling `progress` each time bytes arrive, so that a slow bucket's load is seen to progress: no more
 * memory than the file (`arrayBuffer()` gathers chunks and copies them, doubling the peak).
 *
 * @throws LoadFailure (damage) when the body ends before `size` bytes or holds more; whatever `progress` throws.
 */
async function readBody(body: ReadableStream<Uint8Array>, size: number, what: string, progress: () => void): Promise<ArrayBuffer> {
  let buffer = new ArrayBuffer(size);
  let at = 0;
  const reader = body.getReader({ mode: 'byob' });
  try {
    while (at < size) {
      const { done, value } = await reader.read(new Uint8Array(buffer, at, size - at));
      if (done || value === undefined) break;
      // The view's buffer was transferred to the stream and back: keep using the one it returned.
      buffer = value.buffer as ArrayBuffer;
      at += value.byteLength;
      progress();
    }
    if (at !== size) fail(`${what} ended after ${at} of its ${size} bytes`, 'damage');
    const { done } = await reader.read(new Uint8Array(new ArrayBuffer(1)));
    if (!done) fail(`${what} holds more than its ${size} bytes`, 'damage');
    return buffer;
  } catch (error) {
    release(buffer);
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    reader.releaseLock();
  }
}

/**
 * Streams the file's object through SHA-256 and compares with the published digest, keeping none of
 * it but one reused buffer of {@link CHUNK_BYTES}, calling `progress` once R2 answers and each time bytes
 * arrive; where a cache is given, the same read fills it, and a copy that fails the check is never
 * stored (its stream is aborted before the end, so `put` fails).
 *
 * @throws LoadFailure when the object is missing, or its size or digest is not the published one;
 *   whatever `progress` throws.
 */
export async function verifyObject(env: DataBucket, file: PublishedFile, cache: Cache | undefined, progress: () => void): Promise<void> {
  const object = await openObject(env, file);
  const digest = new crypto.DigestStream('SHA-256');
  const writer = digest.getWriter();
  const copy = cache ? new FixedLengthStream(file.bytes) : undefined;
  const copyWriter = copy?.writable.getWriter();
  let copying = copy !== undefined;
  const put = copy && cache ? cache.put(cacheKey(file), cachedCopy(copy.readable, file.bytes)).catch(() => undefined) : undefined;
  // A put that settles early (does nothing, or failed) stops the copy; the digest goes on.
  void put?.finally(() => {
    copying = false;
  });
  // One reused buffer: no garbage beside the answering database, whatever the pieces the body arrives in.
  const reader = object.body.getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(CHUNK_BYTES);
  let total = 0;
  let complete = false;
  try {
    progress();
    for (;;) {
      const { done, value } = await reader.read(new Uint8Array(buffer));
      if (value !== undefined && value.byteLength > 0) {
        // Both writes are awaited before the buffer is read into again.
        await writer.write(value);
        if (copying) await copyWriter?.write(value).catch(() => undefined);
        total += value.byteLength;
        buffer = value.buffer as ArrayBuffer;
        progress();
      }
      if (done || value === undefined) break;
    }
    await writer.close();
    const sha256 = hex(await digest.digest);
    if (total !== file.bytes) fail(`object ${file.key} ended after ${total} of its ${file.bytes} bytes`, 'damage');
    if (sha256 !== file.sha256) fail(`object ${file.key} has SHA-256 ${sha256}, not the published ${file.sha256}: damaged`, 'damage');
    complete = true;
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    await writer.abort().catch(() => undefined);
    throw error;
  } finally {
    reader.releaseLock();
    if (complete) await copyWriter?.close().catch(() => undefined);
    else await copyWriter?.abort().catch(() => undefined);
    await put;
  }
}
