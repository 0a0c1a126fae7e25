/**
 * @module Loads the current database from R2 into this isolate, verifies it, keeps it in memory, and
 * switches to a newly published version without a restart (what R2 holds: `published.ts`). Bytes answer
 * only once their SHA-256 equals the published one; a database whose reads find damage is dropped and
 * its version refused until another is published. No request awaits another's promise: waiters poll the
 * slot's settled state for at most {@link WAIT_MS}. A switch verifies the new version, releases the old
 * one, then loads (docs/decisions/0004-release-then-load-switching.md).
 */
import { DataUnavailableError, GeoDatabase, RETRY_AFTER_SECONDS, unavailable } from './database.ts';
import { type DatabaseIdentity, hex, identifyDatabase } from './identity.ts';
import { CURRENT_RECORD_KEY, type CurrentRecord, CurrentRecordSchema, type PublishedVersion } from './published.ts';

/** An R2 object as the load reads it (the part of `R2ObjectBody` used). */
interface StoredObject {
  readonly size: number;
  readonly body: ReadableStream<Uint8Array>;
  text(): Promise<string>;
}

/** The R2 binding the database is read from (the part of `R2Bucket` used). */
export interface DatabaseEnv {
  readonly GEO_DATA: { get(key: string): Promise<StoredObject | null> };
}

/** What the load needs of the request's execution context: work that may outlive the answer. */
export interface BackgroundContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** How often an isolate reads the current record, at most. */
export const CHECK_INTERVAL_MS = 60_000;
/** How long a request waits for a load that another request is doing before it answers 503. */
export const WAIT_MS = 2_000;
/** How often a waiting request looks at the slot again. */
const POLL_MS = 10;
/** A load that has not finished after this long is taken to be abandoned (its request cancelled). */
export const LOAD_ABANDONED_MS = 15_000;
/** Bytes each turn of the read waits for at least (workerd's `readAtLeast`): fewer turns, no copies. */
const READ_AT_LEAST = 1 << 20;

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
 */
export class DatabaseSlot {
  private loaded: Loaded | undefined;
  /** When the load under way began; undefined when none is. */
  private loadingSince: number | undefined;
  /** The last load's failure, which stands for {@link RETRY_AFTER_SECONDS}. */
  private failure: { at: number; reason: string } | undefined;
  /** The SHA-256 of a version whose reads found damage: refused until another one is current. */
  private damagedSha256: string | undefined;
  /** When the minute's check under way began; undefined when none is. */
  private checkingSince: number | undefined;

  /** @param now the clock, ms since the epoch (tests pass their own). */
  constructor(private readonly now: () => number = () => Date.now()) {}

  /**
   * The database to answer from: at once when loaded, else after this request's own load or a bounded
   * wait for another's. Starts the minute's version check in `ctx.waitUntil` when it is due.
   *
   * @throws DataUnavailableError (also as a rejected promise) when no verified database
   *   can be had: no current record, the object missing, of the wrong size or digest, not a database,
   *   a load failed less than {@link RETRY_AFTER_SECONDS} ago, or another request's load not done in
   *   {@link WAIT_MS}.
   */
  get(env: DatabaseEnv, ctx: BackgroundContext): GeoDatabase | Promise<GeoDatabase> {
    const loaded = this.loaded;
    const now = this.now();
    if (loaded !== undefined) {
      if (loaded.database.damage === undefined) {
        // A check whose request was cancelled never finishes: after LOAD_ABANDONED_MS another may start.
        const checking = this.checkingSince !== undefined && now - this.checkingSince < LOAD_ABANDONED_MS;
        if (now - loaded.checkedAt >= CHECK_INTERVAL_MS && !checking) {
          loaded.checkedAt = now;
          ctx.waitUntil(this.check(env, loaded));
        }
        return loaded.database;
      }
      console.error(`geolocation data: version ${loaded.version} is damaged (${loaded.database.damage}); dropping it`);
      this.damagedSha256 = loaded.sha256;
      this.release(loaded);
    }
    if (this.loadingSince !== undefined && now - this.loadingSince < LOAD_ABANDONED_MS) return this.waitForLoad(now);
    if (this.failure !== undefined && now - this.failure.at < RETRY_AFTER_SECONDS * 1000) {
      return Promise.reject(unavailable(`a load failed ${now - this.failure.at} ms ago (${this.failure.reason}); waiting before the next`));
    }
    const loading = this.load(env);
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

  private async waitForLoad(since: number): Promise<GeoDatabase> {
    while (this.now() - since < WAIT_MS) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const loaded = this.loaded;
      if (loaded !== undefined && loaded.database.damage === undefined) return loaded.database;
      if (this.loadingSince === undefined) break;
    }
    const reason = this.failure?.reason ?? `another request's load did not finish within ${WAIT_MS} ms`;
    throw unavailable(reason);
  }

