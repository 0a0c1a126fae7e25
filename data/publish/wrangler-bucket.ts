/**
 * @module A {@link VersionBucket} of wrangler's: the local R2 of `wrangler dev` (`.wrangler/state`, or
 * `--persist-to`) through wrangler's platform proxy, one workerd for the bucket's whole run, keeping its
 * data where `wrangler dev` and `wrangler r2 object --local` do; or with `remote` a deployment's real
 * bucket, through `wrangler r2 object get|put|delete --remote` (wrangler's own login or
 * `CLOUDFLARE_API_TOKEN`/`CLOUDFLARE_ACCOUNT_ID`).
 */
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { PublishError, type VersionBucket } from './record.ts';

/** Where a wrangler bucket is. */
export interface WranglerTarget {
  /** The wrangler environment (`free`, `de`, …): selects the deployment's configuration. */
  readonly environment: string;
  /** The R2 bucket's name, from the environment's `GEO_DATA` binding. */
  readonly bucket: string;
  /** Cloudflare's R2 rather than the local one of `wrangler dev`. */
  readonly remote: boolean;
  /** The local state directory, when not wrangler's default `.wrangler/state`. */
  readonly persistTo?: string;
}

/** A bucket of wrangler's: the publishing steps, and an object fetched into a file (`data:diff` reads a deployment's current version so). */
export interface WranglerBucket extends VersionBucket<string> {
  /** Writes the object `key` into `file`. @throws PublishError when it is missing or cannot be read. */
  getFile(key: string, file: string): Promise<void>;
  /**
   * Stops the local bucket's workerd, started by its first operation (nothing to stop for a remote
   * bucket). Whoever opened the bucket calls it once done: a running workerd keeps Node's process alive,
   * and holds the state that `wrangler dev` is about to serve.
   */
  dispose(): Promise<void>;
}

/** The objects' content types: the current record is JSON; a database (or ASN object) is bytes. */
const JSON_TYPE = 'application/json';
const BYTES_TYPE = 'application/octet-stream';

/**
 * The bucket of `target`; bodies are file paths. A local bucket starts one workerd at its first
 * operation and keeps it until {@link WranglerBucket.dispose}; a remote one runs wrangler once per
 * operation. Neither blocks the caller's event loop (`bench:switch` keeps its load going meanwhile).
 *
 * @throws PublishError (from each operation) naming the bucket, when R2 or wrangler fails.
 */
export function wranglerBucket(target: WranglerTarget): WranglerBucket {
  return target.remote ? remoteBucket(target) : localBucket(target.bucket, target.persistTo);
}

/**
 * Miniflare's mark of a stream's length in bytes (`Symbol.for`, so miniflare's own symbol): its proxy
 * passes a stream so marked on with its length, which R2's `put` requires of a stream; a file is thus
 * streamed rather than read whole and sent as base64. Without the mark, the put fails ("must have a
 * known length"), which publish.test.ts would show.
 */
const STREAM_LENGTH = Symbol.for('miniflare.kStreamLength');

/** The part of an R2 binding that a local bucket uses. */
interface LocalR2 {
  get(key: string): Promise<{ text(): Promise<string>; readonly body: ReadableStream<Uint8Array> } | null>;
  put(key: string, value: string | ReadableStream, options: { httpMetadata: { contentType: string } }): Promise<unknown>;
  delete(key: string): Promise<void>;
}

/** A platform proxy holding the bucket alone, and how to stop it. */
interface Proxy {
  readonly r2: LocalR2;
  dispose(): Promise<void>;
}

