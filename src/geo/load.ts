/**
 * @module Loads the current database into this isolate (from this location's Workers cache, else R2),
 * verifies it, keeps it, and switches to a newly published version without a restart; what the
 * platform allows: `docs/production.md`. Bytes answer only once their size and SHA-256 are the published
 * ones, wherever they came from; no request awaits a promise or stream another created (waiters poll the
 * slot's settled state with their own timers); a load holds one copy of the file, and a switch releases
 * the old database first (docs/decisions/0004-release-then-load-switching.md).
 */
import { type DataEvent, type DataSource, type Deployment, logDataEvent, type RequestPlace } from './data-events.ts';
import { DataUnavailableError, GeoDatabase, RETRY_AFTER_SECONDS, unavailable } from './database.ts';
import { type DatabaseIdentity, hex, identifyDatabase } from './identity.ts';
import { CURRENT_RECORD_KEY, type CurrentRecord, CurrentRecordSchema, type PublishedFile, type PublishedVersion, shardFile } from './published.ts';

/** An R2 object as the load reads it (the part of `R2ObjectBody` used). */
interface StoredObject {
  readonly size: number;
  readonly body: ReadableStream<Uint8Array>;
  text(): Promise<string>;
}

/** The bindings the load uses: the R2 bucket (the part of `R2Bucket` used) and the deployment's names. */
export interface DatabaseEnv extends Deployment {
  readonly GEO_DATA: { get(key: string): Promise<StoredObject | null> };
}

/** What the load needs of the request's execution context: work that may outlive the answer. */
export interface BackgroundContext {
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * How often an isolate reads the current record, at most.
 *
 * @internal Exported for the distant-data tests, which move their slot's clock by it.
 */
export const CHECK_INTERVAL_MS = 60_000;
/**
 * How long a request waits at most for a load another request is doing, then answers 503. A cold load
 * from a distant bucket (150 ms to the first byte, 25 MB/s) takes about 3 s (`npm run bench:cold`).
 */
const WAIT_LIMIT_MS = 20_000;
/** A load that has read nothing for this long is stuck: waiters answer 503, and the next request starts another. */
const LOAD_STALLED_MS = 5_000;
/** A minute's check (verifying and loading a new version) not done after this long was abandoned. */
const CHECK_ABANDONED_MS = 2 * WAIT_LIMIT_MS;
/** How often a waiting request looks at the slot again. */
const POLL_MS = 20;
/** Bytes each turn of a read waits for at least (workerd's `readAtLeast`), and each cache write. */
const CHUNK = 1 << 20;
/**
 * The Workers cache (`caches.open`) that holds database files, apart from the zone's HTTP cache.
 *
 * @internal Exported for the tests that spoil or forget the cached copies.
 */
export const CACHE_NAME = 'ipgeo-data';

/** The database that answers, and what it was verified against. */
interface Loaded {
  readonly database: GeoDatabase;
  readonly buffer: ArrayBuffer;
  /** Its version, SHA-256, sources and counts (`identity.ts`), computed from its bytes. */
  readonly identity: DatabaseIdentity;
  readonly version: string;
  readonly sha256: string;
  /** When the current record was last read (or the load began), ms since the epoch. */
  checkedAt: number;
}

/**
 * One isolate's database: loaded on first use, verified, checked for a new version at most once a
 * minute, switched without a restart. Its state holds settled values only (see the module comment).
 *
 * @internal Exported for the fault tests, which run slots of their own on a clock they move.
 */
export class DatabaseSlot {
  private loaded: Loaded | undefined;
  /** When the load under way began; undefined when none is. */
  private loadingSince: number | undefined;
  /** When the load under way last read bytes (or began). */
  private progressAt = 0;
  /** The last load's failure, which stands for {@link RETRY_AFTER_SECONDS}. */
  private failure: { at: number; reason: string } | undefined;
  /** The SHA-256 of a version whose reads found damage: refused until another one is current. */
  private damagedSha256: string | undefined;
  /** When the minute's check under way began; undefined when none is. */
  private checkingSince: number | undefined;

  /** @param now the clock, ms since the epoch (tests pass their own). */
  constructor(private readonly now: () => number = () => Date.now()) {}

