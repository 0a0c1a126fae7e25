/**
 * @module What middleware does to every route of a plan, added to the generated OpenAPI document:
 * access or rate limits, CORS, the data's version, 500s, each status's own headers, a HEAD beside
 * every GET, and `components.responses` for requests without an operation (404, 405, preflights, the
 * gate's refusals). Every problem response narrows `code` to the codes it can carry, so that the
 * codes a document lists are exactly its plan's. `/health` runs before the gates: only `nosniff`,
 * which every answer carries, is added to it.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { CORS_MAX_AGE_SECONDS, CORS_METHODS, CORS_REQUEST_HEADERS } from '../access/cors.ts';
import { OPEN_PAID_PATHS } from '../access/middleware.ts';
import type { AppEnv, Plan } from '../env.ts';
import { PROBLEMS, type ProblemCode } from '../errors/problem.ts';
import { formatOf } from '../http/paths.ts';
import { isCounted } from '../ratelimit/middleware.ts';
import { RATE_LIMIT_HEADERS, RATE_LIMITED_HEADERS } from '../ratelimit/openapi.ts';
import { codesOfProblemSchema, ProblemSchema, problemMediaType, problemResponse, problemSchemaOf } from '../schemas/problem.ts';
import { usageKindOf } from '../usage/middleware.ts';
import { QUOTA_HEADERS } from '../usage/openapi.ts';
import { carriesDatabaseVersion, DATABASE_VERSION_HEADER, DATABASE_VERSION_HEADER_OBJECT } from './database-version.ts';
import { HEALTH_PATH } from './health.ts';

// The generated document is plain JSON; these are the few parts of it that are decorated.
type Json = Record<string, unknown>;
interface ResponseObject extends Json {
  description: string;
  headers?: Json;
  content?: Record<string, { schema?: unknown }>;
}
interface Operation extends Json {
  responses?: Record<string, ResponseObject>;
  security?: Record<string, string[]>[];
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A reference to a header component (registered by {@link registerComponents}). */
const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * Headers that a plan's gate puts on answers to `method` on `path` (`ratelimit/middleware.ts`,
 * `cors/public.ts`, `access/middleware.ts`): on the free server, the RateLimit fields on counted answers only.
 */
function gateHeaders(plan: Plan, method: string, path: string): Json {
  if (plan === 'free') {
    const cors = { 'Access-Control-Allow-Origin': ref('Access-Control-Allow-Origin'), 'Access-Control-Expose-Headers': ref('Access-Control-Expose-Headers') };
    return isCounted(method.toUpperCase(), path) ? { 'RateLimit-Policy': ref('RateLimit-Policy'), RateLimit: ref('RateLimit'), ...cors } : cors;
  }
  if (!path.startsWith('/api/')) return {};
  const cors = { Vary: ref('Vary'), 'Access-Control-Allow-Origin': ref('Access-Control-Allow-Origin') };
  // An account's quotas, on the answers the usage gate counts (usage/middleware.ts).
  return usageKindOf(path) === null ? cors : { ...cors, 'RateLimit-Policy': ref('RateLimit-Policy'), RateLimit: ref('RateLimit') };
}

/** The header every answer carries (`app.ts`, `withoutSniffing`). */
const EVERY_ANSWER: Json = { 'X-Content-Type-Options': ref('X-Content-Type-Options') };

/** Headers that answers of a status always carry, whichever route gives them. */
const HEADERS_OF_STATUS: Readonly<Record<string, Json>> = {
  401: { 'WWW-Authenticate': ref('WWW-Authenticate') },
  405: { Allow: ref('Allow') },
  415: { 'Accept-Post': ref('Accept-Post') },
  429: { 'Retry-After': ref('Retry-After') },
  503: { 'Retry-After': ref('Retry-After') },
};

/**
 * Adds problems of `codes` to `responses`: a status the operation has gets their codes (in its
 * description and its schema's `code`), a new one a response of them.
 */
