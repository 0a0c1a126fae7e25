/**
 * @module A bulk that would cross an account's quota is refused before any address is looked up
 * (docs/api.md, "Usage and quotas"): in a sharded deployment every lookup is a call to a shard Worker,
 * so the lookups a request makes are counted at the app's shard bindings, wrapped by this test (the
 * usage store's binding is the real one). Account `quota-bulk-*` with a random suffix: this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../operator/keys.ts';
import { createAccount, setQuotas } from '../../operator/lifecycle.ts';
import { createApp } from '../../src/app.ts';
import type { ShardCall, ShardService } from '../../src/lookup/shard-calls.ts';
import { appFetch } from '../support/worker-fetch.ts';

/** Addresses of MaxMind's test data, spread over the three shards (as in `sharded.test.ts`). */
const ADDRESSES = ['81.2.69.142', '89.160.20.112', '175.16.199.1', '214.1.1.1', '216.160.83.56', '2001:218::1', '2001:250::1', '2a02:cf40::1'];

/** The app's env with its shard bindings wrapped, and the addresses that the app asked its shards to look up. */
function countingShards(): { bindings: typeof env; looked: () => number } {
  let looked = 0;
  const wrapped: Record<string, ShardService> = {};
  for (const [name, binding] of Object.entries(env)) {
    if (!/^SHARD_\d+$/.test(name)) continue;
    const shard = binding as unknown as ShardService;
    wrapped[name] = {
      lookup: (call: ShardCall) => {
        looked += call.addresses.length;
        return shard.lookup(call);
      },
      status: (version, colo) => shard.status(version, colo),
    };
  }
  expect(Object.keys(wrapped).length).toBe(3);
  return { bindings: { ...env, ...wrapped } as typeof env, looked: () => looked };
}

describe('a bulk over the quota', () => {
  it('is refused whole before any address is looked up', async () => {
    const account = `quota-bulk-${crypto.randomUUID().slice(0, 8)}`;
    await createAccount(env.ACCOUNTS, account);
    const { key } = await createApiKey(env.ACCOUNTS, account);
    await setQuotas(env.ACCOUNTS, account, { monthly: 10 });
    const app = createApp('paid');
    const shards = countingShards();
    const bulk = (ips: readonly string[]) =>
      appFetch(
        app,
        new Request('https://de.paid.test/api/bulk/json', {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ ips }),
        }),
        shards.bindings,
      );

    const first = await bulk(ADDRESSES);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    expect(shards.looked()).toBe(ADDRESSES.length);

    // 2 lookups left: 3 distinct addresses do not fit, and none of them is looked up.
    const refused = await bulk([ADDRESSES[0], ADDRESSES[1], ADDRESSES[5], ADDRESSES[0]] as string[]);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', remaining: 2 });
    expect(shards.looked()).toBe(ADDRESSES.length);

    const fits = await bulk([ADDRESSES[2], ADDRESSES[6]] as string[]);
    expect(fits.status).toBe(200);
    await fits.arrayBuffer();
    expect(shards.looked()).toBe(ADDRESSES.length + 2);
  });
});
