import { describe, expect, it } from 'vitest';
import { WranglerKv } from '../../operator/kv-stores.ts';
import { accountsCli } from '../support/accounts-cli.ts';

const { state, accounts } = accountsCli('accounts-ops-test-');

async function show(account: string): Promise<{
  status: string;
  expires: string | null;
  cancelledAt: string | null;
  ips: string[];
  domains: string[];
  keys: { id: string; revokedAt: string | null }[];
}> {
  const result = await accounts('show', account);
  expect(result.status, result.err.join('\n')).toBe(0);
  return JSON.parse(result.out.join('\n'));
}

/** A date `days` from today, UTC, as `YYYY-MM-DD`. */
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe('npm run accounts -- list', () => {
  it('prints every account with its status, last day, keys in use and whitelist entries', async () => {
    expect((await accounts('create', 'ops-list-a', '--expires', '2031-01-31')).status).toBe(0);
    expect((await accounts('key', 'ops-list-a')).status).toBe(0);
    expect((await accounts('create', 'ops-list-b')).status).toBe(0);
    expect((await accounts('allow-ip', 'ops-list-b', '203.0.113.91')).status).toBe(0);
    expect((await accounts('allow-ip', 'ops-list-b', '2001:db8::91')).status).toBe(0);
    expect((await accounts('allow-domain', 'ops-list-b', 'list.example.com')).status).toBe(0);
    expect((await accounts('cancel', 'ops-list-b')).status).toBe(0);
    expect((await accounts('create', 'ops-list-c', '--expires', '2031-06-30')).status).toBe(0);
    expect((await accounts('cancel', 'ops-list-c')).status).toBe(0);
    const listed = await accounts('list');
    expect(listed.status).toBe(0);
    const rows = listed.out.map((line) => line.split(/\s{2,}/));
    expect(rows[0]).toEqual(['ACCOUNT', 'STATUS', 'LAST DAY', 'KEYS', 'IPS', 'DOMAINS']);
    expect(rows).toContainEqual(['ops-list-a', 'active', '2031-01-31', '1', '0', '0']);
    // A cancelled account's last day is the day it was cancelled, not the end date it had.
    expect(rows).toContainEqual(['ops-list-b', 'cancelled', inDays(0), '0', '2', '1']);
    expect(rows).toContainEqual(['ops-list-c', 'cancelled', inDays(0), '0', '0', '0']);
  }, 60_000);
});

describe('npm run accounts -- disallow-ip | disallow-domain', () => {
  it('takes an entry off the whitelist and its index, so that another account may whitelist it', async () => {
    expect((await accounts('create', 'ops-white-a')).status).toBe(0);
    expect((await accounts('create', 'ops-white-b')).status).toBe(0);
    expect((await accounts('allow-ip', 'ops-white-a', '203.0.113.92')).status).toBe(0);
    expect((await accounts('allow-ip', 'ops-white-a', '203.0.113.93')).status).toBe(0);
    expect((await accounts('allow-domain', 'ops-white-a', 'white.example.com')).status).toBe(0);
    expect((await accounts('disallow-ip', 'ops-white-a', '203.0.113.92')).status).toBe(0);
    expect((await accounts('disallow-domain', 'ops-white-a', 'WHITE.example.com')).status).toBe(0);
    expect(await show('ops-white-a')).toMatchObject({ ips: ['203.0.113.93'], domains: [] });
    const kv = new WranglerKv('de', 'local', state);
    expect(await kv.get('ip:203.0.113.92')).toBeNull();
    expect(await kv.get('domain:white.example.com')).toBeNull();
    expect((await accounts('allow-ip', 'ops-white-b', '203.0.113.92')).status).toBe(0);
  }, 60_000);

  it('refuses unknown accounts, malformed entries and entries not whitelisted, with status 1, changing nothing', async () => {
    expect((await accounts('create', 'ops-white-c')).status).toBe(0);
    expect((await accounts('allow-ip', 'ops-white-c', '203.0.113.94')).status).toBe(0);
    const before = await show('ops-white-c');
    for (const [argv, message] of [
      [['disallow-ip', 'ops-nobody', '203.0.113.94'], /no account ops-nobody/],
      [['disallow-ip', 'ops-white-c', '203.0.113.0/24'], /not a single IPv4 or IPv6 address/],
      [['disallow-ip', 'ops-white-c', '203.0.113.95'], /does not whitelist the address 203\.0\.113\.95/],
      [['disallow-domain', 'ops-white-c', 'https://example.com'], /not a bare hostname/],
      [['disallow-domain', 'ops-white-c', 'other.example.com'], /does not whitelist the hostname other\.example\.com/],
    ] as const) {
      const result = await accounts(...argv);
      expect(result.status, argv.join(' ')).toBe(1);
      expect(result.err.join('\n'), argv.join(' ')).toMatch(message);
    }
    expect(await show('ops-white-c')).toEqual(before);
  }, 60_000);
});

