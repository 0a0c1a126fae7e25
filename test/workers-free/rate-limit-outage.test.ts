/**
 * @module What the free server does when a client's rate-limit Durable Object cannot be reached: it
 * keeps answering, and limits in the isolate instead (`src/ratelimit/client.ts`). The outage is made
 * by handing the app a `RATE_LIMITER` namespace whose objects fail (see `./unreachable.ts`).
 * Client addresses: 192.0.2.0/24, used by this file only.
 */

import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { RateLimitClient } from '../../src/ratelimit/client.ts';
import { failingNamespace, hangingNamespace } from '../support/unreachable.ts';
import { appFetch } from '../support/worker-fetch.ts';

const app = createApp('free');

function getWith(namespace: Env['RATE_LIMITER'], path: string, clientIp: string): Promise<Response> {
  const request = new Request(`http://free.test${path}`, { headers: { 'CF-Connecting-IP': clientIp } });
  return appFetch(app, request, { ...env, RATE_LIMITER: namespace });
}

describe('when the Durable Object cannot be reached', () => {
  it('keeps answering and limits the client in the isolate', async () => {
    const unreachable = failingNamespace();
    const statuses = [];
    const fields = [];
    for (let i = 0; i < 11; i++) {
      const response = await getWith(unreachable.namespace, '/api/v1/json/8.8.8.8', '192.0.2.1');
      statuses.push(response.status);
      fields.push(response.headers.get('RateLimit'));
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect(fields[0]).toMatch(/^"burst";r=9;t=\d+$/);
    expect(fields[10]).toMatch(/^"burst";r=0;t=\d+$/);
    // The first request tried the Durable Object; the next ones, inside the retry delay, did not.
    expect(unreachable.calls()).toBe(1);
  });

  it('keeps RateLimit fields on answers that are not counted', async () => {
    const response = await getWith(failingNamespace().namespace, '/openapi.json', '192.0.2.2');
    expect(response.status).toBe(200);
    expect(response.headers.get('RateLimit')).toBe('"burst";r=10;t=0');
  });
});

describe('RateLimitClient', () => {
  it('decides in the isolate when the Durable Object does not answer in time', async () => {
    const client = new RateLimitClient({ timeoutMs: 20 });
    const checked = await client.check(hangingNamespace(), '192.0.2.4', 'hit');
    expect(checked.source).toBe('isolate');
    expect(checked.decision.allowed).toBe(true);
  });

  it('asks the Durable Object again once the retry delay has passed', async () => {
    let now = 1_000_000;
    const unreachable = failingNamespace();
    const client = new RateLimitClient({ now: () => now, retryMs: 5_000 });
    await client.check(unreachable.namespace, '192.0.2.5', 'hit');
    await client.check(unreachable.namespace, '192.0.2.5', 'hit');
    expect(unreachable.calls()).toBe(1);
    now += 5_000;
    await client.check(unreachable.namespace, '192.0.2.5', 'hit');
    expect(unreachable.calls()).toBe(2);
    now += 5_000;
    const healthy = await client.check(env.RATE_LIMITER, '192.0.2.6', 'hit');
    expect(healthy.source).toBe('durable-object');
  });
});
