/**
 * @module Usage counted by a paid deployment that runs as `npm run dev:paid` runs it (the app and the
 * usage Worker in workerd, on a local state directory), stopped and started again, then read by the
 * operator tool (`npm run accounts -- usage`) and by the customer (`GET /api/usage`); and the tool's
 * `set-quota`. Expected counts are those of the requests the test sends. The runtime is stopped once
 * every answered request's invocation has ended, `waitUntil` included (its tail event): the moment
 * Workers may end an isolate. Accounts `cli-usage-*`, address 203.0.113.50, hostname app.usage-cli.example.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteUsage, UsageReadError } from '../../operator/usage-reports.ts';
import { accountsCli } from '../support/accounts-cli.ts';
import { type PaidBundles, paidBundles, startPaidRuntime } from '../support/paid-runtime.ts';
import { expectedSums, type Sums } from '../support/usage-expected.ts';

const { state, accounts } = accountsCli('accounts-cli-usage-');
const work = mkdtempSync(join(tmpdir(), 'accounts-cli-usage-bundles-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let bundles: PaidBundles;
beforeAll(() => {
  bundles = paidBundles(work);
}, 120_000);

const today = new Date().toISOString().slice(0, 10);
const SERVER = '203.0.113.50';
const WEBSITE = 'app.usage-cli.example';
const READ_TOKEN = 'accounts-cli-usage-token';

/** One request the test sends, and what it counts as (docs/api.md, "Usage and quotas"): its kind, credential, success or problem, and lookups. */
interface Sent {
  readonly path: string;
  readonly init: RequestInit;
  readonly kind: string;
  readonly credential: string;
  readonly problem: boolean;
  readonly lookups: number;
}

