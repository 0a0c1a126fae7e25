/**
 * @module What forged keys cost (docs/accounts.md, "API keys"), counted in KV reads through the production
 * cache sizes: 100,000 random keys of the right shape read nothing (their checksum fails); 100,000
 * requests with keys that pass the checksum but exist nowhere read once per distinct key; and the
 * entries of real customers stay cached through both. Accounts `forged-*`: this file only.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../operator/keys.ts';
import { createAccount } from '../../operator/lifecycle.ts';
import { generateApiKey } from '../../src/access/api-key.ts';
import { type AccessRequest, checkAccess } from '../../src/access/check.ts';
import { AccountDirectory, type KvReader } from '../../src/access/directory.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CUSTOMERS = 10;

/** The binding, counting reads. */
function countingReader(): KvReader & { reads: number } {
  const reader = {
    reads: 0,
    get: (key: string) => {
      reader.reads++;
      return env.ACCOUNTS.get(key);
    },
  };
  return reader;
}

const byKey = (key: string): AccessRequest => ({ authorization: `Bearer ${key}`, clientIp: '', origin: undefined });

/** `ipgeo_` and 49 random base62 characters: the shape of a key, with whatever its last six happen to be. */
function randomShapedKey(): string {
  let body = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(49))) body += BASE62[byte % 62];
  return `ipgeo_${body}`;
}

const customers: string[] = [];

beforeAll(async () => {
  for (let i = 0; i < CUSTOMERS; i++) {
    await createAccount(env.ACCOUNTS, `forged-customer-${i}`);
    customers.push((await createApiKey(env.ACCOUNTS, `forged-customer-${i}`)).key);
  }
});

describe('forged keys', () => {
  it('cost no read when random, one read per distinct key when they pass the checksum, and never evict customers', async () => {
    const kv = countingReader();
    // The cache's clock stands still: the entries must outlive the run however slow the machine is, not the TTL.
    const now = Date.now();
    const directory = new AccountDirectory({ now: () => now });
    for (const key of customers) expect((await checkAccess(byKey(key), kv, directory, now)).granted).toBe(true);
    expect(kv.reads).toBe(2 * CUSTOMERS);

    // 100,000 random keys of the right shape: refused before any read (a random one passes the checksum once in 2^32).
    kv.reads = 0;
    let malformed = 0;
    for (let i = 0; i < 100_000; i++) {
      const result = await checkAccess(byKey(randomShapedKey()), kv, directory, now);
      if (!result.granted && result.failure.kind === 'key-malformed') malformed++;
    }
    expect(malformed).toBeGreaterThanOrEqual(99_999);
    expect(kv.reads).toBeLessThanOrEqual(100_000 - malformed);

    // 100,000 requests with 1,000 distinct forged keys that pass the checksum: one read each, then remembered.
    kv.reads = 0;
    const forged = Array.from({ length: 1_000 }, () => generateApiKey());
    for (let i = 0; i < 100_000; i++) {
      const result = await checkAccess(byKey(forged[i % forged.length] as string), kv, directory, now);
      expect(result.granted).toBe(false);
    }
    expect(kv.reads).toBe(1_000);

    // 10,000 distinct ones, twice the absent cache: a read each, and still no customer entry pushed out.
    kv.reads = 0;
    for (let i = 0; i < 10_000; i++) await checkAccess(byKey(generateApiKey()), kv, directory, now);
    expect(kv.reads).toBe(10_000);
    kv.reads = 0;
    for (const key of customers) expect((await checkAccess(byKey(key), kv, directory, now)).granted).toBe(true);
    expect(kv.reads).toBe(0);
  });
});