function addProblems(responses: Record<string, ResponseObject>, codes: readonly ProblemCode[], format: 'json' | 'xml'): void {
  for (const code of codes) {
    const status = String(PROBLEMS[code].status);
    const existing = responses[status];
    const known = existing ? codesOf(existing) : [];
    if (known.includes(code)) continue;
    const merged = problemResponse([...known, code], format);
    responses[status] = { ...existing, ...merged };
  }
}

/** The problem codes a response lists (its schema's `code`). */
function codesOf(response: ResponseObject): ProblemCode[] {
  return Object.values(response.content ?? {}).flatMap((content) => codesOfProblemSchema(content.schema));
}

/** Adds what the middleware of `plan` does to `method` on `path` to one operation, keeping what its route says. */
function decorateOperation(operation: Operation, plan: Plan, method: string, path: string): void {
  const format = formatOf(path);
  operation.responses ??= {};
  const responses = operation.responses;
  const api = path.startsWith('/api/');
  if (plan === 'paid' && api) {
    // The access gate checks every /api/ path but the open ones, and reads KV for any (access/middleware.ts).
    if (!OPEN_PAID_PATHS.has(path)) {
      operation.security = [{ bearerKey: [] }, { websiteOrigin: [] }];
      addProblems(responses, ['AUTHORIZATION_REQUIRED', 'AUTHORIZATION_INVALID', 'SUBSCRIPTION_INACTIVE', 'ORIGIN_FORBIDDEN'], format);
    }
    addProblems(responses, ['ACCOUNTS_UNAVAILABLE'], format);
    // The usage gate refuses what does not fit in an account's quota (usage/middleware.ts).
    if (usageKindOf(path) !== null) addProblems(responses, ['QUOTA_EXCEEDED'], format);
  }
  // The rate-limit gate refuses the /api/ requests it counts; a counted page answers its own 429 (routes/home.ts).
  if (plan === 'free' && api && isCounted(method.toUpperCase(), path)) addProblems(responses, ['RATE_LIMITED'], format);
  addProblems(responses, ['INTERNAL_ERROR'], format);
  const gate = gateHeaders(plan, method, path);
  for (const [status, response] of Object.entries(responses)) {
    // The data's version on every lookup answer while data is loaded (routes/database-version.ts).
    const version = carriesDatabaseVersion(plan, path) && status !== '503' ? { [DATABASE_VERSION_HEADER]: ref(DATABASE_VERSION_HEADER) } : {};
    response.headers = { ...gate, ...version, ...response.headers, ...HEADERS_OF_STATUS[status], ...EVERY_ANSWER };
  }
}

/** The HEAD operation of a GET operation: Hono answers HEAD with GET's status and headers, without the body. */
function headOf(get: Operation): Operation {
  const responses = Object.fromEntries(
    Object.entries(get.responses ?? {}).map(([status, { content: _content, ...response }]) => [status, response as ResponseObject]),
  );
  return {
    ...get,
    summary: `${get.summary as string} (headers only)`,
    description: 'As GET, without the body: the same status and headers.',
    responses,
    // Listed for tools and clients; the reference page shows the GET only.
    'x-scalar-ignore': true,
  };
}

/**
 * The document's answers to requests it has no operation for, in every route's formats: a path it
 * does not list, a method it does not list for a path, a CORS preflight, and what the plan's gate
 * answers before any route (`components.responses`).
 */
