/**
 * @module The free server's answer to the paid-only endpoints (docs/specification.md, 1: bulk, distance,
 * languages, countries, phone codes, time zones): 403 `PAID_PLAN_REQUIRED`, naming the paid servers
 * in the extension member `paidServers`. Refused under `/api/v1/` (the free prefix) and `/api/` (the
 * paid prefix, which a client may try on the wrong host), before any body is read. The paid servers'
 * origins come from the `PAID_SERVERS` variable (comma-separated), since the code does not know where
 * it is deployed.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { RATE_LIMIT_HEADERS, RATE_LIMITED_HEADERS } from '../ratelimit/openapi.ts';
import { problemResponses } from '../schemas/problem.ts';

/** One paid-only endpoint, by its path on a paid server (below `/api`). */
interface PaidEndpoint {
  readonly method: 'get' | 'post';
  /** The path below the prefix, OpenAPI style (`/countries/{code}`). */
  readonly path: string;
  readonly name: string;
  /** The path parameter, if any. */
  readonly param?: string;
  /** Zone names hold slashes, so the parameter may span segments. */
  readonly multiSegment?: boolean;
}

/** The paid-only endpoints (docs/specification.md, 4.3 to 4.6). */
export const PAID_ENDPOINTS: readonly PaidEndpoint[] = [
  { method: 'post', path: '/bulk/json', name: 'Bulk lookup' },
  { method: 'post', path: '/bulk/xml', name: 'Bulk lookup' },
  { method: 'post', path: '/distance', name: 'Distance' },
  { method: 'get', path: '/languages/{code}', name: 'Languages', param: 'code' },
  { method: 'get', path: '/countries', name: 'Countries' },
  { method: 'get', path: '/countries/{code}', name: 'Countries', param: 'code' },
  { method: 'get', path: '/phonecodes', name: 'Phone codes' },
  { method: 'get', path: '/phonecodes/{dialCode}', name: 'Phone codes', param: 'dialCode' },
  { method: 'get', path: '/timezones', name: 'Time zones' },
  { method: 'get', path: '/timezones/{zone}', name: 'Time zones', param: 'zone', multiSegment: true },
];

/**
 * The origins of the paid servers, from `PAID_SERVERS` (comma-separated; blanks ignored).
 *
 * @example paidServers('https://de.ipgeo.example, https://us.ipgeo.example') // ['https://de.ipgeo.example', 'https://us.ipgeo.example']
 */
export function paidServers(list: string): string[] {
  return list
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
}

/** The refusal of a paid-only endpoint on the free server. */
export function paidPlanRequired(endpoint: PaidEndpoint, servers: readonly string[]): ProblemError {
  const path = `/api${endpoint.path}`;
  const where = servers.length > 0 ? ` on a paid server: ${servers.map((origin) => origin + path).join(', ')}` : ' on the paid servers';
  return new ProblemError('PAID_PLAN_REQUIRED', `${endpoint.name} (${endpoint.method.toUpperCase()} ${path}) is available with a paid plan only,${where}.`, {
    extensions: { paidServers: servers },
  });
}

function route(prefix: string, endpoint: PaidEndpoint) {
  const format = endpoint.path.endsWith('/xml') ? 'xml' : 'json';
  const problems = problemResponses(['PAID_PLAN_REQUIRED', 'RATE_LIMITED'], format);
  return createRoute({
    method: endpoint.method,
    path: `${prefix}${endpoint.path}`,
    tags: ['Paid plan only'],
    summary: `${endpoint.name}: paid plan only`,
    description: `Not served by the free server: always 403 \`PAID_PLAN_REQUIRED\`, whose \`paidServers\` lists the paid servers' origins. There, this is \`${endpoint.method.toUpperCase()} /api${endpoint.path}\` with an API key, a whitelisted server address or a whitelisted website.`,
    request: endpoint.param ? { params: z.object({ [endpoint.param]: z.string() }) } : {},
    responses: {
      403: { ...problems[403], headers: RATE_LIMIT_HEADERS },
      429: { ...problems[429], headers: RATE_LIMITED_HEADERS },
    },
  });
}

/** Registers the refusals of every paid-only endpoint on the free app, under `/api/v1` and `/api`. */
export function registerPaidOnlyRefusals(app: OpenAPIHono<AppEnv>): void {
  for (const prefix of ['/api/v1', '/api']) {
    for (const endpoint of PAID_ENDPOINTS) {
      const refuse = (c: { env: Env }): never => {
        throw paidPlanRequired(endpoint, paidServers(c.env.PAID_SERVERS));
      };
      const config = route(prefix, endpoint);
      if (endpoint.multiSegment && endpoint.param) {
        // As on the paid servers: the document keeps `{zone}`, Hono routes `{zone{.+}}` to take slashes.
        app.openAPIRegistry.registerPath(config);
        app.openapi({ ...config, path: config.path.replace(`{${endpoint.param}}`, `{${endpoint.param}{.+}}`), hide: true }, refuse);
      } else {
        app.openapi(config, refuse);
      }
    }
  }
}