  /**
   * The database to answer from: at once when loaded, else after this request's own load or a wait
   * for another's. Starts the minute's version check in `ctx.waitUntil` when it is due.
   *
   * @param place the request's `cf`, whose location the data events name.
   * @throws DataUnavailableError (also as a rejected promise) when no verified database can be had: no
   *   current record, the object missing, of the wrong size or digest, not a database, a load failed
   *   less than {@link RETRY_AFTER_SECONDS} ago, or another request's load stuck ({@link LOAD_STALLED_MS})
   *   or not done in {@link WAIT_LIMIT_MS}.
   */
  get(env: DatabaseEnv, ctx: BackgroundContext, place?: RequestPlace): GeoDatabase | Promise<GeoDatabase> {
    const loaded = this.loaded;
    const now = this.now();
    if (loaded !== undefined) {
      if (loaded.database.damage === undefined) {
        // A check whose request was cancelled never finishes: after a while another may start.
        const checking = this.checkingSince !== undefined && now - this.checkingSince < CHECK_ABANDONED_MS;
        if (now - loaded.checkedAt >= CHECK_INTERVAL_MS && !checking) {
          loaded.checkedAt = now;
          ctx.waitUntil(this.check(env, ctx, place, loaded));
        }
        return loaded.database;
      }
      logDataEvent({ event: 'damage', version: loaded.version, source: 'reads', why: loaded.database.damage }, env, place);
      this.damagedSha256 = loaded.sha256;
      this.release(loaded);
    }
    if (this.loadingSince !== undefined && now - this.progressAt < LOAD_STALLED_MS) return this.waitForLoad(now);
    if (this.failure !== undefined && now - this.failure.at < RETRY_AFTER_SECONDS * 1000) {
      return Promise.reject(unavailable(`a load failed ${now - this.failure.at} ms ago (${this.failure.reason}); waiting before the next`));
    }
    const loading = this.load(env, ctx, place);
    // The load finishes even if this request's client goes away; the others are polling for it.
    ctx.waitUntil(loading.catch(() => undefined));
    return loading;
  }

  /** Forgets everything, releasing the database (tests start each case from a cold isolate). */
  reset(): void {
    if (this.loaded) this.release(this.loaded);
    this.loadingSince = undefined;
    this.failure = undefined;
    this.damagedSha256 = undefined;
    this.checkingSince = undefined;
  }

  /** The version answering now, if any (logs and tests). */
  get version(): string | undefined {
    return this.loaded?.version;
  }

  /** The identity of the database answering now, if any; never starts a load. */
  get identity(): DatabaseIdentity | undefined {
    return this.loaded?.identity;
  }

