/**
 * @module What the free server does when a client's rate-limit Durable Object cannot be reached: it
 * keeps answering, and limits that client in the isolate instead, while every other client is still
 * decided by its own object (`src/ratelimit/client.ts`). The outage is made by handing the app or the
 * client a `RATE_LIMITER` namespace whose objects fail, all or some of them (`../support/unreachable.ts`);
 * nothing waits but the timeout of a hanging object (20 ms, and once the production second, where a
 * healthy object must answer within it).
 * Client addresses: 192.0.2.0/24 and 2001:db8:1a00::/40, used by this file only.
 */

import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { clientKey } from '../../src/ip/client-key.ts';
import { RateLimitClient } from '../../src/ratelimit/client.ts';
import type { RateLimiter } from '../../src/ratelimit/rate-limiter.ts';
import { failingNamespace, hangingNamespace, partlyFailingNamespace } from '../support/unreachable.ts';
import { appFetch } from '../support/worker-fetch.ts';

const app = createApp('free');

function getWith(namespace: Env['RATE_LIMITER'], path: string, clientIp: string): Promise<Response> {
  const request = new Request(`http://free.test${path}`, { headers: { 'CF-Connecting-IP': clientIp } });
  return appFetch(app, request, { ...env, RATE_LIMITER: namespace });
}

/** The admitted request times that the real object of `network` holds, of one /64 when `subnet` is given. */
function admitted(network: string, subnet?: number): Promise<number[]> {
  return runInDurableObject(env.RATE_LIMITER.getByName(network), (instance: RateLimiter) => instance.admittedTimes(subnet));
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

  it("decides another client by its own object while one client's object fails", async () => {
    const broken = partlyFailingNamespace(env.RATE_LIMITER, new Set(['192.0.2.10']));
    for (let i = 0; i < 11; i++) await getWith(broken.namespace, '/api/v1/json/8.8.8.8', '192.0.2.10');
    // Within the failing client's retry delay, another client's requests reach its object, each one.
    const other = [];
    for (let i = 0; i < 3; i++) other.push((await getWith(broken.namespace, '/api/v1/json/8.8.8.8', '192.0.2.11')).headers.get('RateLimit'));
    expect(other.map((field) => field?.replace(/;t=\d+$/, ''))).toEqual(['"burst";r=9', '"burst";r=8', '"burst";r=7']);
    expect(broken.calls('192.0.2.11')).toBe(3);
    expect(await admitted('192.0.2.11')).toHaveLength(3);
    // The failing client was asked for once, and limited in the isolate: its eleventh request refused.
    expect(broken.calls('192.0.2.10')).toBe(1);
    expect((await getWith(broken.namespace, '/api/v1/json/8.8.8.8', '192.0.2.10')).status).toBe(429);
  });

  it('puts no RateLimit fields on answers that are not counted, and asks no object for them', async () => {
    const unreachable = failingNamespace();
    const response = await getWith(unreachable.namespace, '/openapi.json', '192.0.2.2');
    expect(response.status).toBe(200);
    expect(response.headers.get('RateLimit')).toBeNull();
    expect(unreachable.calls()).toBe(0);
  });
});

describe('RateLimitClient', () => {
  it('decides in the isolate when the Durable Object does not answer in time', async () => {
    const client = new RateLimitClient({ timeoutMs: 20 });
    const checked = await client.check(hangingNamespace(), clientKey('192.0.2.4'));
    expect(checked.source).toBe('isolate');
    expect(checked.decision.allowed).toBe(true);
  });

  it('asks the Durable Object again once the retry delay has passed', async () => {
    let now = 1_000_000;
    const unreachable = failingNamespace();
    const client = new RateLimitClient({ now: () => now, retryMs: 5_000 });
    await client.check(unreachable.namespace, clientKey('192.0.2.5'));
    await client.check(unreachable.namespace, clientKey('192.0.2.5'));
    expect(unreachable.calls()).toBe(1);
    now += 5_000;
    await client.check(unreachable.namespace, clientKey('192.0.2.5'));
    expect(unreachable.calls()).toBe(2);
  });

  it("keeps deciding every other counter by its object during one counter's retry delay", async () => {
    const now = 2_000_000;
    const failing = clientKey('2001:db8:1a01:1::1');
    const sameNetwork = clientKey('2001:db8:1a01:2::1');
    const healthy = [clientKey('192.0.2.20'), clientKey('2001:db8:1a02:1::1')];
    const broken = partlyFailingNamespace(env.RATE_LIMITER, new Set([failing.network]));
    const client = new RateLimitClient({ now: () => now, retryMs: 5_000 });
    expect((await client.check(broken.namespace, failing)).source).toBe('isolate');
    for (const key of healthy) {
      const sources = [];
      for (let i = 0; i < 3; i++) sources.push((await client.check(broken.namespace, key)).source);
      expect(sources, key.network).toEqual(['durable-object', 'durable-object', 'durable-object']);
      expect(broken.calls(key.network), key.network).toBe(3);
    }
    // The failing object's counter is one /48: its other /64s are decided in the isolate with it.
    expect((await client.check(broken.namespace, sameNetwork)).source).toBe('isolate');
    expect(broken.calls(failing.network)).toBe(1);
  });

  it('decides the /64s of one IPv6 /48 together in the isolate, by the same policies', async () => {
    const client = new RateLimitClient({ now: () => 3_000_000 });
    const unreachable = failingNamespace();
    // Eight /64s of one /56 use its 80 (docs/api.md: burst-56, 80 in 10 s); a ninth /64 is refused by it.
    for (let subnet = 0; subnet < 8; subnet++) {
      for (let i = 0; i < 10; i++) expect((await client.check(unreachable.namespace, clientKey(`2001:db8:1a00:${subnet}::1`))).decision.allowed).toBe(true);
    }
    const refused = await client.check(unreachable.namespace, clientKey('2001:db8:1a00:8::1'));
    expect(refused).toMatchObject({ source: 'isolate', decision: { allowed: false, retryAfterSeconds: 10 } });
    expect(refused.decision.binding).toMatchObject({ policy: { name: 'burst-56' }, remaining: 0 });
    // Another /56 of the same /48 still has room.
    expect((await client.check(unreachable.namespace, clientKey('2001:db8:1a00:100::1'))).decision.allowed).toBe(true);
    expect(unreachable.calls()).toBe(1);
  });

  it('leaves a healthy client decided by its object while another waits on a hanging one', async () => {
    const hanging = hangingNamespace();
    // The production timeout: the healthy object's first answer, which creates it, may take more than 20 ms on a loaded machine.
    const client = new RateLimitClient();
    const [stuck, fine] = await Promise.all([client.check(hanging, clientKey('192.0.2.30')), client.check(env.RATE_LIMITER, clientKey('192.0.2.31'))]);
    expect(stuck.source).toBe('isolate');
    expect(fine.source).toBe('durable-object');
    expect((await client.check(env.RATE_LIMITER, clientKey('192.0.2.31'))).source).toBe('durable-object');
  });
});
