/**
 * @module Checks an answer of the Worker against the OpenAPI document the same server serves, in Node
 * (a test-only service binding, `CONTRACT`): Stoplight Prism's proxy logic, with its forwarder replaced
 * by one that hands back the answer the Worker gave, routes the request and validates status, media
 * type, headers and body (JSON Schema 2020-12 through Prism's Ajv). Around it, what Prism leaves out:
 * a request the document has no operation for is held to the document's own answers to such requests
 * (`components.responses`), XML bodies are read by the schema's `xml` objects, and every header the
 * answer carries beyond HTTP's own must be one the document names.
 */

import { appendFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createInstance, getHttpOperationsFromSpec, type IHttpRequest, type IHttpResponse } from '@stoplight/prism-http';
import { fromXml, type Schema } from './contract-xml.ts';

type Json = Record<string, unknown>;
type Operations = Awaited<ReturnType<typeof getHttpOperationsFromSpec>>;

/** One request to the Worker and its answer, as the workerd side sends them (`worker-fetch.ts`). */
export interface Exchange {
  readonly request: { readonly method: string; readonly url: string; readonly headers: readonly [string, string][] };
  readonly response: { readonly status: number; readonly headers: readonly [string, string][]; readonly body: string };
}

/** What a document is checked with, made once per document text. */
interface Contract {
  /** The document with every `$ref` resolved, to read what it says of a response. */
  readonly document: Json;
  /** Prism's operations of the document. */
  readonly operations: Operations;
  /** Prism's operations for requests the document has no operation for: every method of one path, answering {@link UNMATCHED}. */
  readonly unmatched: Operations;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The path under which {@link Contract.unmatched} answers; no document of ours has it. */
const UNMATCHED_PATH = '/.unmatched';

/**
 * Headers that HTTP itself puts on answers (RFC 9110 framing and the date), which no API document
 * lists; `Content-Type` is checked against the documented media types instead.
 */
const HTTP_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'transfer-encoding', 'keep-alive']);

/**
 * The document's own answers to requests it has no operation for (`components.responses`), by status:
 * the names `src/routes/document-decoration.ts` gives them. 404 is for a path the document does not list, 405 for a method it
 * does not list on a path, 204 for a CORS preflight; the rest are the plan's gate, before any route.
 */
const UNMATCHED: Readonly<Record<string, string>> = {
  204: 'CorsPreflight',
  401: 'AccessRequired',
  403: 'AccessForbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  429: 'RateLimited',
  500: 'InternalError',
  503: 'AccountsUnavailable',
};

async function contractOf(text: string): Promise<Contract> {
  const raw = JSON.parse(text) as Json;
  const components = ((raw.components ?? {}) as Json).responses ?? {};
  const responses = Object.fromEntries(
    Object.entries(UNMATCHED)
      .filter(([, name]) => name in (components as Json))
      .map(([status, name]) => [status, { $ref: `#/components/responses/${name}` }]),
  );
  // A HEAD answer has no body (RFC 9110, 9.3.2): the same responses, without their content.
  const headless = Object.fromEntries(
    Object.entries(UNMATCHED)
      .filter(([, name]) => name in (components as Json))
      .map(([status, name]) => {
        const { content: _content, ...response } = (components as Record<string, Json>)[name] as Json;
        return [status, response];
      }),
  );
  const probe = {
    ...raw,
    paths: { [UNMATCHED_PATH]: Object.fromEntries(HTTP_METHODS.map((method) => [method, { responses: method === 'head' ? headless : responses }])) },
  };
  const [document, operations, unmatched] = await Promise.all([
    SwaggerParser.dereference(structuredClone(raw) as never) as Promise<unknown> as Promise<Json>,
    getHttpOperationsFromSpec(structuredClone(raw)),
    getHttpOperationsFromSpec(probe),
  ]);
  return { document, operations, unmatched };
}

/** The contracts of the documents registered so far, by the SHA-256 of their text. */
const contracts = new Map<string, Promise<Contract>>();

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Buffer.from(digest).toString('hex');
}

