/**
 * @module The paid servers when KV fails or is slow (docs/accounts.md, "When KV fails"): a request whose
 * credential is not cached answers 503 `ACCOUNTS_UNAVAILABLE` with `Retry-After` while reads fail, and
 * is served once they succeed again; a slow read holds up its own request only. The faults are made
 * by handing the app an `ACCOUNTS` binding that wraps the real one. Accounts `kvfault-*`: this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../operator/keys.ts';
import { createAccount } from '../../operator/lifecycle.ts';
import { createApp } from '../../src/app.ts';
import { appFetch } from '../support/worker-fetch.ts';

const app = createApp('paid');

/** A GET of the paid app with the key, against `accounts` as the `ACCOUNTS` binding. */
function getWith(accounts: KVNamespace, key: string): Promise<Response> {
  const request = new Request('https://de.ipgeo.test/api/json/8.8.8.8', { headers: { Authorization: `Bearer ${key}`, 'CF-Connecting-IP': '203.0.113.90' } });
  return appFetch(app, request, { ...env, ACCOUNTS: accounts });
}

/** The real binding, with `get` replaced. */
function withGet(get: (key: string) => Promise<string | null>): KVNamespace {
  return { get } as unknown as KVNamespace;
}

async function newKey(account: string): Promise<string> {
  await createAccount(env.ACCOUNTS, account);
  return (await createApiKey(env.ACCOUNTS, account)).key;
}

describe('when KV fails', () => {
  it('answers 503 ACCOUNTS_UNAVAILABLE with Retry-After, and serves again once KV answers', async () => {
    const key = await newKey('kvfault-failing');
    const failing = withGet(() => Promise.reject(new Error('KV GET failed: 503 Service Unavailable')));
    const refused = await getWith(failing, key);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('Retry-After')).toBe('5');
    expect(refused.headers.get('Content-Type')).toBe('application/problem+json; charset=utf-8');
    const body = (await refused.json()) as { code: string; detail: string };
    expect(body.code).toBe('ACCOUNTS_UNAVAILABLE');
    expect(body.detail).not.toMatch(/KV GET|apikey:|\.ts/);
    // The failure was not cached: the next request reads again and is served.
    expect((await getWith(env.ACCOUNTS, key)).status).toBe(200);
  });

  it('keeps serving credentials it has cached', async () => {
    const key = await newKey('kvfault-cached');
    expect((await getWith(env.ACCOUNTS, key)).status).toBe(200);
    expect(
      (
        await getWith(
          withGet(() => Promise.reject(new Error('KV down'))),
          key,
        )
      ).status,
    ).toBe(200);
  });
});

describe('when KV is slow', () => {
  it('holds up only the request that reads, and answers it when the read completes', async () => {
    const slowKey = await newKey('kvfault-slow');
    const warmKey = await newKey('kvfault-warm');
    expect((await getWith(env.ACCOUNTS, warmKey)).status).toBe(200);

    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = withGet(async (name) => {
      await gate;
      return env.ACCOUNTS.get(name);
    });
    let slowAnswered = false;
    const pending = getWith(slow, slowKey).then((response) => {
      slowAnswered = true;
      return response;
    });
    // Meanwhile, cached credentials are answered through the same slow binding.
    for (let i = 0; i < 5; i++) expect((await getWith(slow, warmKey)).status).toBe(200);
    expect(slowAnswered).toBe(false);
    release();
    expect((await pending).status).toBe(200);
  });
});
