/**
 * @module `GET /health`, the liveness probe: a fixed answer before any middleware, so no rate limit,
 * no access check and no database.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { resetDatabaseForTests } from '../../src/geo/current-database.ts';
import { CURRENT_RECORD_KEY } from '../../src/geo/published.ts';
import { publishCompiled } from '../support/publish.ts';
import { workerFetch } from '../support/worker-fetch.ts';

describe('the liveness probe', () => {
  it('answers a fixed, uncached ok', async () => {
    const response = await workerFetch('http://free.test/health');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toBe('ok');
    expect((await workerFetch('http://free.test/health', { method: 'HEAD' })).status).toBe(200);
  });

  it('is not counted or reported by the rate limiter, however often it is asked', async () => {
    for (let i = 0; i < 30; i++) {
      const response = await workerFetch('http://free.test/health', { headers: { 'CF-Connecting-IP': '198.18.250.1' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit')).toBeNull();
      await response.arrayBuffer();
    }
  });

  it('answers while the database cannot be read', async () => {
    try {
      await env.GEO_DATA.delete(CURRENT_RECORD_KEY);
      resetDatabaseForTests();
      expect((await workerFetch('http://free.test/health')).status).toBe(200);
    } finally {
      await publishCompiled();
      resetDatabaseForTests();
    }
  });
});
