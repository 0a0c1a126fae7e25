/**
 * @module Usage counted for paid accounts (docs/api.md, "Usage and quotas"): by kind, credential and deployment,
 * successes with their lookups, problems apart, 5xx and uncounted paths not at all; read back by the
 * customer (`GET /api/usage`) and by the operator (the usage Worker's rows); two deployments into one
 * store; exact under concurrent load. Expected counts are those of the requests each test sends.
 * Accounts `usage-*` with random suffixes, addresses 203.0.113.90-99 and hostnames *.usage.example:
 * this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../operator/keys.ts';
import { allowDomain, allowIp } from '../../operator/whitelists.ts';
import { resetDatabaseForTests } from '../../src/geo/current-database.ts';
import { CURRENT_RECORD_KEY } from '../../src/geo/published.ts';
import { publishCompiled } from '../support/publish.ts';
import { type Deployment, paidRequest, readUntil, storedRows, usageAccount } from '../support/usage.ts';
import { expectedSums, type Sums } from '../support/usage-expected.ts';

const today = () => new Date().toISOString().slice(0, 10);

/** What the customer reads: `GET /api/usage` with `headers`. */
async function usageOf(headers: Record<string, string>, deployment: Deployment = 'de') {
  const response = await paidRequest(deployment, '/api/usage', { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('cache-control')).toBe('no-store');
  return (await response.json()) as { account: string; day: Record<string, unknown>; month: Record<string, unknown> };
}

/** A request the tests send, with what the specification counts for it: a single 1, a bulk its distinct addresses, a distance 2, reference data 0. */
interface Sent {
  readonly deployment: Deployment;
  readonly path: string;
  readonly init: RequestInit;
  readonly kind: 'single' | 'bulk' | 'distance' | 'reference';
  readonly credential: string;
  readonly problem: boolean;
  readonly lookups: number;
}

/** What the test expects the store to hold, by deployment, kind and credential, from what it sent. */
const expectedRows = (sent: readonly Sent[]): Sums => expectedSums(sent, (request) => `${request.deployment} ${request.kind} ${request.credential}`);

function storedSums(rows: readonly { deployment: string; kind: string; credential: string; requests: number; lookups: number; problems: number }[]): Sums {
  return Object.fromEntries(
    rows.map((row) => [`${row.deployment} ${row.kind} ${row.credential}`, { requests: row.requests, lookups: row.lookups, problems: row.problems }]),
  );
}

const json = (headers: Record<string, string>, body: unknown): RequestInit => ({
  method: 'POST',
  headers: { ...headers, 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

/** Sends each request and checks that its status is a success or a problem as expected. */
async function send(sent: readonly Sent[]): Promise<void> {
  for (const request of sent) {
    const response = await paidRequest(request.deployment, request.path, request.init);
    expect([request.path, response.status >= 400]).toEqual([request.path, request.problem]);
    await response.arrayBuffer();
  }
}

describe('usage counted per account', () => {
  it('counts each kind with its lookups, problems apart, and answers them at once to GET /api/usage', async () => {
    const { account, key } = await usageAccount('usage-kinds');
    const keyId = `key_${(await env.ACCOUNTS.get(`account:${account}`))?.match(/key_([0-9a-f]{12})/)?.[1]}`;
    const auth = { Authorization: `Bearer ${key}` };
    const sent: Sent[] = [
      { deployment: 'de', path: '/api/json/8.8.8.8', init: { headers: auth }, kind: 'single', credential: keyId, problem: false, lookups: 1 },
      { deployment: 'de', path: '/api/xml/81.2.69.142', init: { headers: auth }, kind: 'single', credential: keyId, problem: false, lookups: 1 },
      {
        deployment: 'de',
        path: '/api/bulk/json',
        init: json(auth, { ips: ['8.8.8.8', '81.2.69.142', '8.8.8.8', '1.1.1.1', '10.0.0.1'] }),
        kind: 'bulk',
        credential: keyId,
        problem: false,
        lookups: 4,
      },
      {
        deployment: 'de',
        path: '/api/bulk/xml',
        init: json(auth, { ips: ['2001:4860:4860::8888'] }),
        kind: 'bulk',
        credential: keyId,
        problem: false,
        lookups: 1,
      },
      {
        deployment: 'de',
        path: '/api/distance',
        init: json(auth, { from: '8.8.8.8', to: '81.2.69.142' }),
        kind: 'distance',
        credential: keyId,
        problem: false,
        lookups: 2,
      },
      { deployment: 'de', path: '/api/countries/DE', init: { headers: auth }, kind: 'reference', credential: keyId, problem: false, lookups: 0 },
      { deployment: 'de', path: '/api/timezones/Europe/Berlin', init: { headers: auth }, kind: 'reference', credential: keyId, problem: false, lookups: 0 },
      { deployment: 'de', path: '/api/json/10.0.0.1', init: { headers: auth }, kind: 'single', credential: keyId, problem: true, lookups: 0 },
      { deployment: 'de', path: '/api/countries/XX', init: { headers: auth }, kind: 'reference', credential: keyId, problem: true, lookups: 0 },
      {
        deployment: 'de',
        path: '/api/bulk/json',
        init: json(auth, { ips: Array.from({ length: 51 }, (_, i) => `8.8.8.${i}`) }),
        kind: 'bulk',
        credential: keyId,
        problem: true,
        lookups: 0,
      },
      { deployment: 'de', path: '/api/distance', init: { method: 'GET', headers: auth }, kind: 'distance', credential: keyId, problem: true, lookups: 0 },
    ];
    await send(sent);
    const body = await usageOf(auth);
    const counts = { requests: 7, lookups: 1 + 1 + 4 + 1 + 2, problems: 4 };
    expect(body).toEqual({
      account,
      day: { start: today(), ...counts, websiteLookups: 0, websiteQuota: null, websiteRemaining: null, resetsAt: expect.stringMatching(/T00:00:00Z$/) },
      month: {
        start: `${today().slice(0, 7)}-01`,
        ...counts,
        quota: null,
        remaining: null,
        websiteLookups: 0,
        websiteQuota: null,
        websiteRemaining: null,
        resetsAt: expect.stringMatching(/-01T00:00:00Z$/),
      },
    });
    // The operator reads the same, by kind and credential, once this isolate has written its batch.
    const rows = await readUntil(
      () => storedRows(account, today(), today()),
      (found) => found.reduce((sum, row) => sum + row.requests + row.problems, 0) === sent.length,
    );
    expect(storedSums(rows)).toEqual(expectedRows(sent));
    expect(rows.every((row) => row.day === today())).toBe(true);
  });

  it('names the credential: the key id, the whitelisted server address, the whitelisted website', async () => {
    const { account, key } = await usageAccount('usage-credentials');
    const second = await createApiKey(env.ACCOUNTS, account);
    await allowIp(env.ACCOUNTS, account, '203.0.113.90');
    await allowDomain(env.ACCOUNTS, account, 'app.usage.example');
    const keyIds = JSON.parse((await env.ACCOUNTS.get(`account:${account}`)) ?? '{}').keys.map((stored: { id: string }) => stored.id) as string[];
    const website = { Origin: 'https://app.usage.example', 'CF-Connecting-IP': '198.51.100.90' };
    const sent: Sent[] = [
      {
        deployment: 'de',
        path: '/api/json/8.8.8.8',
        init: { headers: { Authorization: `Bearer ${key}` } },
        kind: 'single',
        credential: keyIds[0] ?? '',
        problem: false,
        lookups: 1,
      },
      {
        deployment: 'de',
        path: '/api/json/8.8.8.8',
        init: { headers: { Authorization: `Bearer ${second.key}` } },
        kind: 'single',
        credential: second.keyId,
        problem: false,
        lookups: 1,
      },
      {
        deployment: 'de',
        path: '/api/json/8.8.4.4',
        init: { headers: { 'CF-Connecting-IP': '203.0.113.90' } },
        kind: 'single',
        credential: 'ip:203.0.113.90',
        problem: false,
        lookups: 1,
      },
      {
        deployment: 'de',
        path: '/api/json/8.8.4.4',
        init: { headers: website },
        kind: 'single',
        credential: 'website:app.usage.example',
        problem: false,
        lookups: 1,
      },
      {
        deployment: 'de',
        path: '/api/bulk/json',
        init: json(website, { ips: ['8.8.8.8', '1.1.1.1'] }),
        kind: 'bulk',
        credential: 'website:app.usage.example',
        problem: false,
        lookups: 2,
      },
      // A key decides alone, whatever the address and origin (docs/accounts.md).
      {
        deployment: 'de',
        path: '/api/json/1.1.1.1',
        init: { headers: { ...website, Authorization: `Bearer ${key}` } },
        kind: 'single',
        credential: keyIds[0] ?? '',
        problem: false,
        lookups: 1,
      },
    ];
    await send(sent);
    expect((await usageOf({ Authorization: `Bearer ${key}` })).day).toMatchObject({ requests: 6, lookups: 7, websiteLookups: 3 });
    const rows = await readUntil(
      () => storedRows(account, today(), today()),
      (found) => found.reduce((sum, row) => sum + row.requests, 0) === sent.length,
    );
    expect(storedSums(rows)).toEqual(expectedRows(sent));
    // Neither keys nor addresses that the account does not list are kept.
    expect(JSON.stringify(rows)).not.toMatch(/ipgeo_|198\.51\.100\.90/);
  });

  it('does not count /api/usage, open paths, preflights, refusals of access, unknown paths or 5xx', async () => {
    const { account, key } = await usageAccount('usage-uncounted');
    await allowDomain(env.ACCOUNTS, account, 'app2.usage.example');
    const auth = { Authorization: `Bearer ${key}` };
    const statuses = [];
    for (const [path, init] of [
      ['/api/usage', { headers: auth }],
      ['/api/status', { headers: auth }],
      ['/api/countrycodes', { headers: auth }],
      ['/api/nothing', { headers: auth }],
      ['/api/json/8.8.8.8', { method: 'OPTIONS', headers: { Origin: 'https://app2.usage.example', 'Access-Control-Request-Method': 'GET' } }],
      ['/api/json/8.8.8.8', { headers: { Authorization: 'Bearer ipgeo_nothing' } }],
      ['/health', { headers: auth }],
    ] as const) {
      const response = await paidRequest('de', path, init);
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 404, 204, 401, 200]);
    try {
      await env.GEO_DATA.delete(CURRENT_RECORD_KEY);
      resetDatabaseForTests();
      const unavailable = await paidRequest('de', '/api/json/8.8.8.8', { headers: auth });
      expect(unavailable.status).toBe(503);
      await unavailable.arrayBuffer();
    } finally {
      await publishCompiled();
      resetDatabaseForTests();
    }
    expect((await usageOf(auth)).month).toMatchObject({ requests: 0, lookups: 0, problems: 0 });
  });
});

describe('usage of two deployments', () => {
  it('adds up the counts of de and sg in one store', async () => {
    const { account, key } = await usageAccount('usage-regions');
    const auth = { Authorization: `Bearer ${key}` };
    const keyId = `key_${(await env.ACCOUNTS.get(`account:${account}`))?.match(/key_([0-9a-f]{12})/)?.[1]}`;
    const sent: Sent[] = [];
    for (const deployment of ['de', 'sg', 'sg'] as const) {
      sent.push({ deployment, path: '/api/json/8.8.8.8', init: { headers: auth }, kind: 'single', credential: keyId, problem: false, lookups: 1 });
      sent.push({
        deployment,
        path: '/api/bulk/json',
        init: json(auth, { ips: ['8.8.8.8', '81.2.69.142', '1.1.1.1'] }),
        kind: 'bulk',
        credential: keyId,
        problem: false,
        lookups: 3,
      });
    }
    await send(sent);
    // sg writes within about a second; de reads the store, with what de has not written yet.
    const read = await readUntil(
      () => usageOf(auth),
      (body) => body.month.requests === sent.length,
    );
    expect(read.month).toMatchObject({ requests: 6, lookups: 12, problems: 0 });
    expect((await usageOf(auth, 'sg')).month).toMatchObject({ requests: 6, lookups: 12 });
    const rows = await readUntil(
      () => storedRows(account, today(), today()),
      (found) => found.reduce((sum, row) => sum + row.requests, 0) === sent.length,
    );
    expect(storedSums(rows)).toEqual(expectedRows(sent));
  });
});

describe('usage under concurrent load', () => {
  it('counts every answer of 8 concurrent clients on two deployments exactly, by kind and credential', async () => {
    const { account, key } = await usageAccount('usage-load');
    await allowIp(env.ACCOUNTS, account, '203.0.113.91');
    await allowDomain(env.ACCOUNTS, account, 'app3.usage.example');
    const keyId = `key_${(await env.ACCOUNTS.get(`account:${account}`))?.match(/key_([0-9a-f]{12})/)?.[1]}`;
    const credentials = [
      { headers: { Authorization: `Bearer ${key}`, 'CF-Connecting-IP': '198.51.100.91' }, credential: keyId },
      { headers: { 'CF-Connecting-IP': '203.0.113.91' }, credential: 'ip:203.0.113.91' },
      { headers: { Origin: 'https://app3.usage.example', 'CF-Connecting-IP': '198.51.100.92' }, credential: 'website:app3.usage.example' },
    ];
    /** Request `i` of client `c`: a kind, a credential and an outcome in turn. */
    const requestOf = (c: number, i: number): Sent => {
      const deployment: Deployment = c % 2 === 0 ? 'de' : 'sg';
      const { headers, credential } = credentials[(c + i) % 3] as (typeof credentials)[number];
      const common = { deployment, credential };
      switch (i % 6) {
        case 0:
          return { ...common, path: `/api/json/8.8.${i % 256}.8`, init: { headers }, kind: 'single', problem: false, lookups: 1 };
        case 1:
          return {
            ...common,
            path: '/api/bulk/json',
            init: json(headers, { ips: [`1.1.${i % 256}.1`, '8.8.8.8', '8.8.8.8'] }),
            kind: 'bulk',
            problem: false,
            lookups: 2,
          };
        case 2:
          return {
            ...common,
            path: '/api/distance',
            init: json(headers, { from: '8.8.8.8', to: `81.2.69.${i % 200}` }),
            kind: 'distance',
            problem: false,
            lookups: 2,
          };
        case 3:
          return { ...common, path: '/api/phonecodes/49', init: { headers }, kind: 'reference', problem: false, lookups: 0 };
        case 4:
          return { ...common, path: `/api/xml/81.2.69.${i % 200}`, init: { headers }, kind: 'single', problem: false, lookups: 1 };
        default:
          return { ...common, path: '/api/json/192.168.0.1', init: { headers }, kind: 'single', problem: true, lookups: 0 };
      }
    };
    const CLIENTS = 8;
    const PER_CLIENT = 300;
    const sent: Sent[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; i < PER_CLIENT; i++) {
          const request = requestOf(c, i);
          const response = await paidRequest(request.deployment, request.path, request.init);
          expect(response.status >= 400).toBe(request.problem);
          await response.arrayBuffer();
          sent.push(request);
        }
      }),
    );
    expect(sent.length).toBe(CLIENTS * PER_CLIENT);
    const expected = expectedRows(sent);
    const answers = (rows: readonly { requests: number; problems: number }[]) => rows.reduce((sum, row) => sum + row.requests + row.problems, 0);
    const rows = await readUntil(
      () => storedRows(account, today(), today()),
      (found) => answers(found) >= sent.length,
    );
    expect(storedSums(rows)).toEqual(expected);
    // Nothing is counted twice afterwards: written batches are not written again.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(storedSums(await storedRows(account, today(), today()))).toEqual(expected);
  }, 240_000);
});
