/**
 * @module The paid servers when the usage store is slow or fails (docs/accounts.md, "Quotas"; decision
 * 0009): answers are served and counted all the same, the counts written once the store answers again;
 * an isolate that does not know an account's totals waits for one read at most 1.5 s (the other
 * requests of the account polling it), then admits on what it counted itself, and does not wait again;
 * `GET /api/usage` answers 503 `USAGE_UNAVAILABLE` with `Retry-After` meanwhile. The store is the ledger
 * class of a usage Worker of the tests whose calls wait or fail on the test's word
 * (`test/support/usage-faults-worker.ts`), bound as the app's `USAGE`. Each test makes its app (a new
 * isolate's). Accounts `usagefault-*` with random suffixes: this file only.
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { setQuotas } from '../../operator/lifecycle.ts';
import { createApp } from '../../src/app.ts';
import type { UsageLedger } from '../../src/usage/ledger.ts';
import { readLedgerRows } from '../../src/usage/ledger-reads.ts';
import { READ_TIMEOUT_MS } from '../../src/usage/reads.ts';
import { readUntil, usageAccount } from '../support/usage.ts';
import { appFetch } from '../support/worker-fetch.ts';

const bindings = env as unknown as { FAULTY_USAGE: DurableObjectNamespace<UsageLedger>; USAGE_FAULTS: Fetcher };

/** Sets the store's fault, and forgets the calls it counted. */
async function storeFault(fault: { delayMs: number; failing: false | 'before' | 'after' }): Promise<void> {
  await bindings.USAGE_FAULTS.fetch('http://faults/', { method: 'POST', body: JSON.stringify(fault) });
}

/** The calls the store received since its fault was last set. */
async function storeCalls(): Promise<{ add: number; totals: number }> {
  return (await bindings.USAGE_FAULTS.fetch('http://faults/')).json();
}

afterEach(() => storeFault({ delayMs: 0, failing: false }));

const today = () => new Date().toISOString().slice(0, 10);
const storedLookups = async (account: string) =>
  (await readLedgerRows(bindings.FAULTY_USAGE, account, today(), today())).reduce((sum, row) => sum + row.lookups, 0);

/** A new app (a new isolate's) on the faulty store, and a GET of `path` to it with `key`. */
function isolate() {
  const app = createApp('paid');
  return (path: string, key: string) =>
    appFetch(app, new Request(`https://de.ipgeo.test${path}`, { headers: { Authorization: `Bearer ${key}` } }), {
      ...env,
      USAGE: bindings.FAULTY_USAGE as unknown as DurableObjectNamespace,
    });
}