function unmatchedResponses(plan: Plan): Record<string, ResponseObject> {
  const gate = { ...gateHeaders(plan, 'GET', '/api/'), [DATABASE_VERSION_HEADER]: ref(DATABASE_VERSION_HEADER) };
  const problem = (codes: ProblemCode[], description: string): ResponseObject => {
    const status = String(PROBLEMS[codes[0] as ProblemCode].status);
    const content = Object.fromEntries((['json', 'xml'] as const).map((format) => [problemMediaType(format), { schema: problemSchemaOf(codes) }]));
    return {
      description: `${problemResponse(codes, 'json').description}: ${description}`,
      headers: { ...gate, ...HEADERS_OF_STATUS[status], ...EVERY_ANSWER },
      content,
    };
  };
  const preflight = {
    'Access-Control-Allow-Origin': ref('Access-Control-Allow-Origin'),
    'Access-Control-Allow-Methods': ref('Access-Control-Allow-Methods'),
    'Access-Control-Allow-Headers': ref('Access-Control-Allow-Headers'),
    'Access-Control-Max-Age': ref('Access-Control-Max-Age'),
    ...(plan === 'paid' ? { Vary: ref('Vary') } : {}),
    ...EVERY_ANSWER,
  };
  return {
    NotFound: problem(['NOT_FOUND'], 'no path of this document matches the request; on XML paths (`…/xml/…`) as application/problem+xml.'),
    MethodNotAllowed: problem(
      ['METHOD_NOT_ALLOWED'],
      'the path is in this document, the method is not; `Allow` lists the methods it has, and so does the member `allow`.',
    ),
    CorsPreflight: {
      description:
        plan === 'free'
          ? 'A CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`), on any path: answered before the rate limiter and not counted. Any page may call this server.'
          : 'A CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) to an `/api/` path from a whitelisted website; another origin is refused with 403 `ORIGIN_FORBIDDEN` and no CORS headers.',
      headers: preflight,
    },
    InternalError: problem(['INTERNAL_ERROR'], 'an unexpected failure: nothing of it in the answer, the details in the log.'),
    ...(plan === 'free'
      ? { RateLimited: problem(['RATE_LIMITED'], 'any `/api/` request but the status endpoint is counted, a path this document does not list too.') }
      : {
          AccessRequired: problem(
            ['AUTHORIZATION_REQUIRED', 'AUTHORIZATION_INVALID'],
            'the access gate checks every `/api/` path but the open ones, a path this document does not list too.',
          ),
          AccessForbidden: problem(
            ['SUBSCRIPTION_INACTIVE', 'ORIGIN_FORBIDDEN'],
            'as AccessRequired; also a CORS preflight from an origin no account whitelists.',
          ),
          AccountsUnavailable: problem(['ACCOUNTS_UNAVAILABLE'], 'the account data cannot be read: any `/api/` request whose credential is not cached.'),
        }),
  };
}

/** Every problem code of a decorated document, in the order of {@link PROBLEMS}. */
export function problemCodesOf(document: Json): ProblemCode[] {
  const found = new Set<ProblemCode>();
  const visit = (response: ResponseObject) => {
    for (const code of codesOf(response)) found.add(code);
  };
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const operation of Object.values(item)) for (const response of Object.values(operation.responses ?? {})) visit(response);
  }
  for (const response of Object.values(((document.components as Json).responses ?? {}) as Record<string, ResponseObject>)) visit(response);
  return (Object.keys(PROBLEMS) as ProblemCode[]).filter((code) => found.has(code));
}

