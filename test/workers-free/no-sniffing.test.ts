/**
 * @module `X-Content-Type-Options: nosniff` on every kind of answer of the free server: lookups in JSON
 * and XML, HEAD, problems (400, 403, 404, 405, 429 and a 500 from the entry), a CORS preflight, the
 * home page, `/docs`, `/openapi.json` and `/health`. Static files get it from `assets/_headers`
 * (test/browser/browser.test.ts, against `wrangler dev`). Client addresses 198.18.37.*: this file only.
 */
import { createExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index.ts';
import { expectDescribed, workerFetch } from '../support/worker-fetch.ts';

const client = (last: number) => ({ 'CF-Connecting-IP': `198.18.37.${last}` });

describe('X-Content-Type-Options on every answer of the free server', () => {
  const kinds: [string, string, RequestInit, number][] = [
    ['a JSON lookup', '/api/v1/json/81.2.69.142', { headers: client(1) }, 200],
    ['an XML lookup', '/api/v1/xml/81.2.69.142', { headers: client(1) }, 200],
    ['a HEAD of a lookup', '/api/v1/json/81.2.69.142', { method: 'HEAD', headers: client(1) }, 200],
    ['a 400 problem', '/api/v1/json/10.0.0.1', { headers: client(2) }, 400],
    ['a 403 problem', '/api/v1/bulk/json', { method: 'POST', headers: client(2) }, 403],
    ['a 404 problem in XML', '/api/v1/xml/nothing/here', { headers: client(2) }, 404],
    ['a 405 problem', '/openapi.json', { method: 'DELETE', headers: client(2) }, 405],
    ['a CORS preflight', '/api/v1/json/8.8.8.8', { method: 'OPTIONS', headers: { Origin: 'https://page.test', 'Access-Control-Request-Method': 'GET' } }, 204],
    ['the home page', '/?ip=81.2.69.142', { headers: client(3) }, 200],
    ['/docs', '/docs', {}, 200],
    ['/openapi.json', '/openapi.json', {}, 200],
    ['/health', '/health', {}, 200],
  ];
  for (const [kind, path, init, status] of kinds) {
    it(`is on ${kind}`, async () => {
      const response = await workerFetch(`http://free.test${path}`, init);
      expect(response.status).toBe(status);
      expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
    });
  }

  it('is on a 429 problem', async () => {
    let response: Response | undefined;
    for (let request = 0; request < 11; request++) response = await workerFetch('http://free.test/api/v1/json/8.8.8.8', { headers: client(4) });
    expect(response?.status).toBe(429);
    expect(response?.headers.get('X-Content-Type-Options')).toBe('nosniff');
  });

  it('is on a 500 problem from the entry, when the app cannot even be made', async () => {
    const broken = new Proxy({} as Env, {
      get() {
        throw new Error('no bindings');
      },
    });
    const request = new Request<unknown, IncomingRequestCfProperties>('http://free.test/api/v1/json/8.8.8.8');
    const response = await expectDescribed(request, await worker.fetch(request, broken, createExecutionContext()));
    expect(response.status).toBe(500);
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
  });
});