  /** Polls until the load under way answers, fails, stalls, or {@link WAIT_LIMIT_MS} has passed since `since`. */
  private async waitForLoad(since: number): Promise<GeoDatabase> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const loaded = this.loaded;
      if (loaded !== undefined && loaded.database.damage === undefined) return loaded.database;
      if (this.loadingSince === undefined) throw unavailable(this.failure?.reason ?? 'the load this request waited for was given up');
      const now = this.now();
      if (now - this.progressAt >= LOAD_STALLED_MS) throw unavailable(`the load under way has read nothing for ${now - this.progressAt} ms`);
      if (now - since >= WAIT_LIMIT_MS) throw unavailable(`the load under way did not finish within ${WAIT_LIMIT_MS} ms`);
    }
  }

  private async load(env: DatabaseEnv, ctx: BackgroundContext, place: RequestPlace | undefined): Promise<GeoDatabase> {
    const started = this.now();
    this.loadingSince = started;
    this.progressAt = started;
    const progress = () => {
      if (this.loadingSince === started) this.progressAt = this.now();
    };
    let version: PublishedFile | undefined;
    let buffer: ArrayBuffer | undefined;
    try {
      const record = await readRecord(env);
      version = wholeFile(record.current);
      if (version.sha256 === this.damagedSha256) {
        fail(`version ${version.version} is current but its reads found damage; publish another version or roll back`);
      }
      const cache = await openCache();
      let source: DataSource = 'cache';
      let verified = cache && (await this.readCached(cache, version, env, place, progress));
      if (!verified) {
        source = 'r2';
        buffer = await readObject(env, version, progress);
        verified = { buffer, identity: await identify(buffer, version, 'r2') };
        if (cache) ctx.waitUntil(fillCache(cache, version, buffer));
      }
      buffer = verified.buffer;
      const database = new GeoDatabase(buffer);
      const { identity } = verified;
      if (this.loadingSince !== started) {
        // Another load replaced this one (it was taken as stuck): its bytes are not kept.
        release(buffer);
        return database;
      }
      this.loaded = { database, buffer, identity, version: version.version, sha256: identity.sha256, checkedAt: started };
      this.loadingSince = undefined;
      this.failure = undefined;
      this.damagedSha256 = undefined;
      logDataEvent({ event: 'load', version: version.version, bytes: identity.bytes, source, ms: this.now() - started }, env, place);
      return database;
    } catch (error) {
      if (buffer !== undefined && this.loaded?.buffer !== buffer) release(buffer);
      const reason = reasonOf(error);
      if (this.loadingSince === started) {
        this.loadingSince = undefined;
        this.failure = { at: this.now(), reason };
      }
      logDataEvent(failureEvent(error, reason, version), env, place);
      throw error instanceof DataUnavailableError ? error : unavailable(reason);
    }
  }

  /**
   * The version's bytes from the cache, verified, or undefined when it has none (or no usable one). A
   * copy that fails its check is deleted from this location's cache and logged as damage.
   */
  private async readCached(
    cache: Cache,
    version: PublishedFile,
    env: DatabaseEnv,
    place: RequestPlace | undefined,
    progress: () => void,
  ): Promise<{ buffer: ArrayBuffer; identity: DatabaseIdentity } | undefined> {
    const key = cacheKey(version);
    let buffer: ArrayBuffer | undefined;
    try {
      const cached = await cache.match(key);
      if (cached === undefined) return undefined;
      if (cached.body === null) fail(`the cached copy of ${version.key} has no body`, 'damage');
      buffer = await readBody(cached.body, version.bytes, `the cached copy of ${version.key}`, progress);
      return { buffer, identity: await identify(buffer, version, 'cache') };
    } catch (error) {
      if (buffer !== undefined) release(buffer);
      // A cache that fails to answer is no damage: R2 is read as where there is no cache.
      if (error instanceof LoadFailure) {
        logDataEvent({ event: 'damage', version: version.version, source: 'cache', why: error.message }, env, place);
        await cache.delete(key).catch(() => false);
      }
      return undefined;
    }
  }

  /** The minute's check, in a request's `waitUntil`: switches when another version is current. */
  private async check(env: DatabaseEnv, ctx: BackgroundContext, place: RequestPlace | undefined, seen: Loaded): Promise<void> {
    const started = this.now();
    this.checkingSince = started;
    let next: PublishedFile | undefined;
    try {
      const record = await readRecord(env);
      next = wholeFile(record.current);
      if (next.sha256 === seen.sha256 || this.loaded !== seen) return;
      // Verified before the database that answers is let go: a bad upload leaves the service as it was.
      // The same read fills the cache, so the load after the release reads this location's copy.
      await verifyObject(env, next, await openCache());
      if (this.loaded !== seen) return;
      logDataEvent({ event: 'switch', from: seen.version, to: next.version }, env, place);
      this.release(seen);
      await this.load(env, ctx, place);
    } catch (error) {
      // A failed load after the release has logged its own refusal.
      if (this.loaded === seen) logDataEvent(failureEvent(error, `staying on ${seen.version}: ${reasonOf(error)}`, next), env, place);
    } finally {
      if (this.checkingSince === started) this.checkingSince = undefined;
    }
  }

  /** Drops the database and frees its bytes now. */
  private release(loaded: Loaded): void {
    if (this.loaded === loaded) this.loaded = undefined;
    release(loaded.buffer);
  }
}

/** Frees a buffer's memory now: detaching it does not wait for a garbage collection. */
function release(buffer: ArrayBuffer): void {
  (buffer as ArrayBuffer & { transfer?(length?: number): ArrayBuffer }).transfer?.(0);
}

/**
 * The cache key of a version's copy: its object key and digest, which never change together, so a
 * copy never needs refreshing (the cache drops it in time, or when another version is current).
 *
 * @example cacheKey(version) // 'https://ipgeo-data.invalid/ipgeo-2026-09-18.e097d3ab.mmdb?sha256=e097d3ab…'
 * @internal Exported for the tests that spoil or forget the cached copies.
 */
export function cacheKey(version: Pick<PublishedFile, 'key' | 'sha256'>): string {
  return `https://${CACHE_NAME}.invalid/${version.key}?sha256=${version.sha256}`;
}

/** This location's cache of database files, or undefined where the runtime has none or it fails. */
async function openCache(): Promise<Cache | undefined> {
  try {
    return await caches.open(CACHE_NAME);
  } catch {
    return undefined;
  }
}

/** The headers a cached copy is stored with: immutable, kept as long as versions are (30 days). */
function cacheHeaders(version: PublishedFile): HeadersInit {
  return {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(version.bytes),
    'Cache-Control': 'public, max-age=2592000, immutable',
  };
}

