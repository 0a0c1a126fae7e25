/**
 * @module HTTP downloads of `data:update`: each bounded in time and size (the size checked before the
 * body is read, and again as it comes), with redirects followed here so that every hop is checked
 * (`destination.ts`) and credentials go only to the first URL's origin. Failures are said in words that
 * name what the operator can do, and name URLs by origin and path only.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkedLookup, hopRefusal, isLoopbackUrl, publicUrl, RefusedDestination } from './destination.ts';

/** A step of the update that failed; nothing was replaced. */
export class UpdateError extends Error {
  override readonly name = 'UpdateError';
}

/** What a download is for, in messages, and how it authenticates. */
export interface DownloadOptions {
  /** Says what is downloaded, e.g. `GeoLite2-City archive`. */
  readonly what: string;
  /** Headers to send; to the first URL's origin only (an `Authorization` never reaches a redirect's other origin). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The whole download, answer and body, must finish within this (ms). */
  readonly timeoutMs: number;
  /** Extra words for a 401 or 403 answer, e.g. which variables hold the credentials. */
  readonly onUnauthorized?: string;
  /** The largest body accepted, in bytes: a larger `Content-Length` is refused before reading, a longer body as soon as it is seen to be. */
  readonly maxBytes: number;
  /** The media types accepted (`Content-Type` without parameters; an answer without one passes); any without it. */
  readonly mediaTypes?: RegExp;
}

/** The most redirects a download follows. */
const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** An answer whose body is still to be read: its chunks, each counted against the size cap. */
export interface OpenDownload {
  /** The body, refused with an UpdateError once it is seen to hold more than `maxBytes`; leaving the loop early stops the download. */
  readonly body: AsyncIterable<Buffer>;
}

/** One GET, no redirect followed. */
function get(url: URL, headers: Readonly<Record<string, string>>, signal: AbortSignal, loopback: boolean): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers: { 'user-agent': 'ipgeo-data-update', ...headers }, signal, lookup: checkedLookup(loopback), agent: false }, resolve);
    sent.on('error', reject);
    sent.end();
  });
}

/**
 * GETs `url`, following up to {@link MAX_REDIRECTS} redirects, each checked before it is followed, and
 * returns the answer with its body unread.
 *
 * @throws UpdateError on a hop that is refused, a status other than 2xx (401, 403, 404 and 429 said in
 *   words), a media type or a stated size that `options` does not accept, a connection failure or the timeout.
 */
export async function openDownload(url: string, options: DownloadOptions): Promise<OpenDownload> {
  const first = URL.canParse(url) ? new URL(url) : undefined;
  if (first === undefined) throw new UpdateError(`${options.what}: not a URL`);
  const signal = AbortSignal.timeout(options.timeoutMs);
  const loopback = isLoopbackUrl(first);
  let at = first;
  try {
    for (let hop = 0; ; hop++) {
      const refused = hopRefusal(at, first);
      if (refused !== undefined) throw new UpdateError(`${options.what}: ${hop === 0 ? 'refused' : 'a redirect is refused'}: ${refused}`);
      const response = await get(at, at.origin === first.origin ? (options.headers ?? {}) : {}, signal, loopback);
      const status = response.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        response.resume();
        const location = response.headers.location;
        if (hop === MAX_REDIRECTS) throw new UpdateError(`${options.what}: more than ${MAX_REDIRECTS} redirects from ${publicUrl(first)}`);
        if (location === undefined || !URL.canParse(location, at.href))
          throw new UpdateError(`${options.what}: a redirect (${status}) from ${at.origin} names no URL`);
        at = new URL(location, at);
        continue;
      }
      if (status < 200 || status > 299) {
        response.resume();
        throw new UpdateError(`${options.what}: ${explain(status, response.headers['retry-after'], options)}`);
      }
      const mediaType = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      if (options.mediaTypes && mediaType !== '' && !options.mediaTypes.test(mediaType)) {
        response.destroy();
        throw new UpdateError(`${options.what}: the answer is ${mediaType}, not what was asked for`);
      }
      if (Number(response.headers['content-length'] ?? 0) > options.maxBytes) {
        response.destroy();
        throw tooLarge(options);
      }
      return { body: bounded(response, options, at, signal) };
    }
  } catch (error) {
    throw failure(error, options, at, signal);
  }
}

/** The body of `response`, its chunks counted against `maxBytes`; faults said as UpdateErrors. */
async function* bounded(response: IncomingMessage, options: DownloadOptions, at: URL, signal: AbortSignal): AsyncGenerator<Buffer> {
  let bytes = 0;
  try {
    for await (const chunk of response) {
      bytes += (chunk as Buffer).length;
      if (bytes > options.maxBytes) throw tooLarge(options);
      yield chunk as Buffer;
    }
  } catch (error) {
    throw failure(error, options, at, signal);
  } finally {
    // A reader that stops early (a refused line, the cap) leaves the rest undownloaded.
    response.destroy();
  }
}

/** GETs `url` as {@link openDownload} does and reads its body whole. */
export async function download(url: string, options: DownloadOptions): Promise<Buffer> {
  const { body } = await openDownload(url, options);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function tooLarge(options: DownloadOptions): UpdateError {
  return new UpdateError(`${options.what}: the answer is larger than ${options.maxBytes} bytes, the most accepted`);
}

/** An error of a download as an UpdateError naming the origin it was at. */
function failure(error: unknown, options: DownloadOptions, at: URL, signal: AbortSignal): UpdateError {
  if (error instanceof UpdateError) return error;
  if (signal.aborted) return new UpdateError(`${options.what}: no complete answer from ${at.origin} within ${Math.round(options.timeoutMs / 100) / 10} s`);
  if (error instanceof RefusedDestination) return new UpdateError(`${options.what}: refused: ${error.message}`);
  return new UpdateError(`${options.what}: could not download from ${at.origin}: ${(error as Error).message}`);
}

function explain(status: number, retryAfter: string | undefined, options: DownloadOptions): string {
  switch (status) {
    case 401:
      return `refused (401 Unauthorized)${options.onUnauthorized ? `: ${options.onUnauthorized}` : ''}`;
    case 403:
      return `refused (403 Forbidden): the account may not download this, or its download limit is reached${options.onUnauthorized ? ` (${options.onUnauthorized})` : ''}`;
    case 404:
      return 'not found (404): check the name';
    case 429:
      return `too many downloads (429): the download limit is reached${retryAfter ? `; try again after ${retryAfter} s` : '; try again later'}`;
    default:
      return `answered ${status}`;
  }
}
