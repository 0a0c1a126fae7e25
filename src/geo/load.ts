/**
 * @module Loads the compiled database from R2 once per isolate (one in-flight load shared by
 * concurrent first requests) and keeps it in memory; see `database.ts` for reading it.
 *
 * A failed load is not cached: the next request after {@link RETRY_AFTER_SECONDS} tries again, so the
 * service recovers by itself once the object is readable, without hammering R2 meanwhile.
 */
import { DataUnavailableError, GeoDatabase, RETRY_AFTER_SECONDS, unavailable } from './database.ts';
import { type DatabaseIdentity, identifyDatabase } from './identity.ts';

/**
 * The R2 binding and object key the database is read from. Only the part of `R2Bucket` that the load
 * uses is named, so that this module type-checks in Node too (the benchmarks and the build read it).
 */
export interface DatabaseEnv {
  readonly GEO_DATA: { get(key: string): Promise<{ readonly size: number; readonly body: ReadableStream<Uint8Array> } | null> };
  readonly DATA_OBJECT_KEY: string;
}

/** Bytes each turn of the read waits for at least (workerd's `readAtLeast`): fewer turns, no copies. */
const READ_AT_LEAST = 1 << 20;

/**
 * Reads the whole object with one request, its body read straight into one buffer of the object's
 * size (a BYOB reader fills it in place). Measured against the local R2 store (59 MB, first lookup of
 * a fresh process): `arrayBuffer()` took 117 ms and left the process 125 MB larger, as it gathers the
 * chunks and then copies them into one buffer; this takes about 80 ms and adds the file's size.
 * Concurrent ranged reads were slower (133 ms for four, 165 ms for one).
 */
async function readObject(env: DatabaseEnv): Promise<ArrayBuffer> {
  const key = env.DATA_OBJECT_KEY;
  const object = await env.GEO_DATA.get(key);
  if (object === null) throw unavailable(`R2 has no object ${key}; upload it (README, "Data")`);
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
  if (at !== size) throw unavailable(`R2 object ${key} ended after ${at} of its ${size} bytes`);
  return buffer;
}

let loaded: GeoDatabase | undefined;
/** The identity of `loaded` (version, SHA-256, sources), computed once when it is loaded. */
let loadedIdentity: DatabaseIdentity | undefined;
let loading: Promise<GeoDatabase> | undefined;
let failedAt = Number.NEGATIVE_INFINITY;

/**
 * The database of this isolate, loading it from R2 on first use.
 *
 * @throws DataUnavailableError when the object is missing, unreadable or not a compiled
 *   database, or while a failed load is cooling down.
 */
export function loadDatabase(env: DatabaseEnv): GeoDatabase | Promise<GeoDatabase> {
  if (loaded) return loaded;
  if (loading) return loading;
  if (Date.now() - failedAt < RETRY_AFTER_SECONDS * 1000) {
    return Promise.reject(unavailable('a recent load failed; waiting before the next attempt'));
  }
  loading = (async () => {
    let bytes: ArrayBuffer;
    try {
      bytes = await readObject(env);
    } catch (error) {
      if (error instanceof DataUnavailableError) throw error;
      throw unavailable(`R2 read of ${env.DATA_OBJECT_KEY} failed: ${(error as Error).message}`);
    }
    const database = new GeoDatabase(bytes);
    return { database, identity: await identifyDatabase(bytes) };
  })().then(
    ({ database, identity }) => {
      loaded = database;
      loadedIdentity = identity;
      loading = undefined;
      return database;
    },
    (error: unknown) => {
      loading = undefined;
      failedAt = Date.now();
      throw error instanceof DataUnavailableError ? error : unavailable(String(error));
    },
  );
  return loading;
}

/**
 * The identity of the database this isolate has loaded (`identity.ts`), or undefined before its first
 * load. It never starts a load: await {@link loadDatabase} first where the data must be there.
 */
export function databaseIdentity(): DatabaseIdentity | undefined {
  return loadedIdentity;
}

/** Forgets the loaded database (tests use it to exercise loading and failures). */
export function resetDatabaseForTests(): void {
  loaded = undefined;
  loadedIdentity = undefined;
  loading = undefined;
  failedAt = Number.NEGATIVE_INFINITY;
}
