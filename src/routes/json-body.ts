/**
 * @module The guard in front of every route that reads a JSON body (bulk lookup, distance): size,
 * media type and JSON syntax, each refused with its own problem before the zod schema sees the body.
 *
 * It runs before `@hono/zod-openapi`'s own media-type gate and Hono's JSON validator, which would
 * otherwise answer these cases with `HTTPException`s instead of the API's problems. Its media-type
 * test is the one of `@hono/zod-openapi`, so whatever passes here passes there.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';

/**
 * Largest JSON body accepted, in bytes. A full bulk request is about 2.5 KB (50 IPv6 addresses of
 * up to 45 characters, quoted); 16 KiB leaves room for pretty-printing and stays far below what
 * would cost the Worker anything to read.
 */
export const MAX_JSON_BODY_BYTES = 16 * 1024;

/** `application/json` or `application/<x>+json`, with optional parameters (as `@hono/zod-openapi`). */
const JSON_CONTENT_TYPE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/**
 * Middleware for a JSON body route.
 *
 * @throws ProblemError `PAYLOAD_TOO_LARGE` (413) over {@link MAX_JSON_BODY_BYTES};
 *   `UNSUPPORTED_MEDIA_TYPE` (415) for another content type, or a body without one;
 *   `BODY_INVALID` (400) for a missing body or one that is not JSON.
 */
export function jsonBody(maxBytes: number = MAX_JSON_BODY_BYTES): MiddlewareHandler<AppEnv>[] {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ProblemError('PAYLOAD_TOO_LARGE', `The body is larger than ${maxBytes} bytes.`, { extensions: { limit: maxBytes } });
    },
  });
  const mediaType: MiddlewareHandler<AppEnv> = async (c, next) => {
    const type = c.req.header('Content-Type');
    if (type !== undefined && !JSON_CONTENT_TYPE.test(type.trim())) {
      throw new ProblemError('UNSUPPORTED_MEDIA_TYPE', `The body must be application/json, not ${type}.`, { headers: { 'Accept-Post': 'application/json' } });
    }
    await next();
  };
  const syntax: MiddlewareHandler<AppEnv> = async (c, next) => {
    // Read once as text; Hono caches it, so the validator's c.req.json() parses the same bytes.
    const text = await c.req.text();
    if (text.trim() === '') throw new ProblemError('BODY_INVALID', 'The request has no body; send a JSON object.');
    if (c.req.header('Content-Type') === undefined) {
      throw new ProblemError('UNSUPPORTED_MEDIA_TYPE', 'The body has no Content-Type; send it as application/json.', {
        headers: { 'Accept-Post': 'application/json' },
      });
    }
    try {
      JSON.parse(text);
    } catch (error) {
      throw new ProblemError('BODY_INVALID', `The body is not JSON: ${(error as Error).message}`);
    }
    await next();
  };
  return [mediaType, limit, syntax];
}
