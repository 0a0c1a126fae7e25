/**
 * @module Reads the JSON body of a route that takes one (bulk lookup, distance): media type, size,
 * JSON syntax and then the route's zod schema, each refused with its own problem.
 *
 * The route's handler calls it first, in place of `@hono/zod-openapi`'s media-type gate and JSON
 * validator (the route is documented in the registry and served by a plain handler): those would answer
 * these cases with `HTTPException`s instead of the API's problems, and a chain of four middleware parsed
 * each body twice, a tenth of a bulk request's time (profiled). Its media-type test is the one of
 * `@hono/zod-openapi`.
 */
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ZodType } from 'zod';
import type { AppEnv } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { describeIssue, type Issue } from './hooks.ts';

/**
 * Largest JSON body accepted, in bytes. A full bulk request is about 2.5 KB (50 IPv6 addresses of
 * up to 45 characters, quoted); 16 KiB leaves room for pretty-printing and stays far below what
 * would cost the Worker anything to read.
 */
export const MAX_JSON_BODY_BYTES = 16 * 1024;

/** `application/json` or `application/<x>+json`, with optional parameters (as `@hono/zod-openapi`). */
const JSON_CONTENT_TYPE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

const ACCEPT_POST = { 'Accept-Post': 'application/json' };

/**
 * Hono's body limit: the `Content-Length` when there is one, else the bytes as they arrive (the
 * request is then re-made from the bytes read, which `c.req.text()` reads).
 */
const limit = bodyLimit({
  maxSize: MAX_JSON_BODY_BYTES,
  onError: () => {
    throw new ProblemError('PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_JSON_BODY_BYTES} bytes.`, { extensions: { limit: MAX_JSON_BODY_BYTES } });
  },
});

const withinLimit = async (): Promise<void> => {};

/** A failed schema as `BODY_INVALID`, naming the first issue. */
const bodyInvalid = (issues: readonly Issue[]): ProblemError => new ProblemError('BODY_INVALID', describeIssue(issues));

/**
 * The request's JSON body, validated by `schema`.
 *
 * @param invalid the problem for a body that is JSON but fails `schema` (default `BODY_INVALID`).
 * @returns the parsed body, as `schema` outputs it.
 * @throws ProblemError `UNSUPPORTED_MEDIA_TYPE` (415, with `Accept-Post`) for another content type, or a
 *   body without one; `PAYLOAD_TOO_LARGE` (413) over {@link MAX_JSON_BODY_BYTES}; `BODY_INVALID` (400)
 *   for a missing body or one that is not JSON; `invalid(issues)` for one that fails `schema`.
 */
export async function readJsonBody<T>(c: Context<AppEnv>, schema: ZodType<T>, invalid = bodyInvalid): Promise<T> {
  const type = c.req.header('Content-Type');
  if (type !== undefined && !JSON_CONTENT_TYPE.test(type.trim())) {
    throw new ProblemError('UNSUPPORTED_MEDIA_TYPE', `The body must be application/json, not ${type}.`, { headers: ACCEPT_POST });
  }
  await limit(c, withinLimit);
  const text = await c.req.text();
  if (text.trim() === '') throw new ProblemError('BODY_INVALID', 'The request has no body; send a JSON object.');
  if (type === undefined) {
    throw new ProblemError('UNSUPPORTED_MEDIA_TYPE', 'The body has no Content-Type; send it as application/json.', { headers: ACCEPT_POST });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ProblemError('BODY_INVALID', `The body is not JSON: ${(error as Error).message}`);
  }
  const result = schema.safeParse(body);
  if (!result.success) throw invalid(result.error.issues);
  return result.data;
}
