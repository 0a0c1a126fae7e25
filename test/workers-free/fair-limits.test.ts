/**
 * @module Which answers count against the free plan's limits (`src/ratelimit/middleware.ts`,
 * docs/api.md "Conventions"): the service's own failures (5xx) do not, the client's errors (4xx) do. The database
 * is made unavailable by deleting its R2 current record, as an operator's mistake would. A 5xx costs two
 * Durable Object calls, its count and its refund (README.md, "Free plan").
 * Client addresses: 2001:db8:1900::/48 (its own /64s for each test), used by this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { resetDatabaseForTests } from '../../src/geo/current-database.ts';
import { CURRENT_RECORD_KEY } from '../../src/geo/published.ts';
import { publishCompiled } from '../support/publish.ts';
import { countingNamespace, failingNamespace, refundFailingNamespace } from '../support/unreachable.ts';
import { appFetch, workerFetch } from '../support/worker-fetch.ts';

function get(path: string, clientIp: string): Promise<Response> {
  return workerFetch(`http://free.test${path}`, { headers: { 'CF-Connecting-IP': clientIp } });
}

/** Runs `during` while the database cannot be loaded, then puts it back. */
async function withoutDatabase(during: () => Promise<void>): Promise<void> {
  try {
    await env.GEO_DATA.delete(CURRENT_RECORD_KEY);
    resetDatabaseForTests();
    await during();
  } finally {
    await publishCompiled();
    resetDatabaseForTests();
  }
}

describe('what counts against the free limits', () => {
  it('does not count 503 answers of an unavailable database', async () => {
    const client = '2001:db8:1900:1::1';
    await withoutDatabase(async () => {
      for (let i = 0; i < 15; i++) {
        const response = await get('/api/v1/json/8.8.8.8', client);
        expect([response.status, response.headers.get('RateLimit')], `request ${i}`).toEqual([503, '"burst";r=10;t=0']);
        expect(response.headers.get('Retry-After')).toBe('5');
      }
    });
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await get('/api/v1/json/8.8.8.8', client)).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
  });

  it('counts 4xx answers: invalid and reserved addresses, unknown routes, paid-only endpoints', async () => {
    const client = '2001:db8:1900:2::1';
    const paths = ['/api/v1/json/999.1.1.1', '/api/v1/json/10.0.0.1', '/api/v1/nothing', '/api/v1/countries', '/api/v1/json/not-an-address'];
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await get(paths[i % paths.length] as string, client)).status);
    expect(statuses.every((status) => status >= 400 && status < 500 && status !== 429)).toBe(true);
    expect((await get('/api/v1/json/8.8.8.8', client)).status).toBe(429);
  });

  it('takes a 503 back with a second Durable Object call, and answers when that call fails, leaving it counted', async () => {
    const app = createApp('free');
    const counting = countingNamespace(env.RATE_LIMITER);
    const counted = { ...env, RATE_LIMITER: counting.namespace };
    const refundFails = { ...env, RATE_LIMITER: refundFailingNamespace(env.RATE_LIMITER) };
    const lookup = (client: string) => new Request('http://free.test/api/v1/json/8.8.8.8', { headers: { 'CF-Connecting-IP': client } });
    const send = () => appFetch(app, lookup('2001:db8:1900:4::1'), refundFails);
    await withoutDatabase(async () => {
      for (let i = 0; i < 3; i++) expect((await appFetch(app, lookup('2001:db8:1900:5::1'), counted)).status).toBe(503);
      expect(counting.calls()).toBe(6);
      const answers = [];
      for (let i = 0; i < 3; i++) {
        const response = await send();
        answers.push([response.status, response.headers.get('RateLimit')?.replace(/;t=\d+$/, '')]);
      }
      expect(answers).toEqual([
        [503, '"burst";r=9'],
        [503, '"burst";r=8'],
        [503, '"burst";r=7'],
      ]);
    });
  });

  // An unreachable Durable Object switches its own counter (this client's /48) to the isolate for 5 s, no other.
  it('takes back a 503 in the isolate too while the Durable Object cannot be reached', async () => {
    const app = createApp('free');
    const unreachable = { ...env, RATE_LIMITER: failingNamespace().namespace };
    const client = '2001:db8:1900:3::1';
    const send = () => appFetch(app, new Request('http://free.test/api/v1/json/8.8.8.8', { headers: { 'CF-Connecting-IP': client } }), unreachable);
    await withoutDatabase(async () => {
      for (let i = 0; i < 12; i++) expect((await send()).headers.get('RateLimit')).toBe('"burst";r=10;t=0');
    });
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await send()).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
  });
});