  private async load(env: DatabaseEnv): Promise<GeoDatabase> {
    const started = this.now();
    this.loadingSince = started;
    try {
      const record = await readRecord(env);
      const version = record.current;
      if (version.sha256 === this.damagedSha256) {
        fail(`version ${version.version} is current but its reads found damage; publish another version or roll back`);
      }
      const buffer = await readObject(env, version);
      // The digest is computed in chunks (identity.ts): Web Crypto's one-shot digest would copy the file.
      const identity = await identifyDatabase(buffer).catch((error: Error) => fail(`object ${version.key} is not a MaxMind DB: ${error.message}`));
      if (identity.sha256 !== version.sha256) {
        fail(`object ${version.key} has SHA-256 ${identity.sha256}, not the published ${version.sha256}: damaged`);
      }
      const database = new GeoDatabase(buffer);
      if (this.loadingSince === started) {
        this.loaded = { database, buffer, identity, version: version.version, sha256: identity.sha256, checkedAt: started };
        this.loadingSince = undefined;
        this.failure = undefined;
        this.damagedSha256 = undefined;
      }
      return database;
    } catch (error) {
      const reason = reasonOf(error);
      if (this.loadingSince === started) {
        this.loadingSince = undefined;
        this.failure = { at: this.now(), reason };
      }
      throw error instanceof DataUnavailableError ? error : unavailable(reason);
    }
  }

  /** The minute's check, in a request's `waitUntil`: switches when another version is current. */
  private async check(env: DatabaseEnv, seen: Loaded): Promise<void> {
    const started = this.now();
    this.checkingSince = started;
    try {
      const record = await readRecord(env);
      if (record.current.sha256 === seen.sha256 || this.loaded !== seen) return;
      // Verified before the database that answers is let go: a bad upload leaves the service as it was.
      await verifyObject(env, record.current);
      if (this.loaded !== seen) return;
      console.log(`geolocation data: switching from ${seen.version} to ${record.current.version}`);
      this.release(seen);
      await this.load(env);
    } catch (error) {
      console.error(`geolocation data: staying on ${this.loaded?.version ?? 'no version'}: ${reasonOf(error)}`);
    } finally {
      if (this.checkingSince === started) this.checkingSince = undefined;
    }
  }

  /** Drops the database and frees its bytes now: detaching the buffer does not wait for a collection. */
  private release(loaded: Loaded): void {
    if (this.loaded === loaded) this.loaded = undefined;
    (loaded.buffer as ArrayBuffer & { transfer?(length?: number): ArrayBuffer }).transfer?.(0);
  }
}

/** The current record, validated. */
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
async function openObject(env: DatabaseEnv, version: PublishedVersion): Promise<StoredObject> {
  const object = await env.GEO_DATA.get(version.key);
  if (object === null) fail(`R2 has no object ${version.key}, which ${CURRENT_RECORD_KEY} names as current`);
  if (object.size !== version.bytes) {
    await object.body.cancel();
    fail(`object ${version.key} holds ${object.size} bytes, not the published ${version.bytes}: truncated or replaced`);
  }
  return object;
}