function requestsOf(key: string, keyId: string): Sent[] {
  const byKey = { Authorization: `Bearer ${key}` };
  const byServer = { 'CF-Connecting-IP': SERVER };
  const byWebsite = { Origin: `https://${WEBSITE}`, 'CF-Connecting-IP': '198.51.100.9' };
  const post = (headers: Record<string, string>, body: unknown): RequestInit => ({
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const sent: Sent[] = [];
  for (let i = 0; i < 12; i++) {
    sent.push({ path: `/api/json/8.8.${i}.8`, init: { headers: byKey }, kind: 'single', credential: keyId, problem: false, lookups: 1 });
    sent.push({
      path: '/api/bulk/json',
      init: post(byKey, { ips: ['8.8.8.8', '81.2.69.142', `1.1.${i}.1`, '8.8.8.8'] }),
      kind: 'bulk',
      credential: keyId,
      problem: false,
      lookups: 3,
    });
    sent.push({
      path: '/api/distance',
      init: post(byServer, { from: '8.8.8.8', to: '81.2.69.142' }),
      kind: 'distance',
      credential: `ip:${SERVER}`,
      problem: false,
      lookups: 2,
    });
    sent.push({ path: '/api/countries/FR', init: { headers: byWebsite }, kind: 'reference', credential: `website:${WEBSITE}`, problem: false, lookups: 0 });
    sent.push({ path: '/api/xml/81.2.69.142', init: { headers: byWebsite }, kind: 'single', credential: `website:${WEBSITE}`, problem: false, lookups: 1 });
    sent.push({ path: '/api/json/10.0.0.1', init: { headers: byKey }, kind: 'single', credential: keyId, problem: true, lookups: 0 });
    sent.push({ path: '/api/countries/XX', init: { headers: byWebsite }, kind: 'reference', credential: `website:${WEBSITE}`, problem: true, lookups: 0 });
  }
  return sent;
}

/** A CSV report parsed by csv-parse, its numbers as numbers, keyed by its second column. */
function csvBy(lines: readonly string[]): { header: string[]; rows: Sums } {
  const [header, ...records] = parse(lines.join('\n')) as string[][];
  const rows: Sums = {};
  for (const [, key, requests, lookups, problems] of records)
    rows[key as string] = { requests: Number(requests), lookups: Number(lookups), problems: Number(problems) };
  return { header: header ?? [], rows };
}

describe('usage across a restart', () => {
  it('counts every answer sent before the runtime stopped, and reads them after it starts again', async () => {
    expect((await accounts('create', 'cli-usage-a')).status).toBe(0);
    const made = await accounts('key', 'cli-usage-a');
    const key = made.out.at(-1) ?? '';
    const keyId = /key_[0-9a-f]{12}/.exec(made.out.join('\n'))?.[0] ?? '';
    expect((await accounts('allow-ip', 'cli-usage-a', SERVER)).status).toBe(0);
    expect((await accounts('allow-domain', 'cli-usage-a', WEBSITE)).status).toBe(0);
    expect((await accounts('create', 'cli-usage-idle')).status).toBe(0);
    const sent = requestsOf(key, keyId);
    // An account whose monthly quota the first runtime uses up, with three bulks of 50.
    expect((await accounts('create', 'cli-usage-capped')).status).toBe(0);
    const capped = (await accounts('key', 'cli-usage-capped')).out.at(-1) ?? '';
    expect((await accounts('set-quota', 'cli-usage-capped', '--monthly', '150')).status).toBe(0);
    const bulkOf50 = (n: number): RequestInit => ({
      method: 'POST',
      headers: { Authorization: `Bearer ${capped}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ips: Array.from({ length: 50 }, (_, i) => `8.${n}.${i}.8`) }),
    });

    const first = await startPaidRuntime(state, bundles);
    try {
      await first.seedDatabase();
      const answers = await Promise.all(sent.map(async (request) => (await first.fetch(request.path, request.init)).status));
      expect(answers.map((status) => status < 400)).toEqual(sent.map((request) => !request.problem));
      for (let n = 0; n < 3; n++) expect((await first.fetch('/api/bulk/json', bulkOf50(n))).status).toBe(200);
      // Workers end an isolate only once its invocations, waitUntil included, have ended: wait for the tail events, then stop at once.
      for (let attempt = 0; attempt < 300 && first.ended.length < sent.length + 3; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(first.ended.filter((url) => url.includes('/api/')).length).toBe(sent.length + 3);
    } finally {
      await first.dispose();
    }

    const second = await startPaidRuntime(state, bundles);
    try {
      // A new isolate on the same state: it reads the account's totals before its first bulk, and refuses it.
      const afterRestart = await Promise.all([3, 4, 5].map(async (n) => (await second.fetch('/api/bulk/json', bulkOf50(n))).status));
      expect(afterRestart).toEqual([429, 429, 429]);
      const usage = await second.fetch('/api/usage', { headers: { Authorization: `Bearer ${key}` } });
      expect(usage.status).toBe(200);
      const all = expectedSums(sent, () => 'all').all ?? {};
      const website = sent
        .filter((request) => request.credential.startsWith('website:') && !request.problem)
        .reduce((sum, request) => sum + request.lookups, 0);
      expect(await usage.json()).toMatchObject({
        account: 'cli-usage-a',
        day: { start: today, ...all, websiteLookups: website },
        month: { start: `${today.slice(0, 7)}-01`, ...all },
      });
      // The refusals are counted too: stopped once their invocations have ended.
      for (let attempt = 0; attempt < 300 && second.ended.filter((url) => url.includes('/api/bulk/')).length < 3; attempt++)
        await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await second.dispose();
    }

    const byKind = await accounts('usage', 'cli-usage-a', '--by', 'kind', '--csv');
    expect(byKind.status).toBe(0);
    expect(csvBy(byKind.out)).toEqual({ header: ['account', 'kind', 'requests', 'lookups', 'problems'], rows: expectedSums(sent, (request) => request.kind) });
    const byCredential = await accounts('usage', 'cli-usage-a', '--by', 'credential', '--csv', '--from', today, '--to', today);
    expect(csvBy(byCredential.out).rows).toEqual(expectedSums(sent, (request) => request.credential));
    expect(csvBy((await accounts('usage', 'cli-usage-a', '--by', 'deployment', '--csv')).out).rows).toEqual(expectedSums(sent, () => 'de'));
    expect(csvBy((await accounts('usage', 'cli-usage-a', '--csv')).out).rows).toEqual(expectedSums(sent, () => today));

    const table = await accounts('usage', 'cli-usage-a', '--by', 'kind');
    expect(table.out[0]).toContain(`Usage of account cli-usage-a, ${today.slice(0, 7)}-01 to ${today} (UTC), by kind`);
    const total = expectedSums(sent, () => 'all').all ?? { requests: 0, lookups: 0, problems: 0 };
    expect(table.out.at(-1)?.split(/\s+/)).toEqual(['TOTAL', String(total.requests), String(total.lookups), String(total.problems)]);

    const month = today.slice(0, 7);
    const invoice = await accounts('usage', '--all', '--month', month, '--csv');
    expect(invoice.status).toBe(0);
    expect(parse(invoice.out.join('\n'))).toEqual([
      ['account', 'month', 'requests', 'lookups', 'problems'],
      ['cli-usage-a', month, String(total.requests), String(total.lookups), String(total.problems)],
      ['cli-usage-capped', month, '3', '150', '3'],
      ['cli-usage-idle', month, '0', '0', '0'],
    ]);
    const lastMonth = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 2, 1)).toISOString().slice(0, 7);
    expect(parse((await accounts('usage', '--all', '--month', lastMonth, '--csv')).out.join('\n')).slice(1)).toEqual([
      ['cli-usage-a', lastMonth, '0', '0', '0'],
      ['cli-usage-capped', lastMonth, '0', '0', '0'],
      ['cli-usage-idle', lastMonth, '0', '0', '0'],
    ]);
  }, 300_000);

  it('answers the operator with the read token only', async () => {
    const runtime = await startPaidRuntime(state, bundles, { usageReadToken: READ_TOKEN });
    try {
      const rows = await remoteUsage(runtime.usageUrl.href, READ_TOKEN).rows('cli-usage-a', today, today);
      expect(rows.length).toBeGreaterThan(0);
      await expect(remoteUsage(runtime.usageUrl.href, 'not-the-token').rows('cli-usage-a', today, today)).rejects.toThrow(
        new UsageReadError('the usage Worker answered 401: The read token is missing or wrong.'),
      );
    } finally {
      await runtime.dispose();
    }
    const off = await startPaidRuntime(state, bundles);
    try {
      await expect(remoteUsage(off.usageUrl.href, READ_TOKEN).rows('cli-usage-a', today, today)).rejects.toThrow(/answered 503: Operator reads are off/);
    } finally {
      await off.dispose();
    }
  }, 120_000);
});

describe('npm run accounts -- set-quota', () => {
  it('sets, shows and removes each quota, leaving the other as it is', async () => {
    expect((await accounts('create', 'cli-usage-quota')).status).toBe(0);
    expect((await accounts('set-quota', 'cli-usage-quota', '--monthly', '100000', '--daily-website', '500', '--monthly-website', '9000')).out).toContain(
      '  quotas: 100000 lookups per month by keys and server addresses, 500 lookups per day by a whitelisted website alone, 9000 lookups per month by a whitelisted website alone',
    );
    expect(JSON.parse((await accounts('show', 'cli-usage-quota')).out.join('\n')).quotas).toEqual({ monthly: 100000, dailyWebsite: 500, monthlyWebsite: 9000 });
    expect((await accounts('set-quota', 'cli-usage-quota', '--monthly', 'none', '--monthly-website', 'none')).out).toContain(
      '  quotas: 500 lookups per day by a whitelisted website alone',
    );
    expect((await accounts('set-quota', 'cli-usage-quota', '--daily-website', 'none')).out).toContain('  quotas: none');
    expect(JSON.parse((await accounts('show', 'cli-usage-quota')).out.join('\n')).quotas).toEqual({ monthly: null, dailyWebsite: null, monthlyWebsite: null });
  }, 60_000);

  it.each([
    [['set-quota', 'cli-usage-quota'], 'set-quota needs --monthly N|none, --daily-website N|none or --monthly-website N|none'],
    [['set-quota', 'cli-usage-quota', '--monthly-website', 'lots'], '--monthly-website takes a whole number of lookups or none; got "lots"'],
    [['set-quota', 'cli-usage-quota', '--monthly=-5'], '--monthly takes a whole number of lookups or none; got "-5"'],
    [['set-quota', 'cli-usage-quota', '--daily-website', '1e6'], '--daily-website takes a whole number of lookups or none; got "1e6"'],
    [['show', 'cli-usage-quota', '--monthly', '5'], '--monthly belongs to set-quota only'],
    [['usage'], 'usage takes <account>; got 0 arguments'],
    [['usage', '--all'], 'usage --all needs --month YYYY-MM'],
    [['usage', 'a', '--all', '--month', '2026-11'], 'usage --all takes no <account>'],
    [['usage', '--all', '--month', '2026-11', '--by', 'kind'], 'usage --all reports whole months: --month only'],
    [['usage', 'a', '--by', 'week'], '--by takes day, deployment, kind, credential; got "week"'],
    [['usage', 'a', '--month', '2026-13'], '--month takes YYYY-MM; got "2026-13"'],
    [['usage', 'a', '--month', '2026-11', '--from', '2026-11-02'], '--month goes without --from and --to'],
    [['show', 'a', '--csv'], '--csv belongs to usage only'],
  ])('answers bad usage %j with one line and status 2', async (argv, problem) => {
    const result = await accounts(...argv);
    expect(result.status).toBe(2);
    expect(result.err).toEqual([`npm run accounts: ${problem} (see npm run accounts -- --help)`]);
  });

  it('refuses with status 1 an unknown account, a day that is not a date, and a range that ends before it starts', async () => {
    expect(await accounts('set-quota', 'cli-usage-nobody', '--monthly', '5')).toMatchObject({
      status: 1,
      err: ['accounts: There is no account cli-usage-nobody.'],
    });
    expect(await accounts('usage', 'cli-usage-nobody')).toMatchObject({ status: 1, err: ['accounts: There is no account cli-usage-nobody.'] });
    expect(await accounts('usage', 'cli-usage-quota', '--from', '2026-02-30')).toMatchObject({
      status: 1,
      err: ['accounts: "2026-02-30" is not a date in the form YYYY-MM-DD.'],
    });
    expect(await accounts('usage', 'cli-usage-quota', '--from', '2026-11-05', '--to', '2026-11-04')).toMatchObject({
      status: 1,
      err: ['accounts: The report would end (2026-11-04) before it starts (2026-11-05).'],
    });
  }, 120_000);
});
