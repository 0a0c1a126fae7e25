/**
 * @module The free server's answers are readable from any web page (CORS `*`, the RateLimit fields
 * exposed), its preflights are answered without being counted, and `/openapi.json` and `/docs` stay
 * open to a client over its limits. The header names are the Fetch standard's; a real browser checks
 * the same answers in `test/browser/`.
 * Client addresses: 100.64.18.0/24 (RFC 6598 shared address space), used by this file only.
 */
import { describe, expect, it } from 'vitest';
import { workerFetch } from '../support/worker-fetch.ts';

const PAGE_ORIGIN = 'https://some-page.test';

function request(path: string, clientIp: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('CF-Connecting-IP', clientIp);
  return workerFetch(`http://free.test${path}`, { ...init, headers });
}

/** The names in a comma-separated header list, lower case. */
const names = (field: string | null) => (field ?? '').split(',').map((name) => name.trim().toLowerCase());

describe('CORS on the free server', () => {
  it('lets any page read a lookup and its RateLimit fields', async () => {
    const response = await request('/api/v1/json/8.8.8.8', '100.64.18.1', { headers: { Origin: PAGE_ORIGIN } });
    expect(response.status).toBe(200);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(response.headers.get('Access-Control-Allow-Credentials')).toBeNull();
    expect(names(response.headers.get('Access-Control-Expose-Headers'))).toEqual(expect.arrayContaining(['ratelimit', 'ratelimit-policy', 'retry-after']));
  });

  it('lets a page read problems: a reserved address, a paid-only endpoint, an unknown route', async () => {
    for (const [path, status] of [
      ['/api/v1/json/10.0.0.1', 400],
      ['/api/v1/countries', 403],
      ['/api/v1/planets', 404],
    ] as const) {
      const response = await request(path, '100.64.18.2', { headers: { Origin: PAGE_ORIGIN } });
      expect(response.status, path).toBe(status);
      expect(response.headers.get('Access-Control-Allow-Origin'), path).toBe('*');
    }
  });

  it('answers a preflight with 204, the methods and headers a page may use, and does not count it', async () => {
    const client = '100.64.18.3';
    for (let i = 0; i < 12; i++) {
      const preflight = await request('/api/v1/bulk/json', client, {
        method: 'OPTIONS',
        headers: { Origin: PAGE_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(names(preflight.headers.get('Access-Control-Allow-Methods'))).toEqual(expect.arrayContaining(['get', 'post']));
      expect(names(preflight.headers.get('Access-Control-Allow-Headers'))).toContain('content-type');
    }
    // Twelve preflights later the client still has its whole burst quota.
    const lookup = await request('/api/v1/json/8.8.8.8', client);
    expect(lookup.status).toBe(200);
    expect(lookup.headers.get('RateLimit')).toMatch(/^"burst";r=9;t=\d+$/);
  });

  it('answers an OPTIONS that is no preflight as before: 405 with Allow', async () => {
    const response = await request('/api/v1/json/8.8.8.8', '100.64.18.4', { method: 'OPTIONS' });
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toContain('GET');
  });

  it('lets a page read the 429 and its Retry-After', async () => {
    const client = '100.64.18.5';
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 11; i++) {
      last = await request('/api/v1/json/8.8.8.8', client, { headers: { Origin: PAGE_ORIGIN } });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect(last?.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(Number(last?.headers.get('Retry-After'))).toBeGreaterThan(0);
  });
});

describe('documentation paths of a client over its limits', () => {
  it('serves /openapi.json and /docs, uncounted and without RateLimit fields, where a lookup answers 429', async () => {
    const client = '100.64.18.6';
    for (let i = 0; i < 10; i++) expect((await request('/api/v1/json/8.8.8.8', client)).status).toBe(200);
    expect((await request('/api/v1/json/8.8.8.8', client)).status).toBe(429);
    for (const path of ['/openapi.json', '/docs']) {
      const response = await request(path, client);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('RateLimit'), path).toBeNull();
    }
    expect((await request('/api/v1/json/8.8.8.8', client)).status).toBe(429);
  });
});
