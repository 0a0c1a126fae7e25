/**
 * @module The paid servers when the usage store fails (docs/storage.md, "Usage"): answers are served
 * and counted all the same, the counts written once the store answers again; `GET /api/usage` answers
 * 503 `USAGE_UNAVAILABLE` with `Retry-After` meanwhile. The faults are made by handing the app a `USAGE`
 * binding whose calls fail, until the test lets them through to the store (as one binding serves every
 * request of an isolate, before and after the store recovers). Accounts `usagefault-*` with random
 * suffixes: this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import type { UsageLedger } from '../../src/usage/ledger.ts';
import { readUntil, storedRows, usageAccount } from '../support/usage.ts';
import { appFetch } from '../support/worker-fetch.ts';

const app = createApp('paid');

/**
 * A `USAGE` binding whose every call fails, as while the store cannot be reached, until `recover()`;
 * then each call goes to the real store.
 */
function storeOutage(): { namespace: DurableObjectNamespace; recover: () => void } {
  let failing = true;
  const store = env.USAGE as unknown as DurableObjectNamespace<UsageLedger>;
  const namespace = {
    getByName: (name: string) => ({
      add: (...args: Parameters<UsageLedger['add']>) =>
        failing ? Promise.reject(new Error('Durable Object reset because its code was updated')) : store.getByName(name).add(...args),
      totals: (...args: Parameters<UsageLedger['totals']>) =>
        failing ? Promise.reject(new Error('Network connection lost')) : store.getByName(name).totals(...args),
    }),
  } as unknown as DurableObjectNamespace;
  return {
    namespace,
    recover: () => {
      failing = false;
    },
  };
}

const get = (path: string, key: string, usage = env.USAGE as DurableObjectNamespace) =>
  appFetch(app, new Request(`https://de.ipgeo.test${path}`, { headers: { Authorization: `Bearer ${key}` } }), { ...env, USAGE: usage });

describe('when the usage store fails', () => {
  it('answers GET /api/usage 503 USAGE_UNAVAILABLE with Retry-After, and reads again once it answers', async () => {
    const { key } = await usageAccount('usagefault-read');
    const refused = await get('/api/usage', key, storeOutage().namespace);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    const body = (await refused.json()) as { code: string; detail: string };
    expect(body.code).toBe('USAGE_UNAVAILABLE');
    expect(body.detail).not.toMatch(/Network|Durable|\.ts/);
    expect((await get('/api/usage', key)).status).toBe(200);
  });

  it('serves and counts answers while it fails, and writes them once it answers again', async () => {
    const { account, key } = await usageAccount('usagefault-write');
    const outage = storeOutage();
    for (let i = 0; i < 3; i++) {
      const response = await get(`/api/json/8.8.${i}.8`, key, outage.namespace);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    // The batch is due after a second; its write then fails, and is kept to be tried again.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const today = new Date().toISOString().slice(0, 10);
    expect(await storedRows(account, today, today)).toEqual([]);
    outage.recover();
    for (let i = 0; i < 2; i++) {
      const response = await get(`/api/json/1.1.${i}.1`, key, outage.namespace);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    const rows = await readUntil(
      () => storedRows(account, today, today),
      (found) => found.reduce((sum, row) => sum + row.requests, 0) >= 5,
    );
    expect(rows.map(({ kind, requests, lookups }) => ({ kind, requests, lookups }))).toEqual([{ kind: 'single', requests: 5, lookups: 5 }]);
  });
});
