/**
 * @module The free plan's IPv6 aggregates: many /64s of one /56, or of one /48, use up the network's
 * quota together; the RateLimit fields name the policy that binds; another /56 or /48 is unaffected.
 * The figures are read from the table of docs/api.md ("The free plan's limits"), never from the code.
 * Windows are walked on the Durable Object with the time passed in (a minute policy, six times its
 * burst, never binds alone, so the burst policies are what decisions show). Through the Worker, a
 * network is first filled by direct calls of its object on its own clock (well inside 10 s), then asked
 * through the Worker, whose answers are checked against the OpenAPI document.
 * Client addresses: 2001:db8:5600::/40, used by this file only.
 */

import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { IPV6_POLICIES } from '../../src/ratelimit/window.ts';
import { unpackDecision } from '../../src/ratelimit/wire.ts';
import { workerFetch } from '../support/worker-fetch.ts';

/** One row of docs/api.md's table of the free plan's policies. */
interface Documented {
  readonly name: string;
  readonly quota: number;
  readonly windowSeconds: number;
}

/** The policies as docs/api.md states them, in the table's order. */
let documented: readonly Documented[] = [];

/** The documented quota of `name`. */
const quota = (name: string): number => documented.find((row) => row.name === name)?.quota ?? Number.NaN;

beforeAll(async () => {
  const text = await (await (env as unknown as { REPO_FILES: Fetcher }).REPO_FILES.fetch('http://repo/docs/api.md')).text();
  const section = text.slice(text.indexOf("### The free plan's limits"), text.indexOf('### Look up an address'));
  documented = [...section.matchAll(/^\| `([\w-]+)` \| [^|]+ \| (\d+) \| (\d+) s \|$/gm)].map((row) => ({
    name: row[1] ?? '',
    quota: Number(row[2]),
    windowSeconds: Number(row[3]),
  }));
  expect(documented.map((row) => row.name)).toEqual(['burst', 'minute', 'burst-56', 'minute-56', 'burst-48', 'minute-48']);
});

/** The `RateLimit-Policy` field docs/api.md's table makes for `names`. */
function policyField(names: readonly string[]): string {
  return documented
    .filter((row) => names.includes(row.name))
    .map((row) => `"${row.name}";q=${row.quota};w=${row.windowSeconds}`)
    .join(', ');
}

/** A call of the object of a /48 for its /64 `subnet`, as the Worker makes it, at `now` (its own clock when omitted): whether it was admitted. */
async function hit(network: string, subnet: number, now?: number): Promise<boolean> {
  return unpackDecision(await env.RATE_LIMITER.getByName(network).hit(subnet, now), IPV6_POLICIES).allowed;
}

/** Sends `count` requests of each /64 in `subnets` of `network` to its object at `now`; all must be admitted. */
async function fill(network: string, subnets: readonly number[], count: number, now?: number): Promise<void> {
  for (const subnet of subnets) {
    for (let i = 0; i < count; i++)
      expect(await hit(network, subnet, now === undefined ? undefined : now + i), `${network} /64 ${subnet} request ${i}`).toBe(true);
  }
}

/** The /64s 0 to n − 1 of the /56 number `of56` within a /48. */
const subnetsOf56 = (of56: number, n: number): number[] => Array.from({ length: n }, (_, i) => (of56 << 8) + i);

function get(clientIp: string): Promise<Response> {
  return workerFetch('http://free.test/api/v1/json/8.8.8.8', { headers: { 'CF-Connecting-IP': clientIp } });
}

/** `"burst-56";r=0;t=7` → { name: 'burst-56', r: 0, t: 7 }. */
function parseRateLimit(field: string | null): { name: string; r: number; t: number } {
  const match = /^"([\w-]+)";r=(\d+);t=(\d+)$/.exec(field ?? '');
  if (!match) throw new Error(`not a RateLimit field: ${field}`);
  return { name: match[1] ?? '', r: Number(match[2]), t: Number(match[3]) };
}

