/**
 * @module Replacing an API key with a grace period (`rotateApiKey`, the operator tool's `rotate-key`):
 * the old key works until its revocation time and not after, the new one at once; and `listAccounts`
 * over the real KV binding, as `npm run accounts -- list` reads it. Keys and accounts of this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApiKey, isRevoked, revokeApiKey, rotateApiKey } from '../../operator/keys.ts';
import { kvListing } from '../../operator/kv-listing.ts';
import { createAccount, listAccounts, showAccount } from '../../operator/lifecycle.ts';
import { workerFetch } from '../support/worker-fetch.ts';

const lookup = (key: string) => workerFetch('https://de.paid.test/api/json/8.8.8.8', { headers: { Authorization: `Bearer ${key}` } });

describe('rotateApiKey', () => {
  it('keeps the old key working through its grace period, beside the new one', async () => {
    await createAccount(env.ACCOUNTS, 'rotation-grace');
    const old = await createApiKey(env.ACCOUNTS, 'rotation-grace');
    const now = new Date();
    const rotated = await rotateApiKey(env.ACCOUNTS, 'rotation-grace', { graceSeconds: 3600, now });
    expect(rotated.replaced).toBe(old.keyId);
    expect(Date.parse(rotated.oldKeyRevokedAt) - now.getTime()).toBe(3_600_000);
    expect((await lookup(old.key)).status).toBe(200);
    expect((await lookup(rotated.key)).status).toBe(200);
  });

  it('revokes the old key at once without a grace period', async () => {
    await createAccount(env.ACCOUNTS, 'rotation-now');
    const old = await createApiKey(env.ACCOUNTS, 'rotation-now');
    const rotated = await rotateApiKey(env.ACCOUNTS, 'rotation-now');
    const refused = await lookup(old.key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe('AUTHORIZATION_INVALID');
    expect((await lookup(rotated.key)).status).toBe(200);
  });

  it('lets an operator revoke a key in its grace period at once', async () => {
    await createAccount(env.ACCOUNTS, 'rotation-cut');
    const old = await createApiKey(env.ACCOUNTS, 'rotation-cut');
    await rotateApiKey(env.ACCOUNTS, 'rotation-cut', { graceSeconds: 86_400 });
    const view = await revokeApiKey(env.ACCOUNTS, 'rotation-cut', old.keyId);
    const stored = view.keys.find((key) => key.id === old.keyId);
    expect(stored && isRevoked(stored)).toBe(true);
    expect((await lookup(old.key)).status).toBe(401);
  });

  it('refuses to guess among several keys, and replaces the one named', async () => {
    await createAccount(env.ACCOUNTS, 'rotation-many');
    const first = await createApiKey(env.ACCOUNTS, 'rotation-many');
    await createApiKey(env.ACCOUNTS, 'rotation-many');
    const before = await showAccount(env.ACCOUNTS, 'rotation-many');
    await expect(rotateApiKey(env.ACCOUNTS, 'rotation-many')).rejects.toThrow(/name the one to replace with --key/);
    expect(await showAccount(env.ACCOUNTS, 'rotation-many')).toEqual(before);
    const rotated = await rotateApiKey(env.ACCOUNTS, 'rotation-many', { keyId: first.keyId });
    expect(rotated.replaced).toBe(first.keyId);
  });
});

describe('listAccounts', () => {
  it('lists every account of the namespace, in id order', async () => {
    await createAccount(env.ACCOUNTS, 'rotation-list-b');
    await createAccount(env.ACCOUNTS, 'rotation-list-a', { expires: '2031-01-31' });
    const views = await listAccounts({
      ...kvListing(env.ACCOUNTS),
      get: (key) => env.ACCOUNTS.get(key),
      put: (key, value) => env.ACCOUNTS.put(key, value),
      delete: (key) => env.ACCOUNTS.delete(key),
    });
    const ids = views.map((view) => view.id).filter((id) => id.startsWith('rotation-list-'));
    expect(ids).toEqual(['rotation-list-a', 'rotation-list-b']);
    expect(views.find((view) => view.id === 'rotation-list-a')).toMatchObject({ status: 'active', expires: '2031-01-31', keys: [] });
  });
});
