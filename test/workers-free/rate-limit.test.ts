/**
 * @module The free plan's rate limits (docs/specification.md, 8; docs/api.md, "The free plan's limits"): through the Worker for
 * concurrency and headers, and on the Durable Object itself, with the time passed in, for the windows.
 * The object's state is read inside it with `runInDurableObject`, never by waiting.
 * Client addresses: 198.51.100.0/24 and 2001:db8:100::/48, used by this file only.
 */

import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../operator/keys.ts';
import { createAccount } from '../../operator/lifecycle.ts';
import type { RateLimiter } from '../../src/ratelimit/rate-limiter.ts';
import { type Admitted, admit, CLIENT_POLICIES, IPV6_POLICIES, type LimitDecision, policiesOf } from '../../src/ratelimit/window.ts';
import { packDecision, unpackDecision } from '../../src/ratelimit/wire.ts';
import { seededRandom } from '../support/seeded-random.ts';
import { workerFetch } from '../support/worker-fetch.ts';

const POLICY = '"burst";q=10;w=10, "minute";q=60;w=60';

function get(path: string, clientIp: string, headers: Record<string, string> = {}): Promise<Response> {
  return workerFetch(`http://free.test${path}`, { headers: { 'CF-Connecting-IP': clientIp, ...headers } });
}

/** The admitted request times that a counter's Durable Object holds in memory, of one /64 when `subnet` is given (none before its first request). */
function admitted(network: string, subnet?: number): Promise<number[]> {
  return runInDurableObject(env.RATE_LIMITER.getByName(network), (instance: RateLimiter) => instance.admittedTimes(subnet));
}

/** What the object keeps in storage: its own tables (the runtime's `_cf_*` and SQLite's own aside) and its alarm. */
function storageOf(key: string): Promise<{ tables: string[]; alarm: number | null }> {
  return runInDurableObject(env.RATE_LIMITER.getByName(key), async (_: RateLimiter, state) => ({
    tables: state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((row) => row.name)
      .filter((name) => !name.startsWith('_cf_') && !name.startsWith('sqlite_')),
    alarm: await state.storage.getAlarm(),
  }));
}

/** A direct call of an IPv4 counter's object, as the Worker makes it, with the answer unpacked. */
async function hit(key: string, now?: number): Promise<LimitDecision> {
  return unpackDecision(await env.RATE_LIMITER.getByName(key).hit(null, now));
}

/** `"burst";r=9;t=10` → { name: 'burst', r: 9, t: 10 }. */
function parseRateLimit(field: string | null): { name: string; r: number; t: number } {
  const match = /^"([\w-]+)";r=(\d+);t=(\d+)$/.exec(field ?? '');
  if (!match) throw new Error(`not a RateLimit field: ${field}`);
  return { name: match[1] ?? '', r: Number(match[2]), t: Number(match[3]) };
}

