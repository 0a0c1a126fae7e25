/**
 * @module Renders a {@link ProblemError} as RFC 9457 problem details: `application/problem+json`,
 * or `application/problem+xml` (RFC 9457 Appendix B, namespace `urn:ietf:rfc:7807`) when the route
 * answers XML. Unexpected errors become a 500 whose detail reveals nothing internal.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { reportEvent, whyOf } from '../events/operational.ts';
import { toXml, type XmlValue } from '../format/xml.ts';
import { RETRY_AFTER_SECONDS } from '../geo/retry-after.ts';
import { DataUnavailableError } from '../geo/unavailable.ts';
import { formatOf } from '../http/paths.ts';
import { PROBLEMS, type ProblemCode, ProblemError, problemType } from './problem.ts';

/** Codes for the HTTP errors that Hono's own middleware may raise (body limit, malformed input, …). */
const HTTP_EXCEPTION_CODES: Readonly<Record<number, ProblemCode>> = {
  400: 'BODY_INVALID',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/** A problem to answer: its code, detail and options, raised as a {@link ProblemError} or not. */
export type Problem = Pick<ProblemError, 'code' | 'detail' | 'options'>;

/** The wire shape of a problem (JSON), also described in the OpenAPI document. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Stable machine code, e.g. `IP_ADDRESS_INVALID`. */
  code: string;
  /** The request path that failed. */
  instance?: string;
  [extension: string]: unknown;
}

/**
 * The problem object for an error, as JSON members; also for a problem that is not raised (a failed
 * item of a bulk answer), given as its code, detail and extensions.
 */
export function problemBody(error: Problem, instance?: string): ProblemBody {
  return {
    type: problemType(error.code),
    title: PROBLEMS[error.code].title,
    status: PROBLEMS[error.code].status,
    detail: error.detail,
    code: error.code,
    ...(instance === undefined ? {} : { instance }),
    ...error.options.extensions,
  };
}

/**
 * The HTTP response for a problem.
 *
 * @param format `xml` on XML routes, else JSON.
 * @param headers headers every answer carries (e.g. rate-limit fields, CORS), merged in.
 */
export function problemResponse(error: Problem, format: 'json' | 'xml', instance: string, headers: Headers = new Headers()): Response {
  const body = problemBody(error, instance);
  const { status } = PROBLEMS[error.code];
  const out = new Headers(headers);
  for (const [name, value] of Object.entries(error.options.headers ?? {})) out.set(name, value);
  if (format === 'xml') {
    out.set('Content-Type', 'application/problem+xml; charset=utf-8');
    return new Response(toXml('problem', body as unknown as Record<string, XmlValue>, { xmlns: 'urn:ietf:rfc:7807' }), { status, headers: out });
  }
  out.set('Content-Type', 'application/problem+json; charset=utf-8');
  return new Response(JSON.stringify(body), { status, headers: out });
}

/**
 * The answer to a request that failed with `problem`, in its route's format, keeping the headers
 * middleware already set (CORS, RateLimit): what the app's error handler answers for a raised
 * {@link ProblemError}, and what a route answers for a problem it does not raise (no `Error`, so no
 * stack trace to capture: a lookup of an address the data does not cover).
 */
export function problemAnswer(problem: Problem, c: Context): Response {
  return problemResponse(problem, formatOf(c.req.path), c.req.path, c.res.headers);
}

/**
 * Maps anything thrown to a ProblemError: a database that cannot be read is 503 with `Retry-After`, an
 * unknown error a 500 whose cause stays out of the answer; both are written as operational events
 * (`data-unavailable`, `internal-error`), bounded per isolate.
 *
 * @param place the request, whose Cloudflare location the event names.
 */
export function asProblem(error: unknown, place?: Request): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error instanceof DataUnavailableError) {
    reportEvent({ event: 'data-unavailable', status: 503, why: error.message }, place);
    return new ProblemError('DATA_UNAVAILABLE', 'The geolocation data cannot be read at the moment. Try again shortly.', {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
  }
  if (error instanceof HTTPException) {
    const code = HTTP_EXCEPTION_CODES[error.status];
    if (code) return new ProblemError(code, error.message || 'The request was refused.');
  }
  reportEvent({ event: 'internal-error', status: 500, why: whyOf(error), ...(error instanceof Error && error.stack ? { stack: error.stack } : {}) }, place);
  return new ProblemError('INTERNAL_ERROR', 'The server failed to answer this request. It has been logged.');
}