/** A logger that says nothing: Prism logs every request it handles. */
const SILENT = {
  child: () => SILENT,
  info: () => {},
  warn: () => {},
  error: () => {},
  debug: () => {},
  trace: () => {},
  fatal: () => {},
  success: () => {},
};

/** Prism's proxy, validating answers only, whose upstream is the answer already given. */
function prismProxyAnswering(response: IHttpResponse) {
  return createInstance(
    {
      isProxy: true,
      upstream: new URL('http://upstream.invalid'),
      upstreamProxy: undefined,
      validateRequest: false,
      validateResponse: true,
      checkSecurity: false,
      errors: true,
      mock: { dynamic: false },
    },
    {
      logger: SILENT as unknown as Parameters<typeof createInstance>[1]['logger'],
      forward: () => () => () => Promise.resolve({ _tag: 'Right', right: response } as const),
    },
  );
}

/** The request as Prism takes it: the raw path (Prism decodes each segment itself) and the query. */
function prismRequest(exchange: Exchange, path: string): IHttpRequest {
  const url = new URL(exchange.request.url);
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const known = query[name];
    query[name] = known === undefined ? value : [...(Array.isArray(known) ? known : [known]), value];
  }
  return {
    method: exchange.request.method.toLowerCase() as IHttpRequest['method'],
    url: { baseUrl: url.origin, path, query },
    headers: Object.fromEntries(exchange.request.headers),
  };
}

/** The document's path template that `path` falls under (a literal path before a templated one), if any. */
function templateOf(document: Json, path: string): string | undefined {
  const segments = path.split('/').map((segment) => safeDecode(segment));
  let best: { template: string; literal: number } | undefined;
  for (const template of Object.keys((document.paths ?? {}) as Json)) {
    const parts = template.split('/');
    if (parts.length !== segments.length) continue;
    let literal = 0;
    const fits = parts.every((part, i) => {
      // A path parameter is required: it matches a segment that is not empty.
      if (/^\{[^}]+\}$/.test(part)) return segments[i] !== '';
      literal += 1;
      return part === segments[i];
    });
    if (fits && (best === undefined || literal > best.literal)) best = { template, literal };
  }
  return best?.template;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The response object the document gives for `status` of an operation: exact code, then `4XX`-style range, then `default`. */
