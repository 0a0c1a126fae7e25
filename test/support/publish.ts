/**
 * @module Publishes databases into the test's R2 binding exactly as `npm run data:publish` does (the
 * same steps of `data/publish/record.ts`, over the binding instead of wrangler).
 */
import { env } from 'cloudflare:workers';
import { r2Bucket } from '../../data/publish/r2-bucket.ts';
import { publishTo, versionOf } from '../../data/publish/record.ts';
import type { CurrentRecord } from '../../src/geo/published.ts';
import { CURRENT_RECORD_KEY, CurrentRecordSchema } from '../../src/geo/published.ts';
import { CACHE_NAME, cacheKey } from '../../src/geo/stored.ts';
import { repoFile } from './repo.ts';

/** SHA-256 of bytes, lower-case hex. */
async function sha256Of(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Publishes `bytes` as `version` into `env.GEO_DATA` and makes it current.
 *
 * @param at the publishing instant (versions expire 30 days after they stop being current).
 */
export async function publish(bytes: ArrayBuffer | Uint8Array, version: string, at = new Date()): Promise<CurrentRecord> {
  const build = { version, bytes: bytes.byteLength, sha256: await sha256Of(bytes), body: bytes };
  return publishTo(r2Bucket(env.GEO_DATA, 'GEO_DATA'), build, at, () => {});
}

/**
 * A compiled database and its version as data:publish names it: `data/out/` by default, or the small
 * build of MaxMind's test databases in `data/out/small/` (`test/support/global-setup.ts`).
 */
export async function compiledBuild(dir = 'data/out'): Promise<{ bytes: ArrayBuffer; version: string }> {
  const bytes = await repoFile(`${dir}/ipgeo.mmdb`);
  const manifest = JSON.parse(new TextDecoder().decode(await repoFile(`${dir}/ipgeo.manifest.json`)));
  return { bytes, version: versionOf(manifest) };
}

/** Publishes the compiled database of `data/out/` as current (the state every Worker test starts from). */
export async function publishCompiled(): Promise<CurrentRecord> {
  const { bytes, version } = await compiledBuild();
  return publish(bytes, version);
}

/**
 * Deletes from the Workers cache (`load.ts`) the copies of every version the bucket's current record
 * lists, so that a case reads R2 as a cold isolate of a location with an empty cache would.
 */
export async function forgetCachedCopies(): Promise<void> {
  const object = await env.GEO_DATA.get(CURRENT_RECORD_KEY);
  if (object === null) return;
  const record = CurrentRecordSchema.parse(JSON.parse(await object.text()));
  const cache = await caches.open(CACHE_NAME);
  for (const version of record.versions) await cache.delete(cacheKey(version));
}

/** A sharded build as its manifest lists it (`data/build.ts`), with each shard's bytes. */
export interface ShardedBuild {
  readonly version: string;
  readonly shards: readonly { readonly first: string; readonly last: string; readonly bytes: ArrayBuffer }[];
}

/** The sharded build in `dir` (its manifest's `shards`, read through the `REPO_FILES` binding). */
export async function shardedBuild(dir: string): Promise<ShardedBuild> {
  const manifest = JSON.parse(new TextDecoder().decode(await repoFile(`${dir}/ipgeo.manifest.json`))) as {
    version: string;
    shards: { file: string; first: string; last: string }[];
  };
  const shards = await Promise.all(manifest.shards.map(async ({ file, first, last }) => ({ first, last, bytes: await repoFile(`${dir}/${file}`) })));
  return { version: manifest.version, shards };
}

/**
 * Publishes a sharded build as `version` into `env.GEO_DATA` as the design of the bucket has it: every
 * shard's object `ipgeo-<version>.shard-<k>-of-<N>.mmdb` first, then the current record naming them
 * (`shards`), so that the set becomes current at once. Versions published before stay listed.
 */
export async function publishSharded(build: ShardedBuild, version = build.version, at = new Date()): Promise<CurrentRecord> {
  const count = build.shards.length;
  const shards = await Promise.all(
    build.shards.map(async ({ first, last, bytes }, index) => {
      const key = `ipgeo-${version}.shard-${index}-of-${count}.mmdb`;
      await env.GEO_DATA.put(key, bytes);
      return { key, first, last, bytes: bytes.byteLength, sha256: await sha256Of(bytes) };
    }),
  );
  const previous = await env.GEO_DATA.get(CURRENT_RECORD_KEY);
  const before = previous === null ? undefined : CurrentRecordSchema.parse(JSON.parse(await previous.text()));
  const [head] = shards as [(typeof shards)[number]];
  const entry = { version, key: head.key, bytes: head.bytes, sha256: head.sha256, publishedAt: at.toISOString(), retiredAt: null, shards };
  const versions = (before?.versions ?? []).filter((v) => v.version !== version).map((v) => (v.retiredAt === null ? { ...v, retiredAt: at.toISOString() } : v));
  const record: CurrentRecord = { v: 1, current: entry, versions: [...versions, entry] };
  await env.GEO_DATA.put(CURRENT_RECORD_KEY, JSON.stringify(record));
  return record;
}