/**
 * Stores the verified bytes of `version` in the cache, a chunk at a time through a stream of known
 * length: `new Response(buffer)` would copy the whole file. Where `put` does nothing (`*.workers.dev`)
 * or fails, the writer is abandoned; nothing is logged, the next cold isolate just reads R2.
 */
async function fillCache(cache: Cache, version: PublishedFile, buffer: ArrayBuffer): Promise<void> {
  const { readable, writable } = new FixedLengthStream(buffer.byteLength);
  const writer = writable.getWriter();
  const put = cache.put(cacheKey(version), new Response(readable, { headers: cacheHeaders(version) }));
  const writing = (async () => {
    for (let at = 0; at < buffer.byteLength; at += CHUNK) {
      await writer.write(new Uint8Array(buffer, at, Math.min(CHUNK, buffer.byteLength - at)));
    }
    await writer.close();
  })().catch(() => writer.abort().catch(() => undefined)); // the buffer released by a switch meanwhile: put fails
  await put.catch(() => undefined);
  // A put that returned before reading everything leaves the writer waiting: end it.
  await writer.abort().catch(() => undefined);
  await writing;
}

/** Checks bytes read from `source` against the published size and digest; fails with damage otherwise. */
async function identify(buffer: ArrayBuffer, version: PublishedFile, source: DataSource): Promise<DatabaseIdentity> {
  const from = source === 'cache' ? `the cached copy of ${version.key}` : `object ${version.key}`;
  // The digest is computed in chunks (identity.ts): Web Crypto's one-shot digest would copy the file.
  const identity = await identifyDatabase(buffer).catch((error: Error) => fail(`${from} is not a MaxMind DB: ${error.message}`, 'damage'));
  if (identity.sha256 !== version.sha256) fail(`${from} has SHA-256 ${identity.sha256}, not the published ${version.sha256}: damaged`, 'damage');
  return identity;
}

/** The current record, validated. */
/** The one object of a version that is one file (N = 1), which this Worker loads whole. */
function wholeFile(version: PublishedVersion): PublishedFile {
  const file = shardFile(version, 0);
  if (file === undefined || version.shards.length !== 1) {
    fail(`version ${version.version} is split into ${version.shards.length} shards; this Worker loads one file: deploy the shard Workers (npm run deploy)`);
  }
  return file;
}

