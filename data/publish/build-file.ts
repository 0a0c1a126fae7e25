/**
 * @module A build on disk as a {@link Publication}: the database file, its SHA-256, and the version its
 * manifest (beside it) names. Used by `data:publish` and by the benchmarks, which seed Miniflare's R2.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { CurrentRecord } from '../../src/geo/published.ts';
import { type R2Like, r2Bucket } from './r2-bucket.ts';
import { type Publication, PublishError, publishTo, versionOf } from './record.ts';

/**
 * Reads a build: `file` and the manifest beside it (`ipgeo.mmdb` → `ipgeo.manifest.json`).
 *
 * @throws PublishError when either is missing or the file is not the one its manifest describes.
 */
export function readBuildFile(file: string): Publication<Buffer> {
  const manifestFile = file.replace(/\.mmdb$/, '.manifest.json');
  if (!existsSync(file) || !existsSync(manifestFile)) throw new PublishError(`${file} or its manifest ${manifestFile} is missing; run npm run data:build`);
  const bytes = readFileSync(file);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { version?: string; builtAt: string; output: { sha256: string } };
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== manifest.output.sha256) {
    throw new PublishError(`${file} is not the file its manifest describes (SHA-256 ${sha256}, manifest ${manifest.output.sha256})`);
  }
  return { version: versionOf(manifest), bytes: bytes.length, sha256, body: bytes };
}

/** Publishes the build in `file` into an R2 binding (Miniflare's, in Node) as current. */
export function publishBuildFile(bucket: R2Like, file: string, name = 'GEO_DATA'): Promise<CurrentRecord> {
  return publishTo(r2Bucket(bucket, name), readBuildFile(file), new Date(), () => {});
}
