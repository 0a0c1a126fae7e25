/**
 * @module A fresh isolate knows an account's totals before it admits a request of an account with a quota
 * (docs/accounts.md, "Quotas"): once the monthly quota is used on one deployment, an isolate that has
 * never counted for the account, of the same deployment (a new app, as a new isolate makes one) or of
 * another (`sg`), admits none of three concurrent bulks of 50; the store then holds the quota's lookups
 * and the refusals, nothing more. The usage store is the real one, through the apps' own bindings.
 * Accounts `fresh-*` with random suffixes: this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { setQuotas } from '../../operator/lifecycle.ts';
import { createApp } from '../../src/app.ts';
import { paidRequest, readUntil, storedRows, usageAccount } from '../support/usage.ts';
import { appFetch } from '../support/worker-fetch.ts';

const today = () => new Date().toISOString().slice(0, 10);

/** A bulk of 50 distinct public addresses, the `n`-th of its kind. */
const bulkOf50 = (n: number) => ({ ips: Array.from({ length: 50 }, (_, i) => `8.${n}.${i}.8`) });

const post = (key: string, body: unknown): RequestInit => ({
  method: 'POST',
  headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

describe('a fresh isolate', () => {
  it('admits none of three concurrent bulks of 50 once the monthly quota is used, on the same deployment and on another', async () => {
    const { account, key } = await usageAccount('fresh-quota');
    await setQuotas(env.ACCOUNTS, account, { monthly: 150 });
    for (let n = 0; n < 3; n++) {
      const response = await paidRequest('de', '/api/bulk/json', post(key, bulkOf50(n)));
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    // Written by de's isolate within about a second.
    await readUntil(
      () => storedRows(account, today(), today()),
      (rows) => rows.reduce((sum, row) => sum + row.lookups, 0) === 150,
    );

    // A new app is what a new isolate of de runs: nothing counted, no view of the account.
    const fresh = createApp('paid');
    const sameDeployment = await Promise.all([3, 4, 5].map((n) => appFetch(fresh, new Request('https://de.paid.test/api/bulk/json', post(key, bulkOf50(n))))));
    // sg's isolate has never counted for this account either.
    const otherDeployment = await Promise.all([6, 7, 8].map((n) => paidRequest('sg', '/api/bulk/json', post(key, bulkOf50(n)))));
    for (const response of [...sameDeployment, ...otherDeployment]) {
      expect(response.status).toBe(429);
      expect(await response.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', quota: 'monthly', limit: 150, remaining: 0 });
    }

    const rows = await readUntil(
      () => storedRows(account, today(), today()),
      (found) => found.reduce((sum, row) => sum + row.problems, 0) === 6,
    );
    expect(rows.reduce((sum, row) => sum + row.lookups, 0)).toBe(150);
    expect(rows.map(({ deployment, requests, lookups, problems }) => ({ deployment, requests, lookups, problems }))).toEqual([
      { deployment: 'de', requests: 3, lookups: 150, problems: 3 },
      { deployment: 'sg', requests: 0, lookups: 0, problems: 3 },
    ]);
  });
});
