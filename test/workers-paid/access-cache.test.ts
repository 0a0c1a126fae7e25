/**
 * @module The per-isolate account cache (`src/access/directory.ts`): warm requests read no KV, and a
 * revocation bites once the cache's time to live has passed. The clock is the directory's own, moved
 * by the test. Accounts `cache-*`, addresses 198.51.100.0/24 and hostnames *.cache.example: this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../operator/keys.ts';
import { cancelAccount, createAccount } from '../../operator/lifecycle.ts';
import { allowDomain, allowIp } from '../../operator/whitelists.ts';
import { generateApiKey, hashApiKey } from '../../src/access/api-key.ts';
import { type AccessRequest, checkAccess } from '../../src/access/check.ts';
import { AccountDirectory, AccountsUnavailableError, type KvReader } from '../../src/access/directory.ts';
import { storedAccount } from '../support/stored-account.ts';

/** How long an isolate serves what it read from KV, as docs/accounts.md states it ("for **30 seconds**"). */
const CACHE_MS = 30_000;

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
  it('reads KV in each concurrent cold request itself, and not at all when warm', async () => {
    await createAccount(env.ACCOUNTS, 'cache-warm');
    const { key } = await createApiKey(env.ACCOUNTS, 'cache-warm');
    const kv = countingReader();
    const directory = new AccountDirectory();
    const cold = await Promise.all(Array.from({ length: 5 }, () => checkAccess(request({ authorization: `Bearer ${key}` }), kv, directory, Date.now())));
    expect(cold.map((result) => result.granted)).toEqual(Array(5).fill(true));
    // No request waits on a read that another one started (Workers forbid it): five of each.
    expect(kv.reads.filter((read) => read.startsWith('apikey:'))).toHaveLength(5);
    expect(kv.reads.filter((read) => read === 'account:cache-warm')).toHaveLength(5);
    const warm = await checkAccess(request({ authorization: `Bearer ${key}` }), kv, directory, Date.now());
    expect(warm.granted).toBe(true);
    expect(kv.reads).toHaveLength(10);
  });

  it(`keeps honouring a revoked key for ${CACHE_MS / 1000} s, then refuses it`, async () => {
    await createAccount(env.ACCOUNTS, 'cache-revoke');
    const { key, keyId } = await createApiKey(env.ACCOUNTS, 'cache-revoke');
    let now = Date.now();
    const directory = new AccountDirectory({ now: () => now });
    const check = () => checkAccess(request({ authorization: `Bearer ${key}` }), env.ACCOUNTS, directory, now);
    expect((await check()).granted).toBe(true);
    await revokeApiKey(env.ACCOUNTS, 'cache-revoke', keyId);
    now += CACHE_MS - 1;
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
    now += CACHE_MS;
    expect(await byIp()).toMatchObject({ granted: false, failure: { kind: 'inactive', via: 'address', reason: 'cancelled' } });
    expect(await byOrigin()).toMatchObject({ granted: false, failure: { kind: 'inactive', via: 'origin', reason: 'cancelled' } });
  });

  it('remembers an unknown key as absent, so that presenting it again reads nothing', async () => {
    const kv = countingReader();
    const directory = new AccountDirectory();
    const unknown = `Bearer ${generateApiKey()}`;
    for (let i = 0; i < 3; i++)
      expect(await checkAccess(request({ authorization: unknown }), kv, directory, Date.now())).toMatchObject({ failure: { kind: 'key-unknown' } });
    expect(kv.reads).toHaveLength(1);
  });

  it('reads nothing for a malformed key, or one that fails its checksum', async () => {
    const kv = countingReader();
    const key = generateApiKey();
    // The last character changed: the shape is right, the checksum is not.
    const mistyped = key.slice(0, -1) + (key.endsWith('0') ? '1' : '0');
    for (const token of ['12345', mistyped, key.slice(0, -1), `${key}x`, `ipgeo_${'A'.repeat(49)}`]) {
      const result = await checkAccess(request({ authorization: `Bearer ${token}` }), kv, new AccountDirectory(), Date.now());
      expect(result, token).toMatchObject({ granted: false, failure: { kind: 'key-malformed' } });
    }
    expect(kv.reads).toEqual([]);
  });

  it('refuses a key without a checksum unread, unless the deployment accepts them', async () => {
    await createAccount(env.ACCOUNTS, 'cache-legacy');
    // A key as made before keys had a checksum: `ipgeo_` and 43 base64url characters, stored by its SHA-256.
    const legacy = `ipgeo_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
      .replaceAll('+', '-')
      .replaceAll('/', '_')
      .replace(/=+$/, '')}`;
    const sha256 = await hashApiKey(legacy);
    const account = await storedAccount(env.ACCOUNTS, 'cache-legacy');
    account.keys.push({ id: 'key_0000000fe9ac', sha256, createdAt: new Date().toISOString(), revokedAt: null });
    await env.ACCOUNTS.put(`apikey:${sha256}`, JSON.stringify({ account: 'cache-legacy', key: 'key_0000000fe9ac' }));
    await env.ACCOUNTS.put('account:cache-legacy', JSON.stringify(account));

    const kv = countingReader();
    const strict = await checkAccess(request({ authorization: `Bearer ${legacy}` }), kv, new AccountDirectory(), Date.now());
    expect(strict).toMatchObject({ granted: false, failure: { kind: 'key-malformed' } });
    expect(kv.reads).toEqual([]);
    const accepting = await checkAccess(request({ authorization: `Bearer ${legacy}` }), kv, new AccountDirectory(), Date.now(), {
      legacyKeys: true,
      httpOrigins: false,
    });
    expect(accepting).toMatchObject({ granted: true, accountId: 'cache-legacy', via: 'key' });
  });

  it('keeps real entries cached however many unknown keys, addresses and hostnames come', async () => {
    await createAccount(env.ACCOUNTS, 'cache-crowded');
    const { key } = await createApiKey(env.ACCOUNTS, 'cache-crowded');
    await allowIp(env.ACCOUNTS, 'cache-crowded', '198.51.100.40');
    await allowDomain(env.ACCOUNTS, 'cache-crowded', 'app.crowded.cache.example');
    const kv = countingReader();
    const directory = new AccountDirectory({ maxEntries: 4, maxAbsentEntries: 4 });
    const real = [
      request({ authorization: `Bearer ${key}` }),
      request({ clientIp: '198.51.100.40' }),
      request({ origin: 'https://app.crowded.cache.example' }),
    ];
    for (const credential of real) expect((await checkAccess(credential, kv, directory, Date.now())).granted).toBe(true);
    const warmedWith = kv.reads.length;
    for (let i = 0; i < 50; i++) {
      await checkAccess(request({ authorization: `Bearer ${generateApiKey()}` }), kv, directory, Date.now());
      await checkAccess(request({ clientIp: `198.51.100.${100 + i}` }), kv, directory, Date.now());
      await checkAccess(request({ origin: `https://made-up-${i}.cache.example` }), kv, directory, Date.now());
    }
    expect(kv.reads.length - warmedWith).toBe(150);
    const before = kv.reads.length;
    for (const credential of real) expect((await checkAccess(credential, kv, directory, Date.now())).granted).toBe(true);
    expect(kv.reads.length).toBe(before);
  });

  it('answers from cached entries while KV fails, and reports the failure for the others', async () => {
    await createAccount(env.ACCOUNTS, 'cache-outage');
    const { key } = await createApiKey(env.ACCOUNTS, 'cache-outage');
    const directory = new AccountDirectory();
    expect((await checkAccess(request({ authorization: `Bearer ${key}` }), env.ACCOUNTS, directory, Date.now())).granted).toBe(true);
    const failing: KvReader = { get: () => Promise.reject(new Error('KV GET failed: 500 Internal Server Error')) };
    expect((await checkAccess(request({ authorization: `Bearer ${key}` }), failing, directory, Date.now())).granted).toBe(true);
    await expect(checkAccess(request({ authorization: `Bearer ${generateApiKey()}` }), failing, directory, Date.now())).rejects.toBeInstanceOf(
      AccountsUnavailableError,
    );
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
