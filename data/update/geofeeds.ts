/**
 * @module Published geofeeds for the corrections (`data:update --geofeed URL`, docs/operations.md,
 * "Corrections"): RFC 8805 files that networks publish about their own addresses, fetched over HTTPS
 * (RFC 8805, section 3.1), bounded in size and time, checked line by line as they stream in, each
 * limited to the prefixes the operator lists for it (`URL#prefixes=…`), and kept in the download cache
 * with their SHA-256 and the date they were fetched. A feed is named by its origin and path only.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FetchedGeofeed } from '../corrections/corrections.ts';
import { readGeofeed } from '../corrections/geofeed.ts';
import { networkText, parseNetwork } from '../mmdb/network.ts';
import { SourceError } from '../sources/source.ts';
import type { DownloadCache, StagedSource } from './cache.ts';
import { publicUrl } from './destination.ts';
import { openDownload, UpdateError } from './download.ts';

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

/** A geofeed as the operator gives it: its URL, and the prefixes it may correct (`#prefixes=P,P`). */
export interface GeofeedSpec {
  /** The URL fetched, without the fragment. */
  readonly url: string;
  /** CIDR text, canonical; absent when the feed is not limited so (the width limits apply then). */
  readonly allowed?: readonly string[];
}

/**
 * Reads `URL` or `URL#prefixes=P,P…` (the fragment is never sent: it is the operator's, not the publisher's).
 *
 * @throws UpdateError when the URL does not parse, the fragment is another, or a prefix is not CIDR.
 */
export function geofeedSpec(text: string): GeofeedSpec {
  const hash = text.indexOf('#');
  const url = hash < 0 ? text : text.slice(0, hash);
  if (!URL.canParse(url)) throw new UpdateError(`--geofeed ${publicUrl(url)}: not a URL`);
  if (hash < 0) return { url };
  const fragment = text.slice(hash + 1);
  if (!fragment.startsWith('prefixes=')) throw new UpdateError(`--geofeed ${publicUrl(url)}: after # only prefixes=P,P… (the prefixes it may correct)`);
  const allowed = fragment
    .slice('prefixes='.length)
    .split(',')
    .filter(Boolean)
    .map((prefix) => {
      try {
        return networkText(parseNetwork(prefix));
      } catch {
        throw new UpdateError(`--geofeed ${publicUrl(url)}: ${JSON.stringify(prefix)} in #prefixes= is not a CIDR network`);
      }
    });
  if (allowed.length === 0) throw new UpdateError(`--geofeed ${publicUrl(url)}: #prefixes= names no prefix`);
  return { url, allowed };
}

/** A geofeed in the cache: where the build reads it, and its URL, date and allowed prefixes for the build and the manifest. */
export interface StagedGeofeed extends StagedSource {
  readonly path: string;
  readonly fetched: FetchedGeofeed;
}

/**
 * Fetches a geofeed into the staging folder, or finds the same bytes in the cache (whose date is then
 * kept: it is when this content was first fetched).
 *
 * @param maxBytes the largest answer accepted (default {@link GEOFEED_MAX_BYTES}).
 * @throws UpdateError for a URL or a hop that is refused (`destination.ts`), a failed or late download,
 *   an answer that is not CSV or is too large, a line the build would refuse (naming the line and the
 *   reason), or a feed without any prefix.
 */
export async function fetchGeofeed(
  spec: GeofeedSpec,
  cache: DownloadCache,
  timeoutMs: number,
  log: (line: string) => void,
  maxBytes = GEOFEED_MAX_BYTES,
): Promise<StagedGeofeed> {
  const shown = publicUrl(spec.url);
  const what = `geofeed ${shown}`;
  const policy = { fetched: true, ...(spec.allowed ? { allowed: spec.allowed.map((prefix) => parseNetwork(prefix)) } : {}) };
  const { body } = await openDownload(spec.url, { what, timeoutMs, maxBytes, mediaTypes: GEOFEED_MEDIA_TYPES });
  let read: Awaited<ReturnType<typeof readGeofeed>>;
  try {
    read = await readGeofeed(body, `--geofeed ${shown}`, policy);
  } catch (error) {
    if (error instanceof SourceError) throw new UpdateError(error.message);
    throw error;
  }
  const { bytes, prefixes } = read;
  if (prefixes === 0) throw new UpdateError(`${what}: the answer holds no prefix`);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // One folder per URL (with its query): the same feed is found again whatever else the update fetches.
  const id = `geofeeds/${createHash('sha256').update(spec.url).digest('hex').slice(0, 16)}`;
  const cached = cache.cached(id);
  const cachedFile = join(cache.dirOf(id), GEOFEED_FILE);
  const fetched = (fetchedAt: string): FetchedGeofeed => ({ url: shown, fetchedAt, ...(spec.allowed ? { allowed: spec.allowed } : {}) });
  if (cached && readFileSync(cachedFile).equals(bytes)) {
    log(`${what}: ${prefixes} prefixes, as cached since ${cached.fetchedAt}`);
    const staged = cache.unchanged(id, cached);
    return { ...staged, path: join(staged.dir, GEOFEED_FILE), fetched: fetched(cached.fetchedAt) };
  }
  const fetchedAt = new Date().toISOString();
  log(`${what}: ${prefixes} prefixes, SHA-256 ${sha256}`);
  const staged = cache.stage(id, new Map([[GEOFEED_FILE, bytes]]), { version: `${prefixes} prefixes, SHA-256 ${sha256}`, url: shown, fetchedAt });
  return { ...staged, path: join(staged.dir, GEOFEED_FILE), fetched: fetched(fetchedAt) };
}
