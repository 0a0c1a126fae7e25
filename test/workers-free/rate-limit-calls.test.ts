/**
 * @module What the free plan's rate limiting costs in Durable Object calls (docs/api.md, "The free plan's
 * limits"): none for the requests it never counts, one for a counted one (a 5xx adds its refund:
 * fair-limits.test.ts). The calls are counted by a wrapper of the real `RATE_LIMITER` binding
 * (`../support/unreachable.ts`) that the app is given.
 * Client addresses: 192.0.2.40 to 192.0.2.49 and 2001:db8:1b00::/48, used by this file only.
 */

import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { countingNamespace } from '../support/unreachable.ts';
import { appFetch } from '../support/worker-fetch.ts';

const app = createApp('free');

/** Requests the free plan never counts: the status endpoint, the probe, the API's description, static files, preflights, pages that are not counted. */
const UNCOUNTED: readonly { readonly method: string; readonly path: string; readonly status: number; readonly headers?: Record<string, string> }[] = [
  { method: 'GET', path: '/api/v1/status', status: 200 },
  { method: 'HEAD', path: '/api/v1/status', status: 200 },
  { method: 'GET', path: '/health', status: 200 },
  { method: 'GET', path: '/docs', status: 200 },
  { method: 'GET', path: '/openapi.json', status: 200 },
  // Static files are served before the Worker runs; one that does not exist reaches it, as these do here.
  { method: 'GET', path: '/home/home.css', status: 404 },
  { method: 'GET', path: '/docs/vendor/scalar-api-reference.js', status: 404 },
  { method: 'OPTIONS', path: '/api/v1/json/8.8.8.8', status: 204, headers: { Origin: 'https://page.example', 'Access-Control-Request-Method': 'GET' } },
  { method: 'POST', path: '/', status: 405 },
  { method: 'GET', path: '/no-such-page', status: 404 },
];

function send(namespace: Env['RATE_LIMITER'], method: string, path: string, clientIp: string, headers: Record<string, string> = {}): Promise<Response> {
  const request = new Request(`http://free.test${path}`, { method, headers: { 'CF-Connecting-IP': clientIp, ...headers } });
  return appFetch(app, request, { ...env, RATE_LIMITER: namespace });
}

describe('Durable Object calls of the free plan', () => {
  for (const clientIp of ['192.0.2.40', '2001:db8:1b00:1::1']) {
    it(`makes none for a request it does not count, and puts no RateLimit fields on it (${clientIp})`, async () => {
      const counting = countingNamespace(env.RATE_LIMITER);
      for (const { method, path, status, headers } of UNCOUNTED) {
        const response = await send(counting.namespace, method, path, clientIp, headers);
        expect(response.status, `${method} ${path}`).toBe(status);
        expect([response.headers.get('RateLimit'), response.headers.get('RateLimit-Policy')], `${method} ${path}`).toEqual([null, null]);
      }
      expect(counting.calls()).toBe(0);
    });
  }

  it('makes exactly one for a counted request, a refused one included', async () => {
    const counting = countingNamespace(env.RATE_LIMITER);
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await send(counting.namespace, 'GET', '/api/v1/json/8.8.8.8', '192.0.2.41')).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect(counting.calls()).toBe(11);
    expect((await send(counting.namespace, 'GET', '/?ip=8.8.8.8', '192.0.2.42')).status).toBe(200);
    expect(counting.calls()).toBe(12);
  });
});