/**
 * Reads the whole object with one request, its body read straight into one buffer of the object's
 * size (a BYOB reader fills it in place): about 80 ms for 59 MB locally, and no more memory than the
 * file (`arrayBuffer()` gathers chunks and copies them, doubling the peak).
 */
async function readObject(env: DatabaseEnv, version: PublishedVersion): Promise<ArrayBuffer> {
  const object = await openObject(env, version);
  const size = object.size;
  let buffer = new ArrayBuffer(size);
  let at = 0;
  const reader = object.body.getReader({ mode: 'byob' }) as ReadableStreamBYOBReader & {
    readAtLeast?<T extends ArrayBufferView>(minElements: number, view: T): Promise<{ done: boolean; value?: T | undefined }>;
  };
  while (at < size) {
    const view = new Uint8Array(buffer, at, size - at);
    // workerd's readAtLeast fills the view in as few turns as the stream allows; elsewhere, read.
    const { done, value } = await (reader.readAtLeast ? reader.readAtLeast(Math.min(size - at, READ_AT_LEAST), view) : reader.read(view));
    if (done || value === undefined) break;
    // The view's buffer was transferred to the stream and back: keep using the one it returned.
    buffer = value.buffer as ArrayBuffer;
    at += value.byteLength;
  }
  reader.releaseLock();
  if (at !== size) fail(`object ${version.key} ended after ${at} of its ${size} bytes`);
  return buffer;
}

/**
 * Streams the version's object through SHA-256 and compares with the published digest, keeping none
 * of it: the body is read into one reused 1 MiB buffer, so the check leaves no garbage of its own
 * beside the database that still answers.
 */
async function verifyObject(env: DatabaseEnv, version: PublishedVersion): Promise<void> {
  const object = await openObject(env, version);
  const digest = new crypto.DigestStream('SHA-256');
  const writer = digest.getWriter();
  const reader = object.body.getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(READ_AT_LEAST);
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read(new Uint8Array(buffer));
    if (done || value === undefined) break;
    await writer.write(value);
    total += value.byteLength;
    buffer = value.buffer as ArrayBuffer;
  }
  reader.releaseLock();
  await writer.close();
  const sha256 = hex(await digest.digest);
  if (total !== version.bytes) fail(`object ${version.key} ended after ${total} of its ${version.bytes} bytes`);
  if (sha256 !== version.sha256) fail(`object ${version.key} has SHA-256 ${sha256}, not the published ${version.sha256}: damaged`);
}

/** Why the database cannot be had: said in the log, never to clients. */
class LoadFailure extends Error {
  override readonly name = 'LoadFailure';
}

function fail(reason: string): never {
  throw new LoadFailure(reason);
}

function reasonOf(error: unknown): string {
  if (error instanceof DataUnavailableError) return error.message;
  return error instanceof LoadFailure ? error.message : `R2 read failed: ${error instanceof Error ? error.message : String(error)}`;
}

const slot = new DatabaseSlot();

/**
 * The database of this isolate (see {@link DatabaseSlot.get}): synchronous once loaded, so that a
 * lookup answers without a turn of the event loop. Pass the request's execution context: the check
 * for a new version runs in its `waitUntil`, off the request's path.
 *
 * @example const database = await loadDatabase(c.env, c.executionCtx);
 * @throws DataUnavailableError while no verified database can be had.
 */
export function loadDatabase(env: DatabaseEnv, ctx: BackgroundContext): GeoDatabase | Promise<GeoDatabase> {
  return slot.get(env, ctx);
}

/**
 * The identity of the database this isolate answers from (`identity.ts`), or undefined while it has
 * none. It never starts a load: await {@link loadDatabase} first where the data must be there.
 */
export function databaseIdentity(): DatabaseIdentity | undefined {
  return slot.identity;
}

/** Forgets this isolate's database (tests use it to start from a cold isolate). */
export function resetDatabaseForTests(): void {
  slot.reset();
}
