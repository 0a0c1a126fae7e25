/**
 * @module The free server's answer to the paid-only endpoints (docs/specification.md, 1: bulk, distance,
 * languages, countries, phone codes, time zones; and networks by ASN): 403 `PAID_PLAN_REQUIRED`, naming the paid servers
 * in the extension member `paidServers`. Refused under `/api/v1/` (the free prefix) and `/api/` (the
 * paid prefix, which a client may try on the wrong host), before any body is read. The paid servers'
 * origins come from the `PAID_SERVERS` variable (comma-separated), since the code does not know where
 * it is deployed.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { formatOf } from '../http/paths.ts';
import { problemResponses } from '../schemas/problem.ts';

/** One paid-only endpoint, by its path on a paid server (below `/api`). */
interface PaidEndpoint {
  readonly method: 'get' | 'post';
  /** The path below the prefix, OpenAPI style (`/countries/{code}`). */
  readonly path: string;
  readonly name: string;
  /** The path parameters, if any. */
  readonly params?: readonly string[];
}

/** The paid-only endpoints (docs/specification.md, 4.3 to 4.6; networks by ASN, docs/api.md). */
const PAID_ENDPOINTS: readonly PaidEndpoint[] = [
  { method: 'post', path: '/bulk/json', name: 'Bulk lookup' },
  { method: 'post', path: '/bulk/xml', name: 'Bulk lookup' },
  { method: 'post', path: '/distance', name: 'Distance' },
  { method: 'get', path: '/asn/{asn}', name: 'Networks by ASN', params: ['asn'] },
  { method: 'get', path: '/asn/json/{asn}', name: 'Networks by ASN', params: ['asn'] },
  { method: 'get', path: '/asn/xml/{asn}', name: 'Networks by ASN', params: ['asn'] },
  { method: 'get', path: '/languages/{code}', name: 'Languages', params: ['code'] },
  { method: 'get', path: '/countries', name: 'Countries' },
  { method: 'get', path: '/countries/{code}', name: 'Countries', params: ['code'] },
  { method: 'get', path: '/phonecodes', name: 'Phone codes' },
  { method: 'get', path: '/phonecodes/{dialCode}', name: 'Phone codes', params: ['dialCode'] },
  { method: 'get', path: '/timezones', name: 'Time zones' },
  // A zone name of one, two or three parts, as on the paid servers (`schemas/reference.ts`).
  { method: 'get', path: '/timezones/{zone}', name: 'Time zones', params: ['zone'] },
  { method: 'get', path: '/timezones/{area}/{location}', name: 'Time zones', params: ['area', 'location'] },
  { method: 'get', path: '/timezones/{area}/{region}/{location}', name: 'Time zones', params: ['area', 'region', 'location'] },
];

/**
 * The origins of the paid servers, from `PAID_SERVERS` (comma-separated; blanks ignored).
 *
 * @example paidServers('https://de.ipgeo.example, https://us.ipgeo.example') // ['https://de.ipgeo.example', 'https://us.ipgeo.example']
 */
function paidServers(list: string): string[] {
  return list
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
}

/** The refusal of a paid-only endpoint on the free server. */
function paidPlanRequired(endpoint: PaidEndpoint, servers: readonly string[]): ProblemError {
  const path = `/api${endpoint.path}`;
  const where = servers.length > 0 ? ` on a paid server: ${servers.map((origin) => origin + path).join(', ')}` : ' on the paid servers';
  return new ProblemError('PAID_PLAN_REQUIRED', `${endpoint.name} (${endpoint.method.toUpperCase()} ${path}) is available with a paid plan only,${where}.`, {
    extensions: { paidServers: servers },
  });
}

function route(prefix: string, endpoint: PaidEndpoint) {
  const format = formatOf(endpoint.path);
  return createRoute({
    method: endpoint.method,
    path: `${prefix}${endpoint.path}`,
    tags: ['Paid plan only'],
    summary: `${endpoint.name}: paid plan only`,
    description: `Not served by the free server: always 403 \`PAID_PLAN_REQUIRED\`, whose \`paidServers\` lists the paid servers' origins. There, this is \`${endpoint.method.toUpperCase()} /api${endpoint.path}\` with an API key, a whitelisted server address or a whitelisted website.`,
    request: endpoint.params ? { params: z.object(Object.fromEntries(endpoint.params.map((name) => [name, z.string()]))) } : {},
    // The rate limit's 429 and fields are added to every free operation by `docs.ts`.
    responses: problemResponses(['PAID_PLAN_REQUIRED'], format),
  });
}

/** Registers the refusals of every paid-only endpoint on the free app, under `/api/v1` and `/api`. */
export function registerPaidOnlyRefusals(app: OpenAPIHono<AppEnv>): void {
  for (const prefix of ['/api/v1', '/api']) {
    for (const endpoint of PAID_ENDPOINTS) {
      const refuse = (c: { env: Env }): never => {
        throw paidPlanRequired(endpoint, paidServers(c.env.PAID_SERVERS));
      };
      app.openapi(route(prefix, endpoint), refuse);
    }
  }
}
