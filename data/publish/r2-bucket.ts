/**
 * @module A {@link VersionBucket} over an R2 binding (a Worker's `env.GEO_DATA`, or Miniflare's
 * `getR2Bucket` in Node): how the tests and benchmarks publish into the R2 they run against.
 */
import type { VersionBucket } from './record.ts';

/** The part of `R2Bucket` used. */
export interface R2Like {
  get(key: string): Promise<{ text(): Promise<string> } | null>;
  put(key: string, value: string | ArrayBuffer | Uint8Array): Promise<unknown>;
  delete(key: string): Promise<void>;
}

/**
 * Publishing steps over an R2 binding; bodies are the database's bytes.
 *
 * @example await publishTo(r2Bucket(env.GEO_DATA, 'GEO_DATA'), build, new Date(), console.log)
 */
export function r2Bucket(bucket: R2Like, name: string): VersionBucket<ArrayBuffer | Uint8Array> {
  return {
    name,
    getText: async (key) => (await bucket.get(key))?.text() ?? null,
    putText: async (key, text) => {
      await bucket.put(key, text);
    },
    putObject: async (key, body) => {
      await bucket.put(key, body);
    },
    delete: (key) => bucket.delete(key),
  };
}
