/**
 * @module `X-Content-Type-Options: nosniff` on every kind of answer of a paid server: lookups, a bulk
 * lookup, reference data, the access gate's refusals, the short home page, `/docs`, `/openapi.json`
 * and `/health` (the free server's answers: test/workers-free/no-sniffing.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { PAID_ORIGIN, paidFetch, postJson } from '../support/paid-fetch.ts';
import { workerFetch } from '../support/worker-fetch.ts';

describe('X-Content-Type-Options on every answer of a paid server', () => {
  const withKey: [string, () => Promise<Response>, number][] = [
    ['a JSON lookup', () => paidFetch('/api/json/81.2.69.142'), 200],
    ['an XML lookup', () => paidFetch('/api/xml/81.2.69.142'), 200],
    ['a bulk lookup', () => postJson('/api/bulk/json', { ips: ['81.2.69.142', '10.0.0.1'] }), 200],
    ['a country', () => paidFetch('/api/countries/GB'), 200],
    ['a 400 problem', () => paidFetch('/api/json/10.0.0.1'), 400],
    ['a 415 problem', () => paidFetch('/api/bulk/json', { method: 'POST', body: '{}' }), 415],
  ];
  const withoutKey: [string, string, RequestInit, number][] = [
    ['a 401 problem', '/api/json/81.2.69.142', {}, 401],
    ['a 403 refused origin', '/api/json/81.2.69.142', { headers: { Origin: 'https://nobody.example' } }, 403],
    ['the home page', '/', {}, 200],
    ['/docs', '/docs', {}, 200],
    ['/openapi.json', '/openapi.json', {}, 200],
    ['/health', '/health', {}, 200],
  ];
  for (const [kind, send, status] of withKey) {
    it(`is on ${kind}`, async () => {
      const response = await send();
      expect(response.status).toBe(status);
      expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
    });
  }
  for (const [kind, path, init, status] of withoutKey) {
    it(`is on ${kind}`, async () => {
      const response = await workerFetch(`${PAID_ORIGIN}${path}`, { ...init, headers: { 'CF-Connecting-IP': '198.18.37.200', ...init.headers } });
      expect(response.status).toBe(status);
      expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
    });
  }
});
