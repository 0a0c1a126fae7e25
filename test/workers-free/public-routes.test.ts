/**
 * @module The routes the free server shares with the paid ones: the country code list of spec 2.5,
 * checked against the specification's own code list and `countries-list`'s names, and the free plan's
 * OpenAPI document and reference page. Each request comes from its own client address (from
 * 198.51.100.0/24, used by this file only), so that the rate limits never interfere.
 */
import { countries } from 'countries-list';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { documentedOperations, servedOperations } from '../support/openapi-routes.ts';
import { SPEC_COUNTRY_CODES } from '../support/spec-country-codes.ts';
import { workerFetch } from '../support/worker-fetch.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON that the tests walk freely.
type Json = Record<string, any>;

const ORIGIN = 'https://free.test';
let client = 0;
/** A GET from a client address of its own. */
const get = (path: string) => workerFetch(`${ORIGIN}${path}`, { headers: { 'CF-Connecting-IP': `198.51.100.${++client}` } });

describe('GET /api/v1/countrycodes', () => {
  it('maps exactly the 250 codes of spec 2.5, in order, to their English names in countries-list', async () => {
    const response = await get('/api/v1/countrycodes');
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
    const body = (await response.json()) as Record<string, string>;
    expect(Object.keys(body)).toEqual(SPEC_COUNTRY_CODES);
    expect(body).toEqual(Object.fromEntries(SPEC_COUNTRY_CODES.map((code) => [code, countries[code as keyof typeof countries].name])));
  });

  it('leaves out AC and TA, which countries-list has and the specification does not', async () => {
    const body = (await (await get('/api/v1/countrycodes')).json()) as Record<string, string>;
    expect(Object.hasOwn(countries, 'AC') && Object.hasOwn(countries, 'TA')).toBe(true);
    expect(body).not.toHaveProperty('AC');
    expect(body).not.toHaveProperty('TA');
  });

  it('carries the rate-limit fields, like every counted answer', async () => {
    const response = await get('/api/v1/countrycodes');
    expect(response.headers.get('RateLimit-Policy')).toBeTruthy();
    expect(response.headers.get('RateLimit')).toBeTruthy();
  });
});

describe('GET /openapi.json on the free server', () => {
  let document: Json;
  let served: Response;
  beforeAll(async () => {
    served = await get('/openapi.json');
    expect(served.status).toBe(200);
    document = (await served.json()) as Json;
  });

  const operations = () =>
    Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  it('is an OpenAPI 3.1 document of the free plan that names this server', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toContain('free');
    expect(document.servers).toEqual([{ url: ORIGIN, description: expect.any(String) }]);
  });

  it('lists exactly the routes that the free app serves, and no paid operation', () => {
    expect(documentedOperations(document as never)).toEqual(servedOperations(createApp('free')));
    expect(document.paths['/api/v1/countrycodes'].get.responses['200']).toBeDefined();
    // Paid-only paths appear only as the free server's refusals.
    for (const path of ['/api/bulk/json', '/api/v1/bulk/json', '/api/v1/distance']) {
      expect(Object.keys(document.paths[path]?.post.responses ?? {}), path).not.toContain('200');
    }
    expect(document.components.schemas).not.toHaveProperty('BulkRequest');
    expect(document.components).not.toHaveProperty('securitySchemes');
  });

  it('puts the RateLimit fields on every response of a counted operation, a 429 with Retry-After on each /api/ one, and neither on the others', () => {
    expect(Object.keys(document.components.headers)).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit', 'Retry-After']));
    // What the free plan counts (docs/api.md, "The free plan's limits"): /api/ but the status endpoint, and views of /.
    const counted = (method: string, path: string) => (path.startsWith('/api/') ? path !== '/api/v1/status' : path === '/' && ['get', 'head'].includes(method));
    const seen = { counted: 0, uncounted: 0 };
    for (const { path, method, operation } of operations()) {
      const isCounted = counted(method, path);
      seen[isCounted ? 'counted' : 'uncounted']++;
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const headers = Object.keys(response.headers ?? {});
        if (isCounted) expect(headers, `${method} ${path} ${status}`).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit']));
        else
          expect(
            headers.filter((name) => name.startsWith('RateLimit')),
            `${method} ${path} ${status}`,
          ).toEqual([]);
      }
      if (isCounted && path.startsWith('/api/')) {
        expect(operation.responses['429'].description, path).toContain('RATE_LIMITED');
        expect(Object.keys(operation.responses['429'].headers), path).toContain('Retry-After');
      } else expect(operation.responses['429']?.description ?? '', `${method} ${path}`).not.toContain('RATE_LIMITED');
    }
    expect(seen.counted).toBeGreaterThan(0);
    expect(seen.uncounted).toBeGreaterThan(0);
  });

  it('documents the liveness probe without rate-limit fields, as the gate never sees it', async () => {
    expect(Object.keys(document.paths['/health'].get.responses['200'].headers)).toEqual(['Cache-Control', 'X-Content-Type-Options']);
    const probe = await get('/health');
    expect(probe.status).toBe(200);
    expect(probe.headers.get('RateLimit-Policy')).toBeNull();
  });

  it("names the policy that the server sends an IPv4 client, and the limits' figures", async () => {
    const lookup = await get('/api/v1/countrycodes');
    expect(document.components.headers['RateLimit-Policy'].schema.example).toBe(lookup.headers.get('RateLimit-Policy'));
    expect(served.headers.get('RateLimit-Policy')).toBeNull();
    // The figures of docs/api.md's table, in the field's description and the document's.
    for (const text of [document.components.headers['RateLimit-Policy'].description, document.info.description]) {
      for (const figure of [
        '10 requests in any 10 s and 60 in any minute',
        '80 requests in any 10 s and 480 in any minute',
        '640 requests in any 10 s and 3840 in any minute',
      ]) {
        expect(text).toContain(figure);
      }
      expect(text).toContain('RIPE-690');
    }
  });
});

describe('GET /docs on the free server', () => {
  it('serves the reference page with scripts of its own origin only, under a strict Content-Security-Policy', async () => {
    const response = await get('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toMatch(/^text\/html/);
    const csp = response.headers.get('Content-Security-Policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self';");
    const html = await response.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((script) => /src="([^"]+)"/.exec(script[1] ?? '')?.[1])).toEqual(['/docs/vendor/scalar-api-reference.js', '/docs/start.js']);
    expect(scripts.every((script) => script[2] === '')).toBe(true);
    expect(html).not.toMatch(/https?:\/\//);
  });
});
