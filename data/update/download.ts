/**
 * @module HTTP downloads of `data:update`: bounded in time, following redirects, with failures said in
 * words that name what the operator can do.
 */

/** A step of the update that failed; nothing was replaced. */
export class UpdateError extends Error {
  override readonly name = 'UpdateError';
}

/** What a download is for, in messages, and how it authenticates. */
export interface DownloadOptions {
  /** Says what is downloaded, e.g. `GeoLite2-City archive`. */
  readonly what: string;
  /** Headers to send (an `Authorization` header is dropped by fetch on a redirect to another origin). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The whole download, answer and body, must finish within this (ms). */
  readonly timeoutMs: number;
  /** Extra words for a 401 or 403 answer, e.g. which variables hold the credentials. */
  readonly onUnauthorized?: string;
  /** The largest body accepted, in bytes; a larger one is refused as soon as it is seen to be. Unbounded without it. */
  readonly maxBytes?: number;
  /** The media types accepted (`Content-Type` without parameters; an answer without one passes); any without it. */
  readonly mediaTypes?: RegExp;
}

/**
 * GETs `url` and returns its body.
 *
 * @throws UpdateError on a status other than 2xx (401, 403, 404 and 429 said in words), a media type
 *   or a size that `options` does not accept, a connection failure or the timeout.
 */
export async function download(url: string, options: DownloadOptions): Promise<Buffer> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const seconds = `${Math.round(options.timeoutMs / 100) / 10} s`;
  try {
    const response = await fetch(url, { headers: options.headers ?? {}, redirect: 'follow', signal });
    if (!response.ok) {
      await response.body?.cancel();
      throw new UpdateError(`${options.what}: ${explain(response.status, response.headers.get('retry-after'), options)}`);
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (options.mediaTypes && mediaType !== '' && !options.mediaTypes.test(mediaType)) {
      await response.body?.cancel();
      throw new UpdateError(`${options.what}: the answer is ${mediaType}, not what was asked for`);
    }
    return options.maxBytes === undefined ? Buffer.from(await response.arrayBuffer()) : await boundedBody(response, options.maxBytes, options.what);
  } catch (error) {
    if (error instanceof UpdateError) throw error;
    if (signal.aborted) throw new UpdateError(`${options.what}: no complete answer from ${new URL(url).origin} within ${seconds}`);
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new UpdateError(`${options.what}: could not download from ${new URL(url).origin}: ${cause ?? (error as Error).message}`);
  }
}

/** The body of `response`, refused as soon as it is seen to hold more than `maxBytes`. */
async function boundedBody(response: Response, maxBytes: number, what: string): Promise<Buffer> {
  const tooLarge = () => new UpdateError(`${what}: the answer is larger than ${maxBytes} bytes, the most accepted`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  // Leaving the loop (the throw) cancels the stream: the rest is never downloaded.
  for await (const chunk of response.body ?? []) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function explain(status: number, retryAfter: string | null, options: DownloadOptions): string {
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
