/**
 * @module What a website credential can and cannot do to an account (docs/accounts.md, "Quotas"): lookups
 * that a whitelisted website alone authenticates (whose `Origin` anyone can send) have caps of their own
 * and never spend the monthly quota of the account's keys and whitelisted server addresses, while usage
 * counts every lookup by credential; and `GET /api/usage` answers a key or a whitelisted server address,
 * never a website. Accounts `cred-*` with random suffixes, addresses 203.0.113.60-69 and hostnames
 * *.cred.example: this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { setQuotas } from '../../operator/lifecycle.ts';
import { allowDomain, allowIp } from '../../operator/whitelists.ts';
import { paidRequest, readUntil, storedRows, usageAccount } from '../support/usage.ts';

const today = () => new Date().toISOString().slice(0, 10);

const bulk = (headers: Record<string, string>, ips: readonly string[]) =>
  paidRequest('de', '/api/bulk/json', { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ ips }) });

async function statusOf(response: Promise<Response>): Promise<number> {
  const answer = await response;
  await answer.arrayBuffer();
  return answer.status;
}

describe('website traffic against an account with quotas', () => {
  it('never makes a key or a whitelisted server address get 429, and is counted by credential', async () => {
    const { account, key } = await usageAccount('cred-forged');
    await allowDomain(env.ACCOUNTS, account, 'shop.cred.example');
    await allowIp(env.ACCOUNTS, account, '203.0.113.60');
    await setQuotas(env.ACCOUNTS, account, { monthly: 5, dailyWebsite: 100, monthlyWebsite: 20 });
    // Anyone can send the whitelisted Origin from outside a browser.
    const forged = { Origin: 'https://shop.cred.example', 'CF-Connecting-IP': '198.51.100.60' };
    const byKey = { Authorization: `Bearer ${key}` };
    const byServer = { 'CF-Connecting-IP': '203.0.113.60' };

    for (let n = 0; n < 4; n++) expect(await statusOf(bulk(forged, [`8.8.${n}.1`, `8.8.${n}.2`, `8.8.${n}.3`, `8.8.${n}.4`, `8.8.${n}.5`]))).toBe(200);
    const overWebsite = await bulk(forged, ['1.1.1.1']);
    expect(overWebsite.status).toBe(429);
    expect(await overWebsite.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', quota: 'monthly-website', limit: 20, remaining: 0 });

    // The keys' and addresses' monthly quota is whole: 5 lookups, 3 by the key and 2 by the server.
    for (let i = 0; i < 3; i++) expect(await statusOf(paidRequest('de', `/api/json/8.8.8.${i}`, { headers: byKey }))).toBe(200);
    expect(await statusOf(bulk(byServer, ['9.9.9.9', '1.0.0.1']))).toBe(200);
    const overKeys = await paidRequest('de', '/api/json/8.8.4.4', { headers: byKey });
    expect(overKeys.status).toBe(429);
    expect(await overKeys.json()).toMatchObject({ quota: 'monthly', limit: 5, remaining: 0 });
    // The website is still refused by its own quota only.
    expect(await statusOf(bulk(forged, ['1.1.1.1']))).toBe(429);

    const usage = (await (await paidRequest('de', '/api/usage', { headers: byKey })).json()) as { month: Record<string, unknown> };
    expect(usage.month).toMatchObject({ lookups: 25, quota: 5, remaining: 0, websiteLookups: 20, websiteQuota: 20, websiteRemaining: 0 });
    const rows = await readUntil(
      () => storedRows(account, today(), today()),
      (found) => found.reduce((sum, row) => sum + row.lookups, 0) === 25 && found.reduce((sum, row) => sum + row.problems, 0) === 3,
    );
    const byCredential = Object.fromEntries(
      ['website:shop.cred.example', 'ip:203.0.113.60'].map((credential) => [
        credential,
        rows.filter((row) => row.credential === credential).reduce((sum, row) => sum + row.lookups, 0),
      ]),
    );
    expect(byCredential).toEqual({ 'website:shop.cred.example': 20, 'ip:203.0.113.60': 2 });
  });
});

describe('GET /api/usage', () => {
  it('answers an API key and a whitelisted server address, and refuses a website with 403 SECRET_CREDENTIAL_REQUIRED', async () => {
    const { account, key } = await usageAccount('cred-usage');
    await allowDomain(env.ACCOUNTS, account, 'app.cred.example');
    await allowIp(env.ACCOUNTS, account, '203.0.113.61');
    const website = { Origin: 'https://app.cred.example', 'CF-Connecting-IP': '198.51.100.61' };
    expect(await statusOf(paidRequest('de', '/api/json/8.8.8.8', { headers: website }))).toBe(200);

    for (const headers of [{ Authorization: `Bearer ${key}` }, { 'CF-Connecting-IP': '203.0.113.61' }, { Authorization: `Bearer ${key}`, ...website }]) {
      const answer = await paidRequest('de', '/api/usage', { headers });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ account, day: { websiteLookups: 1 } });
    }
    const refused = await paidRequest('de', '/api/usage', { headers: website });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://app.cred.example');
    const problem = (await refused.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ code: 'SECRET_CREDENTIAL_REQUIRED', status: 403 });
    expect(JSON.stringify(problem)).not.toContain(account);
  });
});