function responseFor(operation: Json | undefined, status: number): Json | undefined {
  const responses = (operation?.responses ?? {}) as Record<string, Json>;
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

/** The schema of `mediaType` in a response object (parameters ignored), if it documents one. */
function schemaFor(response: Json | undefined, mediaType: string): Schema | undefined {
  const content = (response?.content ?? {}) as Record<string, { schema?: Schema }>;
  return content[mediaType]?.schema;
}

const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');
const isXml = (mediaType: string) => mediaType === 'application/xml' || mediaType.endsWith('+xml');

/**
 * Why the answer of `exchange` is not one the document describes: one sentence per fault, none when
 * it is described.
 *
 * @param documentKey the SHA-256 of a document registered with {@link serveContractCheck}.
 */
async function contractViolations(documentKey: string, exchange: Exchange): Promise<string[]> {
  const contract = contracts.get(documentKey);
  if (contract === undefined) return [`no document is registered under ${documentKey}`];
  const { document, operations, unmatched } = await contract;
  const { request, response } = exchange;
  const method = request.method.toLowerCase();
  // The document says a trailing slash is ignored (`/api/v1/json/` is `/api/v1/json`), as the app's router does.
  const path = new URL(request.url).pathname.replace(/(.)\/$/, '$1');
  const template = templateOf(document, path);
  const pathItem = template === undefined ? undefined : ((document.paths as Record<string, Json>)[template] as Json);
  const operation = pathItem?.[method] as Json | undefined;
  const violations: string[] = [];

  // No operation: the answer must be one of the document's own answers to such requests.
  let documented = responseFor(operation, response.status);
  if (operation === undefined) {
    const name = UNMATCHED[response.status];
    documented = name === undefined ? undefined : ((document.components as Json).responses as Record<string, Json> | undefined)?.[name];
    const what = pathItem === undefined ? `no path of the document matches ${path}` : `${template} has no ${method.toUpperCase()} operation`;
    const preflight = method === 'options' && request.headers.some(([header]) => header.toLowerCase() === 'access-control-request-method');
    const fits =
      documented !== undefined &&
      (response.status !== 404 || pathItem === undefined) &&
      (response.status !== 405 || pathItem !== undefined) &&
      (response.status !== 204 || preflight);
    if (!fits) violations.push(`${what}, and the answer ${response.status} is none of the document's answers to such a request`);
    if (pathItem !== undefined && response.status === 405) {
      const allowed = HTTP_METHODS.filter((one) => one in pathItem)
        .map((one) => one.toUpperCase())
        .sort();
      const allow = new Headers([...response.headers]).get('Allow');
      if (allow !== allowed.join(', ')) violations.push(`Allow is ${JSON.stringify(allow)}, but ${template} documents ${allowed.join(', ')}`);
    }
  }

  const headers = new Headers([...response.headers]);
  const mediaType = (headers.get('Content-Type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  let body: unknown = response.body;
  if (response.body !== '' && isJson(mediaType)) {
    try {
      body = JSON.parse(response.body);
    } catch (error) {
      violations.push(`the ${mediaType} body is not JSON: ${(error as Error).message}`);
    }
  } else if (response.body !== '' && isXml(mediaType)) {
    const schema = schemaFor(documented, mediaType);
    if (schema !== undefined) {
      const read = fromXml(response.body, schema);
      if (read.ok) body = read.value;
      else violations.push(`the ${mediaType} body does not follow the schema's XML form: ${read.reason}`);
    }
  }

  const answer: IHttpResponse = { statusCode: response.status, headers: Object.fromEntries(headers), body };
  const input = prismRequest(exchange, operation === undefined ? UNMATCHED_PATH : path);
  const outcome = await prismProxyAnswering(answer).request(input, operation === undefined ? unmatched : operations)();
  if (outcome._tag === 'Left') {
    violations.push(`Prism: ${outcome.left.message}`);
  } else {
    for (const diagnostic of outcome.right.validations.output) violations.push(`Prism: ${diagnostic.message}`);
  }

  // Every header beyond HTTP's own is one the document names for this answer.
  const named = new Set(Object.keys((documented?.headers ?? {}) as Json).map((name) => name.toLowerCase()));
  for (const [name] of headers) {
    if (!HTTP_HEADERS.has(name) && !named.has(name)) violations.push(`the answer carries ${name}, which the document does not name for it`);
  }
  return violations;
}

/**
 * The `CONTRACT` service binding, in Node. `POST /document` with an OpenAPI document's text, as the
 * server served it, registers it and answers its key (hex SHA-256); `POST /check` with a JSON
 * `{ document: key, exchange }` ({@link Exchange}) answers the JSON array of {@link contractViolations}.
 * With `CONTRACT_LOG` set to a file, every check is appended to it as a JSON line, and with
 * `CONTRACT_LOG_ONLY=1` too, no check fails: to count undescribed answers over a whole run.
 */
export async function serveContractCheck(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (pathname === '/document') {
    const text = await request.text();
    const key = await sha256(text);
    if (!contracts.has(key)) contracts.set(key, contractOf(text));
    return new Response(key);
  }
  const { document, exchange } = (await request.json()) as { document: string; exchange: Exchange };
  const started = performance.now();
  let violations: string[];
  try {
    violations = await contractViolations(document, exchange);
  } catch (error) {
    violations = [`the check failed: ${(error as Error).stack ?? String(error)}`];
  }
  const log = process.env.CONTRACT_LOG;
  if (log) {
    const { method, url } = exchange.request;
    const ms = Math.round((performance.now() - started) * 100) / 100;
    appendFileSync(log, `${JSON.stringify({ method, url, status: exchange.response.status, ms, violations })}\n`);
    if (process.env.CONTRACT_LOG_ONLY === '1') return Response.json([]);
  }
  return Response.json(violations);
}
