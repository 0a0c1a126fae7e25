/**
 * @module Many concurrent paid requests across the expiry of the per-isolate account cache: each
 * request goes through the Worker's own entry (`exports.default`), so each runs in its own request
 * context, as in production, and a request that awaited I/O another request started would fail
 * ("Cannot perform I/O on behalf of a different request"). The clock is moved with fake timers
 * (only `Date`), never waited for. Accounts `concurrent-*`, client address 203.0.113.80 and hostname
 * app.concurrent.example: this file only.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiKey } from '../../operator/keys.ts';
import { createAccount } from '../../operator/lifecycle.ts';
import { allowDomain, allowIp } from '../../operator/whitelists.ts';
import { workerFetch } from '../support/worker-fetch.ts';

/** How long an isolate serves what it read from KV, as docs/accounts.md states it ("for **30 seconds**"). */
const CACHE_MS = 30_000;

const WHITELISTED_IP = '203.0.113.80';
const OTHER_IP = '203.0.113.81';
const ORIGIN = 'https://app.concurrent.example';
let key = '';

beforeAll(async () => {
  await createAccount(env.ACCOUNTS, 'concurrent-mixed');
  key = (await createApiKey(env.ACCOUNTS, 'concurrent-mixed')).key;
  await allowIp(env.ACCOUNTS, 'concurrent-mixed', WHITELISTED_IP);
  await allowDomain(env.ACCOUNTS, 'concurrent-mixed', 'app.concurrent.example');
});

afterEach(() => {
  vi.useRealTimers();
});

/** Request `i` of a round: by key, by whitelisted address or by whitelisted origin, in turn. */
function mixedRequest(i: number): Promise<Response> {
  const headers = new Headers({ 'CF-Connecting-IP': OTHER_IP });
  if (i % 3 === 0) headers.set('Authorization', `Bearer ${key}`);
  if (i % 3 === 1) headers.set('CF-Connecting-IP', WHITELISTED_IP);
  if (i % 3 === 2) headers.set('Origin', ORIGIN);
  return workerFetch(`https://de.ipgeo.test/api/json/8.8.${i % 256}.8`, { headers });
}

describe('concurrent paid requests', () => {
  it('all answer 200 in rounds that each begin after the cache entries expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const statuses = new Map<number, number>();
    for (let round = 0; round < 6; round++) {
      vi.setSystemTime(start + round * (CACHE_MS + 1));
      const responses = await Promise.all(Array.from({ length: 48 }, (_, i) => mixedRequest(round * 48 + i)));
      for (const response of responses) {
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        await response.arrayBuffer();
      }
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 6 * 48 });
  });
});