function localBucket(bucket: string, persistTo: string | undefined): WranglerBucket {
  let proxy: Promise<Proxy> | undefined;
  /** Runs `step` on the bucket, starting the proxy the first time; any failure becomes a PublishError naming the bucket. */
  const attempt = async <T>(what: string, step: (r2: LocalR2) => Promise<T>): Promise<T> => {
    try {
      proxy ??= startProxy(bucket, persistTo);
      return await step((await proxy).r2);
    } catch (error) {
      if (error instanceof PublishError) throw error;
      throw new PublishError(`${bucket}: local R2 ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  return {
    name: `${bucket} (local)`,
    getText: (key) => attempt(`get ${key}`, async (r2) => (await (await r2.get(key))?.text()) ?? null),
    getFile: (key, file) =>
      attempt(`get ${key}`, async (r2) => {
        const object = await r2.get(key);
        if (object === null) throw new PublishError(`${bucket}: local R2 get ${key} failed: the key does not exist`);
        await pipeline(Readable.fromWeb(object.body), createWriteStream(file));
      }),
    putText: (key, text) =>
      attempt(`put ${key}`, async (r2) => {
        await r2.put(key, text, { httpMetadata: { contentType: JSON_TYPE } });
      }),
    putObject: (key, file) =>
      attempt(`put ${key}`, async (r2) => {
        const { size } = await stat(file);
        const body = Object.assign(Readable.toWeb(createReadStream(file)), { [STREAM_LENGTH]: size });
        await r2.put(key, body, { httpMetadata: { contentType: BYTES_TYPE } });
      }),
    delete: (key) => attempt(`delete ${key}`, (r2) => r2.delete(key)),
    async dispose() {
      const started = proxy;
      proxy = undefined;
      // A proxy that failed to start has nothing to stop; its operation said why.
      await (await started?.catch(() => undefined))?.dispose();
    },
  };
}

/**
 * Starts wrangler's platform proxy on a configuration of the bucket's binding alone: local R2 data is
 * kept by bucket name under `<persist-to>/v3`, where `wrangler dev --persist-to` and
 * `wrangler r2 object --local --persist-to` keep it.
 */
async function startProxy(bucket: string, persistTo: string | undefined): Promise<Proxy> {
  const { getPlatformProxy } = await import('wrangler');
  const directory = await mkdtemp(join(tmpdir(), 'ipgeo-r2-'));
  const removeDirectory = () => rm(directory, { recursive: true, force: true });
  try {
    const configPath = join(directory, 'wrangler.json');
    await writeFile(
      configPath,
      JSON.stringify({ name: 'ipgeo-r2', compatibility_date: '2026-11-01', r2_buckets: [{ binding: 'BUCKET', bucket_name: bucket }] }),
    );
    const path = join(resolve(persistTo ?? '.wrangler/state'), 'v3');
    const platform = await getPlatformProxy<{ BUCKET: LocalR2 }>({ configPath, persist: { path } });
    return {
      r2: platform.env.BUCKET,
      dispose: async () => {
        await platform.dispose();
        await removeDirectory();
      },
    };
  } catch (error) {
    await removeDirectory();
    throw error;
  }
}

function remoteBucket(target: WranglerTarget): WranglerBucket {
  const where = ['--remote', '--env', target.environment];
  const run = (args: string[], input?: string) =>
    new Promise<{ ok: boolean; stdout: string; stderr: string }>((resolve) => {
      const child = execFile('npx', ['wrangler', 'r2', 'object', ...args, ...where], { encoding: 'utf8', maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
        // An exit status other than 0 is in stderr; a run that could not start or overflowed only in the error.
        const why = error && typeof error.code !== 'number' ? error.message : '';
        resolve({ ok: error === null, stdout, stderr: `${stderr}${why}` });
      });
      child.stdin?.end(input);
    });
  const path = (key: string) => `${target.bucket}/${key}`;
  const failed = (what: string, stderr: string) => new PublishError(`${target.bucket}: wrangler r2 object ${what} failed: ${lastError(stderr)}`);
  return {
    name: `${target.bucket} (remote)`,
    async getText(key) {
      const result = await run(['get', path(key), '--pipe']);
      if (result.ok) return result.stdout;
      if (/specified key does not exist|NoSuchKey/i.test(result.stderr)) return null;
      throw failed(`get ${key}`, result.stderr);
    },
    async getFile(key, file) {
      const result = await run(['get', path(key), '--file', file]);
      if (!result.ok) throw failed(`get ${key}`, result.stderr);
    },
    async putText(key, text) {
      const result = await run(['put', path(key), '--pipe', '--content-type', JSON_TYPE], text);
      if (!result.ok) throw failed(`put ${key}`, result.stderr);
    },
    async putObject(key, file) {
      const result = await run(['put', path(key), '--file', file, '--content-type', BYTES_TYPE]);
      if (!result.ok) throw failed(`put ${key}`, result.stderr);
    },
    async delete(key) {
      const result = await run(['delete', path(key)]);
      if (!result.ok) throw failed(`delete ${key}`, result.stderr);
    },
    dispose: async () => {},
  };
}

/** Terminal colour codes (ESC [ … m). */
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** Wrangler's own words, without its colours, log-file hints and npm's warnings. */
function lastError(stderr: string): string {
  const lines = stderr
    .replace(ANSI_COLOUR, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('npm warn') && !line.includes('Logs were written'));
  return lines.find((line) => line.includes('ERROR')) ?? lines.at(-1) ?? 'no message';
}
