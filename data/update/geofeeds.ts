/**
 * @module Published geofeeds for the corrections (`data:update --geofeed URL`, docs/operations.md,
 * "Corrections"): RFC 8805 files that networks publish about their own addresses, fetched over HTTPS
 * (RFC 8805, section 3.1), bounded in size and time, checked line by line as the build reads them, and
 * kept in the download cache with their SHA-256 and the date they were fetched.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FetchedGeofeed } from '../corrections/corrections.ts';
import { parseGeofeed } from '../corrections/geofeed.ts';
import { SourceError } from '../sources/source.ts';
import type { DownloadCache, StagedSource } from './cache.ts';
import { download, UpdateError } from './download.ts';

/** The largest geofeed accepted: 32 MiB, some hundred thousand lines, well above the largest published ones. */
const GEOFEED_MAX_BYTES = 32 * 1024 * 1024;

/** The name of a geofeed's file in its cache folder. */
const GEOFEED_FILE = 'geofeed.csv';

/**
 * The media types a geofeed may be served as: CSV, plain text, or bytes without a stated kind (an
 * answer without `Content-Type` passes too). An HTML page (a login or error page answered with 200)
 * or JSON is refused before it is read.
 */
const GEOFEED_MEDIA_TYPES = /^(text\/(csv|plain)|application\/(csv|octet-stream))$/;

/** Hosts a geofeed may be fetched from over plain HTTP: this machine only (a local mirror, the tests). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A geofeed in the cache: where the build reads it, and its URL and date for the manifest. */
export interface StagedGeofeed extends StagedSource {
  readonly path: string;
  readonly fetched: FetchedGeofeed;
}

/**
 * Fetches a geofeed into the staging folder, or finds the same bytes in the cache (whose date is then
 * kept: it is when this content was first fetched).
 *
 * @param maxBytes the largest answer accepted (default {@link GEOFEED_MAX_BYTES}).
 * @throws UpdateError for a URL that is not HTTPS (plain HTTP only to this machine), a failed or late
 *   download, an answer that is not CSV or is too large, or a file the build would refuse (naming the
 *   line and the reason), or one without any prefix.
 */
export async function fetchGeofeed(
  url: string,
  cache: DownloadCache,
  timeoutMs: number,
  log: (line: string) => void,
  maxBytes = GEOFEED_MAX_BYTES,
): Promise<StagedGeofeed> {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed === undefined || !(parsed.protocol === 'https:' || (parsed.protocol === 'http:' && LOOPBACK.has(parsed.hostname)))) {
    throw new UpdateError(`--geofeed ${url}: not an https URL (RFC 8805, section 3.1: a feed's integrity depends on it)`);
  }
  const what = `geofeed ${url}`;
  const body = await download(url, { what, timeoutMs, maxBytes, mediaTypes: GEOFEED_MEDIA_TYPES });
  let prefixes: number;
  try {
    prefixes = parseGeofeed(body, `--geofeed ${url}`).entries.length;
  } catch (error) {
    if (error instanceof SourceError) throw new UpdateError(error.message);
    throw error;
  }
  if (prefixes === 0) throw new UpdateError(`${what}: the answer holds no prefix`);
  const sha256 = createHash('sha256').update(body).digest('hex');
  // One folder per URL: the same feed is found again whatever else the update fetches.
  const id = `geofeeds/${createHash('sha256').update(url).digest('hex').slice(0, 16)}`;
  const cached = cache.cached(id);
  const cachedFile = join(cache.dirOf(id), GEOFEED_FILE);
  if (cached && existsSync(cachedFile) && readFileSync(cachedFile).equals(body)) {
    log(`${what}: ${prefixes} prefixes, as cached since ${cached.fetchedAt}`);
    const staged = cache.unchanged(id, cached);
    return { ...staged, path: join(staged.dir, GEOFEED_FILE), fetched: { url, fetchedAt: cached.fetchedAt } };
  }
  const fetchedAt = new Date().toISOString();
  log(`${what}: ${prefixes} prefixes, SHA-256 ${sha256}`);
  const staged = cache.stage(id, new Map([[GEOFEED_FILE, body]]), { version: `${prefixes} prefixes, SHA-256 ${sha256}`, url, fetchedAt });
  return { ...staged, path: join(staged.dir, GEOFEED_FILE), fetched: { url, fetchedAt } };
}
