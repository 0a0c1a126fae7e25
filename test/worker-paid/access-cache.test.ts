/**
 * @module The per-isolate account cache (`src/access/directory.ts`): warm requests read no KV, and a
 * revocation bites once the cache's time to live has passed. The clock is the directory's own, moved
 * by the test. Accounts `cache-*`, addresses 198.51.100.0/24 and hostnames *.cache.example: this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { allowDomain, allowIp, cancelAccount, createAccount, createApiKey, revokeApiKey } from '../../src/access/admin.ts';
import { type AccessRequest, checkAccess } from '../../src/access/check.ts';
import { ACCESS_CACHE_TTL_MS, AccountDirectory, type KvReader } from '../../src/access/directory.ts';

/** The binding, counting reads. */
function countingReader(): KvReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    get: (key) => {
      reads.push(key);
      return env.ACCOUNTS.get(key);
    },
  };
}

const request = (fields: Partial<AccessRequest>): AccessRequest => ({ authorization: undefined, clientIp: '', origin: undefined, ...fields });

describe('AccountDirectory', () => {
  it('reads KV once for concurrent cold requests and not at all when warm', async () => {
    await createAccount(env.ACCOUNTS, 'cache-warm');
    const { key } = await createApiKey(env.ACCOUNTS, 'cache-warm');
    const kv = countingReader();
    const directory = new AccountDirectory();
    const cold = await Promise.all(Array.from({ length: 5 }, () => checkAccess(request({ authorization: `Bearer ${key}` }), kv, directory, Date.now())));
    expect(cold.map((result) => result.granted)).toEqual(Array(5).fill(true));
    expect(kv.reads).toEqual([expect.stringMatching(/^apikey:[0-9a-f]{64}$/), 'account:cache-warm']);
    const warm = await checkAccess(request({ authorization: `Bearer ${key}` }), kv, directory, Date.now());
    expect(warm.granted).toBe(true);
    expect(kv.reads).toHaveLength(2);
  });

  it(`keeps honouring a revoked key for ${ACCESS_CACHE_TTL_MS / 1000} s, then refuses it`, async () => {
    await createAccount(env.ACCOUNTS, 'cache-revoke');
    const { key, keyId } = await createApiKey(env.ACCOUNTS, 'cache-revoke');
    let now = Date.now();
    const directory = new AccountDirectory({ now: () => now });
    const check = () => checkAccess(request({ authorization: `Bearer ${key}` }), env.ACCOUNTS, directory, now);
    expect((await check()).granted).toBe(true);
    await revokeApiKey(env.ACCOUNTS, 'cache-revoke', keyId);
    now += ACCESS_CACHE_TTL_MS - 1;
    expect((await check()).granted).toBe(true);
    now += 1;
    expect(await check()).toMatchObject({ granted: false, failure: { kind: 'key-revoked', accountId: 'cache-revoke', keyId } });
  });

  it('lets a cancellation bite on addresses and origins after the same delay', async () => {
    await createAccount(env.ACCOUNTS, 'cache-cancel');
    await allowIp(env.ACCOUNTS, 'cache-cancel', '198.51.100.30');
    await allowDomain(env.ACCOUNTS, 'cache-cancel', 'app.cache.example');
    let now = Date.now();
    const directory = new AccountDirectory({ now: () => now });
    const byIp = () => checkAccess(request({ clientIp: '198.51.100.30' }), env.ACCOUNTS, directory, now);
    const byOrigin = () => checkAccess(request({ origin: 'https://app.cache.example' }), env.ACCOUNTS, directory, now);
    expect([(await byIp()).granted, (await byOrigin()).granted]).toEqual([true, true]);
    await cancelAccount(env.ACCOUNTS, 'cache-cancel');
    now += ACCESS_CACHE_TTL_MS;
    expect(await byIp()).toMatchObject({ granted: false, failure: { kind: 'inactive', via: 'address', reason: 'cancelled' } });
    expect(await byOrigin()).toMatchObject({ granted: false, failure: { kind: 'inactive', via: 'origin', reason: 'cancelled' } });
  });

  it('caches an unknown key too, so that random keys do not each cost a KV read', async () => {
    const kv = countingReader();
    const directory = new AccountDirectory();
    const unknown = `Bearer ipgeo_${'A'.repeat(43)}`;
    for (let i = 0; i < 3; i++)
      expect(await checkAccess(request({ authorization: unknown }), kv, directory, Date.now())).toMatchObject({ failure: { kind: 'key-unknown' } });
    expect(kv.reads).toHaveLength(1);
  });

  it('reads nothing for a malformed key', async () => {
    const kv = countingReader();
    const result = await checkAccess(request({ authorization: 'Bearer 12345' }), kv, new AccountDirectory(), Date.now());
    expect(result).toMatchObject({ granted: false, failure: { kind: 'key-malformed' } });
    expect(kv.reads).toEqual([]);
  });

  it('ignores index entries that the account document does not confirm', async () => {
    await createAccount(env.ACCOUNTS, 'cache-stale');
    await env.ACCOUNTS.put('ip:198.51.100.31', JSON.stringify({ account: 'cache-stale' }));
    await env.ACCOUNTS.put('domain:stale.cache.example', JSON.stringify({ account: 'cache-stale' }));
    const directory = new AccountDirectory();
    expect(await checkAccess(request({ clientIp: '198.51.100.31' }), env.ACCOUNTS, directory, Date.now())).toMatchObject({
      granted: false,
      failure: { kind: 'no-credential' },
    });
    expect(await checkAccess(request({ origin: 'https://stale.cache.example' }), env.ACCOUNTS, directory, Date.now())).toMatchObject({
      granted: false,
      failure: { kind: 'origin-forbidden' },
      corsOrigin: null,
    });
  });

  it('ignores a stored document that is not valid', async () => {
    await env.ACCOUNTS.put('account:cache-broken', JSON.stringify({ v: 1, id: 'cache-broken', status: 'active' }));
    await env.ACCOUNTS.put('ip:198.51.100.32', JSON.stringify({ account: 'cache-broken' }));
    const result = await checkAccess(request({ clientIp: '198.51.100.32' }), env.ACCOUNTS, new AccountDirectory(), Date.now());
    expect(result).toMatchObject({ granted: false, failure: { kind: 'no-credential' } });
  });
});