async function readRecord(env: DatabaseEnv): Promise<CurrentRecord> {
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

/** The version's object, or a failure when it is missing or not of the published size. */
async function openObject(env: DatabaseEnv, version: PublishedFile): Promise<StoredObject> {
  const object = await env.GEO_DATA.get(version.key);
  if (object === null) fail(`R2 has no object ${version.key}, which ${CURRENT_RECORD_KEY} names as current`);
  if (object.size !== version.bytes) {
    await object.body.cancel();
    fail(`object ${version.key} holds ${object.size} bytes, not the published ${version.bytes}: truncated or replaced`, 'damage');
  }
  return object;
}

/** Reads the whole object from R2 with one request (see {@link readBody}). */
async function readObject(env: DatabaseEnv, version: PublishedFile, progress: () => void): Promise<ArrayBuffer> {
  const object = await openObject(env, version);
  progress();
  return readBody(object.body, version.bytes, `object ${version.key}`, progress);
}

/**
 * Reads a body of `size` bytes straight into one buffer of that size (a BYOB reader fills it in place),
 * calling `progress` after each chunk: no more memory than the file (`arrayBuffer()` gathers chunks
 * and copies them, doubling the peak).
 *
 * @throws LoadFailure (damage) when the body ends before `size` bytes or holds more.
 */
async function readBody(body: ReadableStream<Uint8Array>, size: number, what: string, progress: () => void): Promise<ArrayBuffer> {
  let buffer = new ArrayBuffer(size);
  let at = 0;
  const reader = body.getReader({ mode: 'byob' }) as ReadableStreamBYOBReader & {
    readAtLeast?<T extends ArrayBufferView>(minElements: number, view: T): Promise<{ done: boolean; value?: T | undefined }>;
  };
  try {
    while (at < size) {
      const view = new Uint8Array(buffer, at, size - at);
      // workerd's readAtLeast fills the view in as few turns as the stream allows; elsewhere, read.
      const { done, value } = await (reader.readAtLeast ? reader.readAtLeast(Math.min(size - at, CHUNK), view) : reader.read(view));
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
 * Streams the version's object through SHA-256 and compares with the published digest, keeping none
 * of it; where a cache is given, the same read fills it, and a copy that fails the check is never
 * stored (its stream is aborted before the end, so `put` fails).
 */
async function verifyObject(env: DatabaseEnv, version: PublishedFile, cache: Cache | undefined): Promise<void> {
  const object = await openObject(env, version);
  const digest = new crypto.DigestStream('SHA-256');
  const writer = digest.getWriter();
  const copy = cache ? new FixedLengthStream(version.bytes) : undefined;
  const copyWriter = copy?.writable.getWriter();
  let copying = copy !== undefined;
  const put = copy && cache ? cache.put(cacheKey(version), new Response(copy.readable, { headers: cacheHeaders(version) })).catch(() => undefined) : undefined;
  // A put that settles early (does nothing, or failed) stops the copy; the digest goes on.
  void put?.finally(() => {
    copying = false;
  });
  // Read a mebibyte at a time into one reused buffer: few turns of the isolate's event loop, so the
  // requests it serves meanwhile are not kept waiting, and no garbage beside the answering database.
  const reader = object.body.getReader({ mode: 'byob' }) as ReadableStreamBYOBReader & {
    readAtLeast?<T extends ArrayBufferView>(minElements: number, view: T): Promise<{ done: boolean; value?: T | undefined }>;
  };
  let buffer = new ArrayBuffer(CHUNK);
  let total = 0;
  let complete = false;
  try {
    for (;;) {
      const view = new Uint8Array(buffer);
      const { done, value } = await (reader.readAtLeast ? reader.readAtLeast(CHUNK, view) : reader.read(view));
      if (value !== undefined && value.byteLength > 0) {
        // Both writes are awaited before the buffer is read into again.
        await writer.write(value);
        if (copying) await copyWriter?.write(value).catch(() => undefined);
        total += value.byteLength;
        buffer = value.buffer as ArrayBuffer;
      }
      if (done || value === undefined) break;
    }
    reader.releaseLock();
    await writer.close();
    const sha256 = hex(await digest.digest);
    if (total !== version.bytes) fail(`object ${version.key} ended after ${total} of its ${version.bytes} bytes`, 'damage');
    if (sha256 !== version.sha256) fail(`object ${version.key} has SHA-256 ${sha256}, not the published ${version.sha256}: damaged`, 'damage');
    complete = true;
  } finally {
    if (complete) await copyWriter?.close().catch(() => undefined);
    else await copyWriter?.abort().catch(() => undefined);
    await put;
  }
}

/** Why the database cannot be had: said in the log, never to clients. */
class LoadFailure extends Error {
  override readonly name = 'LoadFailure';
  constructor(
    message: string,
    /** `damage` when bytes were read and failed their check. */
    readonly kind: 'refusal' | 'damage',
  ) {
    super(message);
  }
}

function fail(reason: string, kind: LoadFailure['kind'] = 'refusal'): never {
  throw new LoadFailure(reason, kind);
}

function reasonOf(error: unknown): string {
  if (error instanceof DataUnavailableError) return error.message;
  return error instanceof LoadFailure ? error.message : `R2 read failed: ${error instanceof Error ? error.message : String(error)}`;
}

/** The event a failed load or check is logged as: damage when R2's bytes failed their check. */
function failureEvent(error: unknown, why: string, version: PublishedFile | undefined): DataEvent {
  if (error instanceof LoadFailure && error.kind === 'damage' && version) return { event: 'damage', version: version.version, source: 'r2', why };
  return version ? { event: 'refusal', version: version.version, why } : { event: 'refusal', why };
}

const slot = new DatabaseSlot();

/**
 * The database of this isolate (see {@link DatabaseSlot.get}): synchronous once loaded, so that a
 * lookup answers without a turn of the event loop. Pass the request's execution context (the check
 * for a new version runs in its `waitUntil`, off the request's path) and the request, whose `cf`
 * names the location in the data events.
 *
 * @example const database = await loadDatabase(c.env, c.executionCtx, c.req.raw);
 * @throws DataUnavailableError while no verified database can be had.
 */
export function loadDatabase(env: DatabaseEnv, ctx: BackgroundContext, place?: RequestPlace): GeoDatabase | Promise<GeoDatabase> {
  return slot.get(env, ctx, place);
}

/**
 * The identity of the database this isolate answers from (`identity.ts`), or undefined while it has
 * none. It never starts a load: await {@link loadDatabase} first where the data must be there.
 */
export function databaseIdentity(): DatabaseIdentity | undefined {
  return slot.identity;
}

/**
 * Forgets this isolate's database.
 *
 * @internal for tests that start from a cold isolate.
 */
export function resetDatabaseForTests(): void {
  slot.reset();
}