describe('through the Worker', () => {
  // The isolate loads the database first, on a request of its own: its load, seconds of CPU on a busy
  // machine, would otherwise hold up the first decisions past the limiter's wait for the Durable
  // Object, and the isolate would decide them instead (src/ratelimit/client.ts).
  beforeAll(async () => {
    expect((await get('/api/v1/json/8.8.8.8', '198.51.100.254')).status).toBe(200);
  });

  it('admits exactly 10 of 30 concurrent requests from one client', async () => {
    const responses = await Promise.all(Array.from({ length: 30 }, () => get('/api/v1/json/8.8.8.8', '198.51.100.1')));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    for (const response of responses.filter((r) => r.status === 429)) {
      expect(response.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
      expect(((await response.json()) as { code: string }).code).toBe('RATE_LIMITED');
    }
    expect(await admitted('198.51.100.1')).toHaveLength(10);
  });

  it('counts RateLimit down to 0, then refuses with Retry-After', async () => {
    for (let left = 9; left >= 0; left--) {
      const response = await get('/api/v1/json/8.8.8.8', '198.51.100.2');
      expect(response.status).toBe(200);
      expect(response.headers.get('RateLimit-Policy')).toBe(POLICY);
      const field = parseRateLimit(response.headers.get('RateLimit'));
      expect(field).toMatchObject({ name: 'burst', r: left });
      expect(field.t).toBeGreaterThanOrEqual(1);
      expect(field.t).toBeLessThanOrEqual(10);
    }
    const refused = await get('/api/v1/json/8.8.8.8', '198.51.100.2');
    expect(refused.status).toBe(429);
    const field = parseRateLimit(refused.headers.get('RateLimit'));
    expect(field).toMatchObject({ name: 'burst', r: 0 });
    expect(refused.headers.get('Retry-After')).toBe(String(field.t));
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED', instance: '/api/v1/json/8.8.8.8' });
  });

  it('keeps separate counters for two clients', async () => {
    await Promise.all(Array.from({ length: 10 }, () => get('/api/v1/json/8.8.8.8', '198.51.100.3')));
    expect((await get('/api/v1/json/8.8.8.8', '198.51.100.3')).status).toBe(429);
    const other = await get('/api/v1/json/8.8.8.8', '198.51.100.4');
    expect(other.status).toBe(200);
    expect(parseRateLimit(other.headers.get('RateLimit')).r).toBe(9);
  });

  it('counts the addresses of one IPv6 /64 together, and another /64 apart', async () => {
    const statuses = [];
    for (let i = 1; i <= 11; i++) statuses.push((await get('/api/v1/json/8.8.8.8', `2001:db8:100:1::${i.toString(16)}`)).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect(await admitted('2001:db8:100::/48', 1)).toHaveLength(10);
    expect((await get('/api/v1/json/8.8.8.8', '2001:db8:100:2::1')).status).toBe(200);
  });

  it('ignores an API key of a paid account', async () => {
    await createAccount(env.ACCOUNTS, 'free-rate-limit-test');
    const { key } = await createApiKey(env.ACCOUNTS, 'free-rate-limit-test');
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await get('/api/v1/json/8.8.8.8', '198.51.100.5', { Authorization: `Bearer ${key}` })).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
  });

  it('puts the RateLimit fields on 400, 404 and 405 problems, and counts them', async () => {
    const invalid = await get('/api/v1/json/1.2.3', '198.51.100.6');
    const missing = await get('/api/v1/nothing', '198.51.100.6');
    const xmlInvalid = await get('/api/v1/xml/1.2.3', '198.51.100.6');
    const wrongMethod = await workerFetch('http://free.test/api/v1/json/8.8.8.8', {
      method: 'DELETE',
      headers: { 'CF-Connecting-IP': '198.51.100.6' },
    });
    expect([invalid.status, missing.status, xmlInvalid.status, wrongMethod.status]).toEqual([400, 404, 400, 405]);
    expect(xmlInvalid.headers.get('Content-Type')).toMatch(/^application\/problem\+xml/);
    expect([invalid, missing, xmlInvalid, wrongMethod].map((r) => r.headers.get('RateLimit-Policy'))).toEqual(Array(4).fill(POLICY));
    expect([invalid, missing, xmlInvalid, wrongMethod].map((r) => parseRateLimit(r.headers.get('RateLimit')).r)).toEqual([9, 8, 7, 6]);
  });

  it('counts requests without CF-Connecting-IP under one shared key', async () => {
    const before = (await admitted('unknown')).length;
    await workerFetch('http://free.test/api/v1/json/8.8.8.8');
    expect(await admitted('unknown')).toHaveLength(before + 1);
  });
});

describe('RateLimiter Durable Object', () => {
  const t0 = Math.floor(Date.now() / 1000) * 1000;

  it('refuses an eleventh request in any 10 seconds, not only in fixed buckets', async () => {
    // Ten requests from t0+5 s to t0+9.5 s: they straddle any bucket edge at t0+10 s.
    for (let i = 0; i < 10; i++) expect((await hit('window-test-1', t0 + 5_000 + i * 500)).allowed).toBe(true);
    const refused = await hit('window-test-1', t0 + 14_999);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    // At t0+15 s the request of t0+5 s has left the window (now − 10 s, now]: one place, no more.
    expect((await hit('window-test-1', t0 + 15_000)).allowed).toBe(true);
    expect((await hit('window-test-1', t0 + 15_001)).allowed).toBe(false);
    expect(await admitted('window-test-1')).toEqual([...Array.from({ length: 10 }, (_, i) => t0 + 5_000 + i * 500), t0 + 15_000]);
  });

  it('holds the minute limit across 10-second windows', async () => {
    // Ten requests at the start of each of six 10-second windows: 60 in the minute.
    for (let window = 0; window < 6; window++) {
      for (let i = 0; i < 10; i++) expect((await hit('window-test-2', t0 + window * 10_000 + i)).allowed).toBe(true);
    }
    const log = await admitted('window-test-2');
    expect(log).toHaveLength(60);
    const refused = await hit('window-test-2', t0 + 59_999);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    // Both windows are full and both give a request back in 1 s; the tie goes to the first, the burst.
    expect(refused.binding).toEqual({ policy: CLIENT_POLICIES[0], remaining: 0, resetSeconds: 1 });
    // Just after the last window's requests leave the burst window, the minute still counts the
    // five windows before: only the first window's ten requests are forgotten.
    const after = await hit('window-test-2', t0 + 60_010);
    expect(after.allowed).toBe(true);
    const states = admit(
      (await admitted('window-test-2')).map((at) => ({ at, subnet: 0 })),
      t0 + 60_010,
      { consume: false },
    ).states.map(({ policy, remaining, resetSeconds }) => [policy.name, remaining, resetSeconds]);
    expect(states).toEqual([
      ['burst', 9, 10],
      ['minute', 9, 10],
    ]);
    const kept = await admitted('window-test-2');
    expect(kept).toHaveLength(51);
    expect(kept[0]).toBe(t0 + 10_000);
  });

  it('does not count refused requests', async () => {
    for (let i = 0; i < 10; i++) await hit('window-test-3', t0 + i);
    for (let i = 0; i < 50; i++) expect((await hit('window-test-3', t0 + 1_000 + i)).allowed).toBe(false);
    expect(await admitted('window-test-3')).toHaveLength(10);
    expect((await hit('window-test-3', t0 + 10_000)).allowed).toBe(true);
  });

  it('answers Retry-After from the latest of the exhausted windows', async () => {
    for (let i = 0; i < 10; i++) await hit('window-test-4', t0 + i * 100);
    // Burst full since t0+0.9 s; the first of them leaves at t0+10 s.
    expect(await hit('window-test-4', t0 + 2_500)).toMatchObject({ allowed: false, retryAfterSeconds: 8 });
    expect(await hit('window-test-4', t0 + 9_999)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
  });

  it('counts on its own clock when no time is passed', async () => {
    const before = Date.now();
    expect((await hit('window-test-5')).binding).toEqual({ policy: CLIENT_POLICIES[0], remaining: 9, resetSeconds: 10 });
    const [at] = await admitted('window-test-5');
    expect(at).toBeGreaterThanOrEqual(before);
  });

  it('keeps its log in memory only: no table, no alarm', async () => {
    for (let i = 0; i < 11; i++) await hit('window-test-6', t0 + i);
    await env.RATE_LIMITER.getByName('window-test-6').refund(null, t0 + 20);
    expect(await admitted('window-test-6')).toHaveLength(9);
    expect(await storageOf('window-test-6')).toEqual({ tables: [], alarm: null });
  });

  it("takes back only the refunding client's admission of an IPv6 counter", async () => {
    const stub = env.RATE_LIMITER.getByName('refund-test-48');
    await stub.hit(7, t0);
    await stub.hit(8, t0 + 1);
    const after = unpackDecision(await stub.refund(7, t0 + 2), IPV6_POLICIES);
    expect(after.binding).toEqual({ policy: IPV6_POLICIES[0], remaining: 10, resetSeconds: 0 });
    expect(await runInDurableObject(stub, (instance: RateLimiter) => [instance.admittedTimes(7), instance.admittedTimes(8)])).toEqual([[], [t0 + 1]]);
  });
});

describe('packDecision', () => {
  /** Every decision of a walk: one request every `step` ms for `seconds`, the i-th from `subnetOf(i)`, through `admit`. */
  function walk(subnetOf: (i: number) => number | null, step: number, seconds: number): { decision: LimitDecision; subnet: number | null }[] {
    let log: readonly Admitted[] = [];
    const decisions = [];
    for (let at = 0, i = 0; at < seconds * 1000; at += step, i++) {
      const subnet = subnetOf(i);
      const admission = admit(log, at, { subnet });
      decisions.push({ decision: admission.decision, subnet });
      log = admission.log;
    }
    return decisions;
  }

  it('carries every decision of a client over the RPC unchanged', () => {
    const decisions = [
      ...walk(() => null, 137, 150),
      // 100 /64s of one /56, then 100 /56s of one /48, at 100 requests a second: their aggregates bind.
      ...walk((i) => i % 100, 10, 70),
      ...walk((i) => (i % 100) << 8, 10, 70),
    ];
    const refusedBy = new Set(decisions.filter(({ decision }) => !decision.allowed).map(({ decision }) => decision.binding.policy.name));
    expect([...refusedBy]).toEqual(expect.arrayContaining(['burst', 'burst-56', 'burst-48']));
    for (const { decision, subnet } of decisions) expect(unpackDecision(packDecision(decision, policiesOf(subnet)), policiesOf(subnet))).toEqual(decision);
  });

  it('packs the first request of a client as the documented number', () => {
    // Burst (index 0) binds with 9 left and 10 s to go; no wait. Digits, most significant first: the
    // index, remaining (radix: the largest quota + 1), reset and retry (radix: the longest window + 1, 61).
    expect(packDecision(admit([], 0).decision)).toBe(((0 * 61 + 9) * 61 + 10) * 61);
    expect(packDecision(admit([], 0, { subnet: 5 }).decision, IPV6_POLICIES)).toBe(((0 * 3841 + 9) * 61 + 10) * 61);
  });

  it('refuses a value outside its range, and a policy of another set', () => {
    const decision = admit([], 0).decision;
    expect(() => packDecision({ ...decision, retryAfterSeconds: 61 })).toThrow(RangeError);
    expect(() => packDecision({ ...decision, binding: { ...decision.binding, remaining: 61 } })).toThrow(RangeError);
    const ipv6 = admit([], 0, { subnet: 1, policies: IPV6_POLICIES.slice(2) }).decision;
    expect(() => packDecision(ipv6)).toThrow(RangeError);
  });
});

describe('admit', () => {
  it('decides a /48 of many /64s and /56s as the rule says, counted naively', () => {
    // The rule (docs/api.md, "The free plan's limits"): admitted when every policy has fewer than its quota
    // of admitted requests from its network in its window; counted here entry by entry.
    const random = seededRandom(38);
    const sameNetwork = (a: number, b: number, prefixLength: number) => a >>> (64 - prefixLength) === b >>> (64 - prefixLength);
    let log: readonly Admitted[] = [];
    const naive: { at: number; subnet: number }[] = [];
    let at = 0;
    let refusedByNetwork = 0;
    for (let i = 0; i < 6_000; i++) {
      at += Math.floor(random() * 40);
      // Mostly a few busy /64s of two /56s, sometimes any /64 of the /48.
      const subnet = random() < 0.8 ? Math.floor(random() * 2) * 256 + Math.floor(random() * 12) : Math.floor(random() * 65_536);
      const counts = IPV6_POLICIES.map(
        (policy) => naive.filter((entry) => entry.at > at - policy.windowSeconds * 1000 && sameNetwork(entry.subnet, subnet, policy.prefixLength)).length,
      );
      const expected = IPV6_POLICIES.every((policy, p) => (counts[p] as number) < policy.quota);
      const admission = admit(log, at, { subnet });
      expect(admission.decision.allowed, `request ${i}`).toBe(expected);
      expect(admission.states.map((state) => state.remaining)).toEqual(
        IPV6_POLICIES.map((policy, p) => Math.max(0, policy.quota - (counts[p] as number) - (expected ? 1 : 0))),
      );
      if (!expected && (counts[0] as number) < 10) refusedByNetwork++;
      if (expected) naive.push({ at, subnet });
      log = admission.log;
    }
    expect(refusedByNetwork).toBeGreaterThan(0);
  });

  it('refuses by a longer window when the shorter one has room', () => {
    // Policies other than the free plan's, where the longer window can bind on its own.
    const short = { name: 'short', quota: 2, windowSeconds: 1, prefixLength: 64 } as const;
    const long = { name: 'long', quota: 3, windowSeconds: 10, prefixLength: 64 } as const;
    const policies = [short, long];
    let log: readonly Admitted[] = [];
    for (const at of [0, 100, 2_000]) {
      const admission = admit(log, at, { policies });
      expect(admission.decision.allowed).toBe(true);
      log = admission.log;
    }
    const refused = admit(log, 5_000, { policies });
    expect(refused.decision).toEqual({ allowed: false, retryAfterSeconds: 5, binding: { policy: long, remaining: 0, resetSeconds: 5 } });
    expect(refused.states).toEqual([
      { policy: short, remaining: 2, resetSeconds: 0 },
      { policy: long, remaining: 0, resetSeconds: 5 },
    ]);
    expect(refused.log.map((entry) => entry.at)).toEqual([0, 100, 2_000]);
    expect(admit(log, 10_000, { policies }).decision.allowed).toBe(true);
  });
});