describe('on the Durable Object of a /48, with the time passed in', () => {
  const t0 = Math.floor(Date.now() / 1000) * 1000;

  it("shares the /56's burst quota among its /64s, and keeps the other /56s apart", async () => {
    const network = '2001:db8:5601::/48';
    const perClient = quota('burst');
    const clients = quota('burst-56') / perClient;
    await fill(network, subnetsOf56(0, clients), perClient, t0);
    // One more /64 of the same /56, fresh itself, is refused; one of another /56 is admitted.
    expect(await hit(network, clients, t0 + 1_000)).toBe(false);
    expect(await hit(network, 0x100, t0 + 1_000)).toBe(true);
    // Once the window has passed, the /56 admits again.
    expect(await hit(network, clients, t0 + 10_000)).toBe(true);
  });

  it("shares the /48's burst quota among its /56s, and keeps another /48 apart", async () => {
    const network = '2001:db8:5602::/48';
    const perClient = quota('burst');
    const perNetwork = quota('burst-56') / perClient;
    const networks = quota('burst-48') / quota('burst-56');
    for (let of56 = 0; of56 < networks; of56++) await fill(network, subnetsOf56(of56, perNetwork), perClient, t0);
    // A /64 of a /56 that has sent nothing is refused: the /48 is full.
    expect(await hit(network, subnetsOf56(networks, 1)[0] as number, t0 + 1_000)).toBe(false);
    expect(await hit('2001:db8:5603::/48', 0, t0 + 1_000)).toBe(true);
    expect(await hit(network, subnetsOf56(networks, 1)[0] as number, t0 + 10_000)).toBe(true);
  });
});

describe('through the Worker', () => {
  it('admits exactly the /56 quota of concurrent requests from more /64s than it holds', async () => {
    const clients = quota('burst-56') / quota('burst') + 2;
    const requests = Array.from({ length: clients * quota('burst') }, (_, i) => get(`2001:db8:5610:${Math.floor(i / quota('burst')).toString(16)}::1`));
    const statuses = (await Promise.all(requests)).map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(quota('burst-56'));
    expect(statuses.filter((status) => status === 429)).toHaveLength(statuses.length - quota('burst-56'));
  });

  it('names burst-56 when the /56 binds, refuses with it, and leaves another /56 and another /48 their own', async () => {
    const network = '2001:db8:5620::/48';
    const clients = quota('burst-56') / quota('burst');
    // The /56's first clients − 1 /64s full, and 9 of the last: one request of the /56 left.
    await fill(network, subnetsOf56(0, clients - 1), quota('burst'));
    await fill(network, [clients - 1], quota('burst') - 1);
    const last = await get(`2001:db8:5620:${(clients + 4).toString(16)}::1`);
    expect(last.status).toBe(200);
    expect(last.headers.get('RateLimit-Policy')).toBe(policyField(documented.map((row) => row.name)));
    expect(parseRateLimit(last.headers.get('RateLimit'))).toMatchObject({ name: 'burst-56', r: 0 });
    const refused = await get(`2001:db8:5620:${(clients + 5).toString(16)}::1`);
    expect(refused.status).toBe(429);
    const field = parseRateLimit(refused.headers.get('RateLimit'));
    expect(field).toMatchObject({ name: 'burst-56', r: 0 });
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('Retry-After'))).toBeLessThanOrEqual(10);
    expect(((await refused.json()) as { detail: string }).detail).toContain('"burst-56"');
    for (const other of ['2001:db8:5620:100::1', '2001:db8:5621:0::1']) {
      const answer = await get(other);
      expect(answer.status, other).toBe(200);
      expect(parseRateLimit(answer.headers.get('RateLimit')), other).toMatchObject({ name: 'burst', r: quota('burst') - 1 });
    }
  });

  it('names burst-48 when the /48 binds, and leaves another /48 its own', async () => {
    const network = '2001:db8:5630::/48';
    const perNetwork = quota('burst-56') / quota('burst');
    const networks = quota('burst-48') / quota('burst-56');
    for (let of56 = 0; of56 < networks; of56++) {
      const subnets = subnetsOf56(of56, perNetwork);
      // All full but the very last /64 of the last /56, which sends one less: one request of the /48 left.
      if (of56 < networks - 1) await fill(network, subnets, quota('burst'));
      else {
        await fill(network, subnets.slice(0, -1), quota('burst'));
        await fill(network, subnets.slice(-1), quota('burst') - 1);
      }
    }
    const fresh56 = (networks << 8).toString(16);
    const last = await get(`2001:db8:5630:${fresh56}::1`);
    expect(last.status).toBe(200);
    expect(parseRateLimit(last.headers.get('RateLimit'))).toMatchObject({ name: 'burst-48', r: 0 });
    const refused = await get(`2001:db8:5630:${fresh56}::2`);
    expect(refused.status).toBe(429);
    expect(parseRateLimit(refused.headers.get('RateLimit'))).toMatchObject({ name: 'burst-48', r: 0 });
    const other = await get('2001:db8:5631::1');
    expect(other.status).toBe(200);
    expect(parseRateLimit(other.headers.get('RateLimit'))).toMatchObject({ name: 'burst', r: quota('burst') - 1 });
  });

  it('lists only the two policies of the address for an IPv4 client', async () => {
    const answer = await get('198.51.100.156');
    expect(answer.headers.get('RateLimit-Policy')).toBe(policyField(['burst', 'minute']));
  });
});
