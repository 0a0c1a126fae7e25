/**
 * @module The operator tool's operations on the real `ACCOUNTS` KV binding: what they store, what they
 * refuse, and that a failed write leaves nothing half-written. Accounts `admin-*` and the addresses and
 * hostnames below are used by this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { AccountStateError, type KvStore } from '../../operator/account-store.ts';
import { createApiKey, revokeApiKey } from '../../operator/keys.ts';
import { cancelAccount, createAccount, showAccount } from '../../operator/lifecycle.ts';
import { allowDomain, allowIp } from '../../operator/whitelists.ts';
import { AccountInputError, standingOf } from '../../src/access/account.ts';
import { storedAccount } from '../support/stored-account.ts';

/** Every key and value of the namespace. */
async function dump(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor: string | undefined;
  do {
    const page: KVNamespaceListResult<unknown, string> = await env.ACCOUNTS.list(cursor === undefined ? {} : { cursor });
    for (const { name } of page.keys) out.set(name, (await env.ACCOUNTS.get(name)) ?? '');
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
  return out;
}

/** SHA-256 of text, hex, by Web Crypto directly. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The binding, failing every write of an account document. */
function failingDocumentWrites(): KvStore {
  return {
    get: (key) => env.ACCOUNTS.get(key),
    put: (key, value) => (key.startsWith('account:') ? Promise.reject(new Error('KV write failed')) : env.ACCOUNTS.put(key, value)),
    delete: (key) => env.ACCOUNTS.delete(key),
  };
}

describe('account operations', () => {
  it('creates an active account with empty whitelists and no keys', async () => {
    const view = await createAccount(env.ACCOUNTS, 'admin-create', { expires: '2030-06-30', now: new Date('2026-01-02T03:04:05Z') });
    expect(view).toEqual({
      id: 'admin-create',
      status: 'active',
      expires: '2030-06-30',
      createdAt: '2026-01-02T03:04:05.000Z',
      cancelledAt: null,
      ips: [],
      ignoredIps: [],
      domains: [],
      keys: [],
      quotas: { monthly: null, dailyWebsite: null, monthlyWebsite: null },
    });
    await expect(createAccount(env.ACCOUNTS, 'admin-create')).rejects.toThrow(AccountStateError);
  });

  it('stores a key only as its SHA-256, and shows only its id', async () => {
    await createAccount(env.ACCOUNTS, 'admin-key');
    const { keyId, key } = await createApiKey(env.ACCOUNTS, 'admin-key');
    expect(key).toMatch(/^ipgeo_[0-9A-Za-z]{49}$/);
    expect(keyId).toMatch(/^key_[0-9a-f]{12}$/);
    const stored = await dump();
    for (const [name, value] of stored) {
      expect(name).not.toContain(key.slice(6));
      expect(value).not.toContain(key.slice(6));
    }
    const hash = await sha256(key);
    expect(JSON.parse(stored.get(`apikey:${hash}`) ?? 'null')).toEqual({ account: 'admin-key', key: keyId });
    expect((await storedAccount(env.ACCOUNTS, 'admin-key')).keys).toEqual([expect.objectContaining({ id: keyId, sha256: hash, revokedAt: null })]);
    expect(JSON.stringify(await showAccount(env.ACCOUNTS, 'admin-key'))).not.toContain(hash);
  });

  it('makes keys of 256 random bits that never repeat', async () => {
    await createAccount(env.ACCOUNTS, 'admin-random');
    const made = await Promise.all(Array.from({ length: 20 }, () => createApiKey(env.ACCOUNTS, 'admin-random')));
    expect(new Set(made.map(({ key }) => key)).size).toBe(20);
    // 43 random base62 characters: 43 × log2(62) = 256.03 bits; then 6 of checksum (test/node/api-key.test.ts).
    for (const { key } of made) expect(key.slice(6, 49)).toMatch(/^[0-9A-Za-z]{43}$/);
  });

  it('revokes a key once', async () => {
    await createAccount(env.ACCOUNTS, 'admin-revoke');
    const { keyId } = await createApiKey(env.ACCOUNTS, 'admin-revoke');
    const view = await revokeApiKey(env.ACCOUNTS, 'admin-revoke', keyId, new Date('2026-03-01T00:00:00Z'));
    expect(view.keys).toEqual([expect.objectContaining({ id: keyId, revokedAt: '2026-03-01T00:00:00.000Z' })]);
    await expect(revokeApiKey(env.ACCOUNTS, 'admin-revoke', keyId)).rejects.toThrow(/revoked already/);
    await expect(revokeApiKey(env.ACCOUNTS, 'admin-revoke', 'key_000000000000')).rejects.toThrow(AccountStateError);
  });

  it('whitelists canonical addresses and hostnames, each for one account only', async () => {
    await createAccount(env.ACCOUNTS, 'admin-allow-a');
    await createAccount(env.ACCOUNTS, 'admin-allow-b');
    await allowIp(env.ACCOUNTS, 'admin-allow-a', '2001:DB8:0:0:1::A');
    await allowDomain(env.ACCOUNTS, 'admin-allow-a', 'Shop.Example.NET');
    expect(await showAccount(env.ACCOUNTS, 'admin-allow-a')).toMatchObject({ ips: ['2001:db8::1:0:0:a'], domains: ['shop.example.net'] });
    expect(await env.ACCOUNTS.get('ip:2001:db8::1:0:0:a')).toBe('{"account":"admin-allow-a"}');
    expect(await env.ACCOUNTS.get('domain:shop.example.net')).toBe('{"account":"admin-allow-a"}');
    await expect(allowIp(env.ACCOUNTS, 'admin-allow-b', '2001:db8::1:0:0:a')).rejects.toThrow(/whitelisted by account admin-allow-a/);
    await expect(allowDomain(env.ACCOUNTS, 'admin-allow-b', 'shop.example.net')).rejects.toThrow(/whitelisted by account admin-allow-a/);
    await expect(allowIp(env.ACCOUNTS, 'admin-allow-a', '2001:db8::1:0:0:a')).rejects.toThrow(/already/);
  });

  it('refuses malformed input before touching KV', async () => {
    const before = await dump();
    await expect(createAccount(env.ACCOUNTS, 'Admin_Bad')).rejects.toThrow(AccountInputError);
    await expect(createAccount(env.ACCOUNTS, 'admin-bad', { expires: '2026-02-30' })).rejects.toThrow(AccountInputError);
    await createAccount(env.ACCOUNTS, 'admin-bad');
    const after = await dump();
    for (const input of ['198.51.100.0/24', 'localhost:8080', '10.0.0.256'])
      await expect(allowIp(env.ACCOUNTS, 'admin-bad', input)).rejects.toThrow(AccountInputError);
    for (const input of ['https://example.com', 'example.com/path', '*.example.com', 'exa mple.com', 'example..com']) {
      await expect(allowDomain(env.ACCOUNTS, 'admin-bad', input)).rejects.toThrow(AccountInputError);
    }
    expect([...after.keys()].filter((key) => !before.has(key))).toEqual(['account:admin-bad']);
    expect(await dump()).toEqual(after);
  });

  it('refuses an address that no server sends from, naming its range, before touching KV', async () => {
    await createAccount(env.ACCOUNTS, 'admin-unsendable');
    const before = await dump();
    // Each address and the block it lies in, from the IANA special-purpose registries (RFC 6890 and the RFCs named).
    const refused: [string, string][] = [
      ['10.1.2.3', '10.0.0.0/8'], // private-use, RFC 1918
      ['172.31.255.254', '172.16.0.0/12'],
      ['192.168.0.1', '192.168.0.0/16'],
      ['::ffff:192.168.0.1', '192.168.0.0/16'], // IPv4-mapped: the same address
      ['100.64.0.1', '100.64.0.0/10'], // shared address space behind carrier-grade NAT, RFC 6598
      ['fd12:3456::1', 'fc00::/7'], // unique local, RFC 4193
      ['127.0.0.1', '127.0.0.0/8'], // loopback
      ['::1', '::1/128'],
      ['169.254.10.20', '169.254.0.0/16'], // link-local, RFC 3927
      ['fe80::1', 'fe80::/10'],
      ['0.0.0.0', '0.0.0.0/32'], // unspecified
      ['::', '::/128'],
      ['224.0.0.251', '224.0.0.0/4'], // multicast
      ['ff02::1', 'ff00::/8'],
      ['255.255.255.255', '255.255.255.255/32'], // limited broadcast
    ];
    for (const [address, block] of refused) {
      const error = await allowIp(env.ACCOUNTS, 'admin-unsendable', address).catch((caught: unknown) => caught);
      expect(error, address).toBeInstanceOf(AccountInputError);
      expect((error as Error).message, address).toContain(` is in ${block} (`);
    }
    // The address Cloudflare gives every request of another zone's Worker, in any spelling.
    for (const address of ['2a06:98c0:3600::103', '2A06:98C0:3600:0:0:0:0:0103']) {
      await expect(allowIp(env.ACCOUNTS, 'admin-unsendable', address), address).rejects.toThrow(/Worker of another zone/);
    }
    expect(await dump()).toEqual(before);
    // Documentation ranges stay allowed (tests and examples use them), as does the Worker address's neighbour.
    for (const address of ['192.0.2.17', '198.51.100.17', '203.0.113.17', '2001:db8::17', '2a06:98c0:3600::104']) {
      await allowIp(env.ACCOUNTS, 'admin-unsendable', address);
    }
    expect((await showAccount(env.ACCOUNTS, 'admin-unsendable')).ips).toHaveLength(5);
  });

  it('leaves no index entry behind when the account document cannot be written', async () => {
    await createAccount(env.ACCOUNTS, 'admin-atomic');
    const before = await dump();
    await expect(createApiKey(failingDocumentWrites(), 'admin-atomic')).rejects.toThrow('KV write failed');
    await expect(allowIp(failingDocumentWrites(), 'admin-atomic', '198.51.100.200')).rejects.toThrow('KV write failed');
    await expect(allowDomain(failingDocumentWrites(), 'admin-atomic', 'atomic.example.net')).rejects.toThrow('KV write failed');
    expect(await dump()).toEqual(before);
  });

  it('takes over an index entry that its account does not confirm', async () => {
    await createAccount(env.ACCOUNTS, 'admin-stale');
    // What a write cut off between the index entry and the document leaves.
    await env.ACCOUNTS.put('ip:198.51.100.201', JSON.stringify({ account: 'admin-gone' }));
    await allowIp(env.ACCOUNTS, 'admin-stale', '198.51.100.201');
    expect(await env.ACCOUNTS.get('ip:198.51.100.201')).toBe('{"account":"admin-stale"}');
  });

  it('cancels an account once', async () => {
    await createAccount(env.ACCOUNTS, 'admin-cancel');
    expect(await cancelAccount(env.ACCOUNTS, 'admin-cancel', new Date('2026-04-01T12:00:00Z'))).toMatchObject({
      status: 'cancelled',
      cancelledAt: '2026-04-01T12:00:00.000Z',
    });
    await expect(cancelAccount(env.ACCOUNTS, 'admin-cancel')).rejects.toThrow(/cancelled already/);
  });

  it('refuses operations on an account that does not exist', async () => {
    await expect(createApiKey(env.ACCOUNTS, 'admin-nobody')).rejects.toThrow(AccountStateError);
    await expect(allowIp(env.ACCOUNTS, 'admin-nobody', '198.51.100.202')).rejects.toThrow(AccountStateError);
    await expect(showAccount(env.ACCOUNTS, 'admin-nobody')).rejects.toThrow(AccountStateError);
  });
});

describe('standingOf', () => {
  it('gives access through the last day of an expiry, UTC', async () => {
    await createAccount(env.ACCOUNTS, 'admin-expiry', { expires: '2027-01-31' });
    const account = await storedAccount(env.ACCOUNTS, 'admin-expiry');
    expect(standingOf(account, Date.parse('2027-01-31T23:59:59.999Z'))).toEqual({ active: true });
    expect(standingOf(account, Date.parse('2027-02-01T00:00:00Z'))).toEqual({ active: false, reason: 'expired', since: '2027-01-31' });
  });
});
