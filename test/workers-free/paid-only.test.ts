/**
 * @module The free server refuses the paid-only endpoints (docs/specification.md, 1 and 4.3 to 4.6; networks by ASN) with 403
 * `PAID_PLAN_REQUIRED`, naming the paid servers, under `/api/v1/` and `/api/`.
 * Client addresses: 203.0.113.0/24, one per request, used by this file only.
 */
import { describe, expect, it } from 'vitest';
import { workerFetch } from '../support/worker-fetch.ts';

/** The paid servers configured for the free deployment in wrangler.toml (`PAID_SERVERS`). */
const PAID_SERVERS = ['http://localhost:8788'];

let nextClient = 1;
/** A request from a client of its own, so that no case runs into the rate limit of another. */
function request(method: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('CF-Connecting-IP', `203.0.113.${nextClient++}`);
  return workerFetch(`http://free.test${path}`, { ...init, method, headers });
}

// Each endpoint of the paid servers, with a request that a paid server would answer.
const ENDPOINTS: [method: string, path: string][] = [
  ['POST', '/bulk/json'],
  ['POST', '/bulk/xml'],
  ['POST', '/distance'],
  ['GET', '/languages/de'],
  ['GET', '/countries'],
  ['GET', '/countries/DE'],
  ['GET', '/phonecodes'],
  ['GET', '/phonecodes/49'],
  ['GET', '/timezones'],
  ['GET', '/timezones/UTC'],
  ['GET', '/timezones/Europe/Berlin'],
  ['GET', '/timezones/America/Argentina/Buenos_Aires'],
  ['GET', '/asn/13335'],
  ['GET', '/asn/json/AS13335'],
  ['GET', '/asn/xml/13335'],
];
const CASES = ['/api/v1', '/api'].flatMap((prefix) => ENDPOINTS.map(([method, path]) => [method, prefix + path, path] as const));

describe('paid-only endpoints on the free server', () => {
  it.each(CASES)('refuses %s %s with PAID_PLAN_REQUIRED', async (method, path, paidPath) => {
    const body = method === 'POST' ? JSON.stringify(paidPath === '/distance' ? { from: '8.8.8.8', to: '1.1.1.1' } : { ips: ['8.8.8.8'] }) : null;
    const response = await request(method, path, body === null ? {} : { body, headers: { 'Content-Type': 'application/json' } });
    expect(response.status).toBe(403);
    expect(response.headers.get('RateLimit-Policy')).toBe('"burst";q=10;w=10, "minute";q=60;w=60');
    expect(response.headers.get('RateLimit')).toMatch(/^"burst";r=9;t=\d+$/);
    if (/\/xml(\/|$)/.test(path)) {
      expect(response.headers.get('Content-Type')).toMatch(/^application\/problem\+xml/);
      const xml = await response.text();
      expect(xml).toContain('<code>PAID_PLAN_REQUIRED</code>');
      for (const origin of PAID_SERVERS) expect(xml).toContain(`<paidServers>${origin}</paidServers>`);
      return;
    }
    expect(response.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
    const problem = (await response.json()) as { code: string; status: number; detail: string; paidServers: string[]; instance: string };
    expect(problem).toMatchObject({ code: 'PAID_PLAN_REQUIRED', status: 403, paidServers: PAID_SERVERS, instance: path });
    const shape = paidPath.replace(/\/(de|DE|49|UTC|Europe\/Berlin|America\/Argentina\/Buenos_Aires|13335|AS13335)$/, '');
    expect(problem.detail).toContain(`http://localhost:8788/api${shape}`);
  });

  it('refuses before reading the body', async () => {
    const response = await request('POST', '/api/v1/bulk/json', { body: 'not json', headers: { 'Content-Type': 'application/json' } });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('PAID_PLAN_REQUIRED');
  });

  it('answers other unknown paths with NOT_FOUND, not PAID_PLAN_REQUIRED', async () => {
    const response = await request('GET', '/api/v1/planets');
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('NOT_FOUND');
  });

  it('describes every refusal in the OpenAPI document with its 403 answer', async () => {
    const document = (await (await request('GET', '/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    for (const prefix of ['/api/v1', '/api']) {
      for (const [method, path] of [
        ['post', '/bulk/json'],
        ['post', '/bulk/xml'],
        ['post', '/distance'],
        ['get', '/languages/{code}'],
        ['get', '/countries'],
        ['get', '/countries/{code}'],
        ['get', '/phonecodes'],
        ['get', '/phonecodes/{dialCode}'],
        ['get', '/timezones'],
        ['get', '/timezones/{zone}'],
        ['get', '/timezones/{area}/{location}'],
        ['get', '/timezones/{area}/{region}/{location}'],
        ['get', '/asn/{asn}'],
        ['get', '/asn/json/{asn}'],
        ['get', '/asn/xml/{asn}'],
      ] as const) {
        const operation = document.paths[prefix + path]?.[method];
        expect(operation?.responses['403'], `${method} ${prefix}${path}`).toBeDefined();
        expect(Object.keys(operation?.responses['403']?.headers ?? {})).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit']));
      }
    }
    // A path parameter holds no `/` (OpenAPI path templating): zone names are spelt out by their parts.
    expect(Object.keys(document.paths).filter((path) => path.includes('{zone{'))).toEqual([]);
  });
});