describe('npm run accounts -- renew', () => {
  it('sets the last day and reactivates a cancelled account', async () => {
    expect((await accounts('create', 'ops-renew', '--expires', inDays(1))).status).toBe(0);
    expect((await accounts('cancel', 'ops-renew')).status).toBe(0);
    const renewed = await accounts('renew', 'ops-renew', '--expires', inDays(365));
    expect(renewed.status).toBe(0);
    expect(renewed.out[0]).toBe(`Account ops-renew: active, access through ${inDays(365)} (UTC).`);
    expect(await show('ops-renew')).toMatchObject({ status: 'active', expires: inDays(365), cancelledAt: null });
  }, 60_000);

  it('refuses a date in the past, a malformed date and an unknown account (1), and a missing date (2)', async () => {
    expect((await accounts('create', 'ops-renew-bad', '--expires', '2032-06-30')).status).toBe(0);
    for (const [argv, message] of [
      [['renew', 'ops-renew-bad', '--expires', inDays(-1)], /in the past/],
      [['renew', 'ops-renew-bad', '--expires', '2032-13-01'], /not a date/],
      [['renew', 'ops-nobody', '--expires', '2032-01-01'], /no account ops-nobody/],
    ] as const) {
      const result = await accounts(...argv);
      expect(result.status, argv.join(' ')).toBe(1);
      expect(result.err.join('\n')).toMatch(message);
    }
    const missing = await accounts('renew', 'ops-renew-bad');
    expect(missing.status).toBe(2);
    expect(missing.err).toEqual(['npm run accounts: renew needs --expires YYYY-MM-DD (see npm run accounts -- --help)']);
    expect(await show('ops-renew-bad')).toMatchObject({ status: 'active', expires: '2032-06-30' });
  }, 60_000);
});

describe('npm run accounts -- rotate-key', () => {
  it('prints a new key alone on the last line and revokes the old one, at once or after the grace period', async () => {
    expect((await accounts('create', 'ops-rotate')).status).toBe(0);
    const made = await accounts('key', 'ops-rotate');
    const firstId = /key_[0-9a-f]{12}/.exec(made.out.join('\n'))?.[0];
    const rotated = await accounts('rotate-key', 'ops-rotate');
    expect(rotated.status).toBe(0);
    expect(rotated.out.at(-1)).toMatch(/^ipgeo_\S+$/);
    expect(rotated.out.slice(0, -1).join('\n')).not.toContain('ipgeo_');
    expect(rotated.out[0]).toContain(`the old key ${firstId} is revoked now`);
    const secondId = /Created key (key_[0-9a-f]{12})/.exec(rotated.out[0] ?? '')?.[1];

    const started = Date.now();
    const graced = await accounts('rotate-key', 'ops-rotate', '--grace', '2h');
    expect(graced.status).toBe(0);
    expect(graced.out[0]).toContain(`the old key ${secondId} keeps working until`);
    const keys = (await show('ops-rotate')).keys;
    expect(keys).toHaveLength(3);
    const [first, second, third] = keys;
    expect(first?.id).toBe(firstId);
    expect(Date.parse(first?.revokedAt ?? '')).toBeLessThanOrEqual(Date.now());
    expect(second?.id).toBe(secondId);
    const graceEnds = Date.parse(second?.revokedAt ?? '');
    expect(graceEnds).toBeGreaterThanOrEqual(started + 7_200_000);
    expect(graceEnds).toBeLessThanOrEqual(Date.now() + 7_200_000);
    expect(third?.revokedAt).toBeNull();
  }, 60_000);

  it('refuses bad grace periods, unknown keys and accounts without a key, changing nothing', async () => {
    expect((await accounts('create', 'ops-rotate-bad')).status).toBe(0);
    const before = await show('ops-rotate-bad');
    for (const [argv, status] of [
      [['rotate-key', 'ops-rotate-bad'], 1],
      [['rotate-key', 'ops-rotate-bad', '--key', 'key_000000000000'], 1],
      [['rotate-key', 'ops-rotate-bad', '--grace', '100d'], 1],
      [['rotate-key', 'ops-rotate-bad', '--grace', '5x'], 2],
      [['rotate-key', 'ops-rotate-bad', '--grace', '12'], 2],
      [['key', 'ops-rotate-bad', '--grace', '1h'], 2],
      [['rotate-key', 'ops-nobody'], 1],
    ] as const) {
      const result = await accounts(...argv);
      expect(result.status, argv.join(' ')).toBe(status);
      // Refusals say why; bad usage says so in one line that points at --help.
      expect(result.err.join('\n'), argv.join(' ')).toMatch(status === 1 ? /^accounts: / : /^npm run accounts: .* \(see npm run accounts -- --help\)$/);
    }
    expect(await show('ops-rotate-bad')).toEqual(before);
  }, 60_000);
});