describe('when the usage store fails', () => {
  it('answers GET /api/usage 503 USAGE_UNAVAILABLE with Retry-After, and reads again once it answers', async () => {
    const { key } = await usageAccount('usagefault-read');
    const get = isolate();
    await storeFault({ delayMs: 0, failing: 'before' });
    const refused = await get('/api/usage', key);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    const body = (await refused.json()) as { code: string; detail: string };
    expect(body.code).toBe('USAGE_UNAVAILABLE');
    expect(body.detail).not.toMatch(/Network|Durable|\.ts/);
    await storeFault({ delayMs: 0, failing: false });
    // One read a second at most: the next after the failure is tried a second later.
    const answered = await readUntil(
      () => get('/api/usage', key),
      (response) => response.status === 200,
    );
    expect(answered.status).toBe(200);
  });

  it('serves and counts answers while it fails, and writes them once it answers again', async () => {
    const { account, key } = await usageAccount('usagefault-write');
    const get = isolate();
    await storeFault({ delayMs: 0, failing: 'before' });
    for (let i = 0; i < 3; i++) {
      const response = await get(`/api/json/8.8.${i}.8`, key);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    // The batch is due after a second; its write then fails, and is kept to be tried again.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await storeCalls()).add).toBeGreaterThan(0);
    expect(await storedLookups(account)).toBe(0);
    await storeFault({ delayMs: 0, failing: false });
    for (let i = 0; i < 2; i++) {
      const response = await get(`/api/json/1.1.${i}.1`, key);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    expect(
      await readUntil(
        () => storedLookups(account),
        (lookups) => lookups === 5,
      ),
    ).toBe(5);
  });

  it('admits the requests of an account with a quota on what the isolate counted, without waiting, and counts them', async () => {
    const { account, key } = await usageAccount('usagefault-quota');
    await setQuotas(env.ACCOUNTS, account, { monthly: 1000 });
    const get = isolate();
    await storeFault({ delayMs: 0, failing: 'before' });
    const answers = await Promise.all([0, 1, 2].map((i) => get(`/api/json/8.8.${i}.8`, key)));
    expect(answers.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(answers.map((response) => response.headers.get('ratelimit'))).toEqual(expect.arrayContaining([expect.stringMatching(/^"monthly";r=99[789];/)]));
    // One read for the three, which failed at once: none of them waited for a time-out.
    expect(await storeCalls()).toMatchObject({ totals: 1 });
    await storeFault({ delayMs: 0, failing: false });
    expect(
      await readUntil(
        () => storedLookups(account),
        (lookups) => lookups === 3,
      ),
    ).toBe(3);
  });
});

describe('when the usage store is slow', () => {
  it('makes the requests of an account with a quota wait for one read, at most its time-out, then admits them on what the isolate counted', async () => {
    const { account, key } = await usageAccount('usagefault-slow');
    await setQuotas(env.ACCOUNTS, account, { monthly: 1000 });
    const get = isolate();
    // Slower than the time-out, by twice of it.
    await storeFault({ delayMs: 3 * READ_TIMEOUT_MS, failing: false });
    const started = Date.now();
    const answers = await Promise.all([0, 1, 2].map((i) => get(`/api/json/8.8.${i}.8`, key)));
    const waited = Date.now() - started;
    expect(answers.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(waited).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 50);
    expect(waited).toBeLessThan(3 * READ_TIMEOUT_MS);
    // At most one read in flight for the account in the isolate: the other two polled it.
    expect(await storeCalls()).toMatchObject({ totals: 1 });
    // Given up, the read is not waited for again while it is in flight.
    const again = Date.now();
    expect((await get('/api/json/8.8.3.8', key)).status).toBe(200);
    expect(Date.now() - again).toBeLessThan(READ_TIMEOUT_MS);
    // The store answers in the end: the counts are written, and the late read is kept.
    await storeFault({ delayMs: 0, failing: false });
    expect(
      await readUntil(
        () => storedLookups(account),
        (lookups) => lookups === 4,
      ),
    ).toBe(4);
  });

  it('answers every request of an account with a quota after the read, when it comes within the time-out', async () => {
    const { account, key } = await usageAccount('usagefault-late');
    await setQuotas(env.ACCOUNTS, account, { monthly: 2 });
    // Two lookups used by another isolate, written.
    const other = isolate();
    for (const i of [0, 1]) expect((await other(`/api/json/8.8.${i}.8`, key)).status).toBe(200);
    await readUntil(
      () => storedLookups(account),
      (lookups) => lookups === 2,
    );
    const get = isolate();
    await storeFault({ delayMs: READ_TIMEOUT_MS / 3, failing: false });
    const answers = await Promise.all([2, 3, 4].map((i) => get(`/api/json/8.8.${i}.8`, key)));
    expect(answers.map((response) => response.status)).toEqual([429, 429, 429]);
    expect(await storeCalls()).toMatchObject({ totals: 1 });
  });
});

describe('GET /api/usage', () => {
  it('reads the ledger at most once a second per isolate and account, however often it is asked', async () => {
    const { key } = await usageAccount('usagefault-cache');
    const get = isolate();
    await storeFault({ delayMs: 0, failing: false });
    const answers = await Promise.all(Array.from({ length: 10 }, () => get('/api/usage', key)));
    for (let i = 0; i < 10; i++) expect((await get('/api/usage', key)).status).toBe(200);
    expect(answers.map((response) => response.status)).toEqual(Array(10).fill(200));
    expect(await storeCalls()).toMatchObject({ totals: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await get('/api/usage', key)).status).toBe(200);
    expect(await storeCalls()).toMatchObject({ totals: 2 });
  });
});
