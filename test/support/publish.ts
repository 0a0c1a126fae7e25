/**
 * @module Publishes databases into the test's R2 binding exactly as `npm run data:publish` does (the
 * same steps of `data/publish/record.ts`, over the binding instead of wrangler).
 */
import { env } from 'cloudflare:workers';
import type { AsnObjectInfo } from '../../data/asn/object.ts';
import type { PublicationAsn } from '../../data/publish/asn-object.ts';
import { r2Bucket } from '../../data/publish/r2-bucket.ts';
import { publishTo, versionOf, wholeFilePublication } from '../../data/publish/record.ts';
import { CACHE_NAME, cacheKey } from '../../src/geo/bucket.ts';
import type { CurrentRecord } from '../../src/geo/published.ts';
import { CURRENT_RECORD_KEY, CurrentRecordSchema, shardObjectKey } from '../../src/geo/published.ts';
import { repoFile } from './repo.ts';

/** SHA-256 of bytes, lower-case hex. */
async function sha256Of(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Publishes `bytes` as `version` into an R2 binding (`env.GEO_DATA` by default) and makes it current.
 *
 * @param at the publishing instant (versions expire 30 days after they stop being current).
 * @param to the binding and its name (for messages).
 * @param asn the version's ASN object, if it is to have one ({@link compiledBuild}'s).
 */
export async function publish(
  bytes: ArrayBuffer | Uint8Array,
  version: string,
  at = new Date(),
  to: { bucket: R2Bucket; name: string } = { bucket: env.GEO_DATA, name: 'GEO_DATA' },
  asn?: PublicationAsn<ArrayBuffer | Uint8Array>,
): Promise<CurrentRecord> {
  const build = { ...wholeFilePublication(version, { bytes: bytes.byteLength, sha256: await sha256Of(bytes), body: bytes }), asn };
  return publishTo(r2Bucket(to.bucket, to.name), build, at, () => {});
}

/** The ASN object that the manifest of the build in `dir` names, if any, ready to publish. */
async function asnObjectOf(dir: string, info: AsnObjectInfo | undefined): Promise<PublicationAsn<ArrayBuffer> | undefined> {
  if (info === undefined) return undefined;
  const { bytes, sha256, indexBytes, indexSha256, blockBytes, blocks } = info;
  return { bytes, sha256, indexBytes, indexSha256, blockBytes, blocks, body: await repoFile(`${dir}/${info.file}`) };
}

/** The ASN object of the build in `dir` (`data/out/` by default), ready to publish with {@link publish}. */
export async function compiledAsnObject(dir = 'data/out'): Promise<PublicationAsn<ArrayBuffer>> {
  const manifest = JSON.parse(new TextDecoder().decode(await repoFile(`${dir}/ipgeo.manifest.json`))) as { asn?: AsnObjectInfo };
  const asn = await asnObjectOf(dir, manifest.asn);
  if (asn === undefined) throw new Error(`the build in ${dir} has no ASN object: run npm run data:build`);
  return asn;
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

/**
 * The compiled database of `data/out/`, read once per workerd: the Worker projects run their files one
 * after another in one workerd (`test/support/workers-setup.ts`), whose global object outlives the
 * modules that each file evaluates anew, and the file does not change during a run.
 */
const COMPILED = Symbol.for('ipgeo.test.compiled-build');

/** Publishes the compiled database of `data/out/` as current (the state every Worker test starts from). */
export async function publishCompiled(): Promise<CurrentRecord> {
  const kept = globalThis as { [COMPILED]?: { bytes: ArrayBuffer; version: string } };
  kept[COMPILED] ??= await compiledBuild();
  const { bytes, version } = kept[COMPILED];
  // A copy, so that nothing the upload does to its body can reach the next file's.
  return publish(bytes.slice(0), version);
}

/**
 * Deletes from the Workers cache (`bucket.ts`) the copies of every version the bucket's current record
 * lists, so that a case reads R2 as a cold isolate of a location with an empty cache would.
 */
export async function forgetCachedCopies(): Promise<void> {
  const object = await env.GEO_DATA.get(CURRENT_RECORD_KEY);
  if (object === null) return;
  const record = CurrentRecordSchema.parse(JSON.parse(await object.text()));
  const cache = await caches.open(CACHE_NAME);
  for (const version of record.versions) for (const shard of version.shards) await cache.delete(cacheKey(shard));
}

/** A sharded build as its manifest lists it (`data/output.ts`), with each shard's bytes, and its ASN object. */
export interface ShardedBuild {
  readonly version: string;
  readonly shards: readonly { readonly first: string; readonly last: string; readonly bytes: ArrayBuffer }[];
  readonly asn?: PublicationAsn<ArrayBuffer> | undefined;
}

/** The sharded build in `dir` (its manifest's `shards` and `asn`, read through the `REPO_FILES` binding). */
export async function shardedBuild(dir: string): Promise<ShardedBuild> {
  const manifest = JSON.parse(new TextDecoder().decode(await repoFile(`${dir}/ipgeo.manifest.json`))) as {
    version: string;
    shards: { file: string; first: string; last: string }[];
    asn?: AsnObjectInfo;
  };
  const shards = await Promise.all(manifest.shards.map(async ({ file, first, last }) => ({ first, last, bytes: await repoFile(`${dir}/${file}`) })));
  return { version: manifest.version, shards, asn: await asnObjectOf(dir, manifest.asn) };
}

/**
 * Publishes a sharded build as `version` into `env.GEO_DATA` as `data:publish` does (`data/publish/record.ts`):
 * every shard's object first, then the current record naming them, so that the set becomes current at once.
 */
export async function publishSharded(build: ShardedBuild, version = build.version, at = new Date()): Promise<CurrentRecord> {
  const shards = await Promise.all(
    build.shards.map(async ({ first, last, bytes }) => ({ first, last, bytes: bytes.byteLength, sha256: await sha256Of(bytes), body: bytes })),
  );
  return publishTo(r2Bucket(env.GEO_DATA, 'GEO_DATA'), { version, shards, asn: build.asn }, at, () => {});
}

/**
 * Publishes `build` as `version` as {@link publishSharded} does, then replaces shard `index`'s object with
 * 1,000 zero bytes, so that its size and SHA-256 are no longer the published ones (a damaged upload).
 */
export async function publishWithDamagedShard(build: ShardedBuild, version: string, index: number): Promise<void> {
  await publishSharded(build, version);
  await env.GEO_DATA.put(shardObjectKey(version, index, build.shards.length), new Uint8Array(1000));
}

/**
 * The build `small` with its metadata's `build_epoch` moved by `delta` (its last byte, modulo 256): a
 * valid database of another SHA-256, so another version. The Workers cache is shared by the test files
 * running at once, so each file takes deltas of its own.
 *
 * @throws Error when the metadata has no `build_epoch`.
 */
export function epochVariant(small: Uint8Array, delta: number): Uint8Array {
  const bytes = small.slice();
  const key = new TextEncoder().encode('build_epoch');
  for (let at = bytes.length - key.length - 1; at >= 0; at--) {
    if (key.every((byte, i) => bytes[at + i] === byte)) {
      // The value follows the key: a control byte (and, for an extended type, a type byte), then its bytes.
      const control = bytes[at + key.length] as number;
      const last = at + key.length + (control >> 5 === 0 ? 2 : 1) + (control & 0x1f) - 1;
      bytes[last] = ((bytes[last] as number) + delta) & 0xff;
      return bytes;
    }
  }
  throw new Error('build_epoch not found in the metadata');
}