/** Registers the components that the decoration refers to. */
export function registerComponents(app: OpenAPIHono<AppEnv>, plan: Plan): void {
  const registry = app.openAPIRegistry;
  const header = (name: string, text: string, schema: Json = { type: 'string' }) => registry.registerComponent('headers', name, { description: text, schema });
  registry.register('Problem', ProblemSchema);
  registry.registerComponent('headers', 'Retry-After', {
    description: `Whole seconds to wait before trying again: on 503 \`DATA_UNAVAILABLE\`${plan === 'free' ? ', and on 429 `RATE_LIMITED` until a request of this client will be admitted again' : ', 503 `ACCOUNTS_UNAVAILABLE` and 503 `USAGE_UNAVAILABLE`, and on 429 `QUOTA_EXCEEDED` until the quota that refused resets'}.`,
    schema: RATE_LIMITED_HEADERS['Retry-After'].schema,
    required: true,
  });
  registry.registerComponent('headers', DATABASE_VERSION_HEADER, DATABASE_VERSION_HEADER_OBJECT);
  registry.registerComponent('headers', 'X-Content-Type-Options', {
    description: '`nosniff`, on every answer: a browser reads it only as the media type that `Content-Type` states.',
    schema: { type: 'string', const: 'nosniff' },
    required: true,
  });
  registry.registerComponent('headers', 'Allow', {
    description: 'The methods the path has, as this document lists them (GET implies HEAD).',
    schema: { type: 'string', example: 'GET, HEAD' },
    required: true,
  });
  header('Access-Control-Allow-Methods', 'The methods a page may use.', { type: 'string', example: CORS_METHODS });
  header('Access-Control-Allow-Headers', 'The request headers a page may send.', { type: 'string', example: CORS_REQUEST_HEADERS });
  header('Access-Control-Max-Age', 'Seconds a browser may reuse this preflight answer.', { type: 'string', example: String(CORS_MAX_AGE_SECONDS) });
  if (plan === 'paid') {
    registry.registerComponent('securitySchemes', 'bearerKey', {
      type: 'http',
      scheme: 'bearer',
      description:
        'An API key, shown once when it is created: `Authorization: Bearer <key>`. Keep it in backend code. Requests from a whitelisted server IP need no credential at all.',
    });
    registry.registerComponent('securitySchemes', 'websiteOrigin', {
      type: 'apiKey',
      in: 'header',
      name: 'Origin',
      description:
        'Browser requests from a whitelisted website: the exact hostname of the `Origin` header the browser sends must be whitelisted for the account.',
    });
    header(
      'Access-Control-Allow-Origin',
      "The request's `Origin`, when an account whitelists it: a page of that website may read the answer. Absent for any other origin.",
    );
    header('Vary', "`Origin` on every `/api/` answer (and the preflight's request fields on a preflight): the answer depends on the website asking.", {
      type: 'string',
      example: 'Origin',
    });
    registry.registerComponent('headers', 'WWW-Authenticate', {
      description: 'The bearer challenge (RFC 6750): `Bearer realm="ipgeo"`, with `error="invalid_token"` for a key that is malformed, unknown or revoked.',
      schema: { type: 'string', example: 'Bearer realm="ipgeo"' },
      required: true,
    });
    registry.registerComponent('headers', 'RateLimit-Policy', QUOTA_HEADERS['RateLimit-Policy']);
    registry.registerComponent('headers', 'RateLimit', QUOTA_HEADERS.RateLimit);
    registry.registerComponent('headers', 'Accept-Post', {
      description: 'The media type the body must have: `application/json`.',
      schema: { type: 'string', example: 'application/json' },
      required: true,
    });
    return;
  }
  // The rate-limit module's own descriptions of its fields, so that the document says what it sends.
  registry.registerComponent('headers', 'RateLimit-Policy', RATE_LIMIT_HEADERS['RateLimit-Policy']);
  registry.registerComponent('headers', 'RateLimit', RATE_LIMIT_HEADERS.RateLimit);
  header('Access-Control-Allow-Origin', '`*`: any page may read the answer (no credentials).', { type: 'string', const: '*' });
  header('Access-Control-Expose-Headers', 'The answer headers a page may read beyond the CORS-safelisted ones.', {
    type: 'string',
    example: 'RateLimit, RateLimit-Policy, Retry-After, X-Database-Version, Allow',
  });
}

/** Adds what middleware does to every route of `plan` to each operation of `document`, its HEAD operations, and the answers without an operation. */
export function decorate(document: Json, plan: Plan): Json {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      // The liveness probe runs before the gates (routes/health.ts): only what every answer carries.
      if (operation && path !== HEALTH_PATH) decorateOperation(operation, plan, method, path);
      else if (operation) for (const response of Object.values(operation.responses ?? {})) response.headers = { ...response.headers, ...EVERY_ANSWER };
    }
    if (item.get && !item.head) item.head = headOf(item.get);
  }
  document.components ??= {};
  const components = document.components as Json;
  components.responses = { ...(components.responses as Json | undefined), ...unmatchedResponses(plan) };
  return document;
}
