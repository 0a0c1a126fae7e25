/**
 * @module The operator tool (`npm run accounts`), in Node as operators run it, on local KV state in a
 * temporary directory (never the developer's `.wrangler/state`).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { USAGE } from '../../operator/command-line.ts';
import { WranglerKv } from '../../operator/kv-stores.ts';
import { accountsCli } from '../support/accounts-cli.ts';

const { state, accounts } = accountsCli('accounts-cli-test-');

describe('npm run accounts', () => {
  it('creates an account, makes, revokes and whitelists, cancels, and shows it without keys', async () => {
    expect((await accounts('create', 'cli-flow', '--expires', '2031-12-31')).status).toBe(0);
    const made = await accounts('key', 'cli-flow');
    expect(made.status).toBe(0);
    const key = made.out.at(-1) ?? '';
    expect(key).toMatch(/^ipgeo_[0-9A-Za-z]{49}$/);
    const keyId = /key_[0-9a-f]{12}/.exec(made.out.join('\n'))?.[0] ?? '';
    expect((await accounts('allow-ip', 'cli-flow', '203.0.113.77')).status).toBe(0);
    expect((await accounts('allow-domain', 'cli-flow', 'App.Example.com')).status).toBe(0);
    expect((await accounts('revoke', 'cli-flow', keyId)).status).toBe(0);
    expect((await accounts('cancel', 'cli-flow')).status).toBe(0);
    const shown = await accounts('show', 'cli-flow');
    expect(shown.status).toBe(0);
    const view = JSON.parse(shown.out.join('\n'));
    expect(view).toMatchObject({
      id: 'cli-flow',
      status: 'cancelled',
      expires: '2031-12-31',
      ips: ['203.0.113.77'],
      domains: ['app.example.com'],
      keys: [{ id: keyId, revokedAt: expect.any(String) }],
    });
    expect(shown.out.join('\n')).not.toMatch(/ipgeo_|sha256|[0-9a-f]{64}/);
  }, 60_000);

  it('prints the new key alone on the last line of its output, as a separate process', async () => {
    expect((await accounts('create', 'cli-process')).status).toBe(0);
    const result = spawnSync('npm', ['run', '-s', 'accounts', '--', 'key', 'cli-process', '--persist-to', state], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^ipgeo_[0-9A-Za-z]{49}$/);
    expect(lines.slice(0, -1).join('\n')).not.toContain('ipgeo_');
  }, 60_000);

  it.each([
    [[], 'no command given'],
    [['launch', 'x'], "unknown command 'launch'"],
    [['create'], 'create takes <account>; got 0 arguments'],
    [['create', 'a', 'b'], 'create takes <account>; got 2 arguments'],
    [['key', 'cli-usage', '--expires', '2030-01-01'], '--expires belongs to create and renew only'],
    [['show', 'cli-usage', '--verbose'], "unknown option '--verbose'"],
    [['show', 'cli-usage', '--remote'], '--persist-to is for local state; it cannot go with --remote'],
  ])('answers bad usage %j with one line that points at --help, and status 2', async (argv, problem) => {
    const result = await accounts(...argv);
    expect(result.status).toBe(2);
    expect(result.err).toEqual([`npm run accounts: ${problem} (see npm run accounts -- --help)`]);
    expect(result.out).toEqual([]);
  });

  it('answers --help with the usage, and status 0', async () => {
    const result = await accounts('--help');
    expect(result).toEqual({ status: 0, out: USAGE.split('\n'), err: [] });
  });

  it('says that a cancelled account gives no access, not until when it would have', async () => {
    expect((await accounts('create', 'cli-cancel', '--expires', '2031-12-31')).status).toBe(0);
    const cancelled = await accounts('cancel', 'cli-cancel');
    expect(cancelled.status).toBe(0);
    expect(cancelled.out[0]).toMatch(/^Account cli-cancel: cancelled: .*no longer give access/);
    expect(cancelled.out.join('\n')).not.toMatch(/access through|2031-12-31/);
  }, 60_000);

  it('refuses with status 1, and changes nothing, when the accounts do not allow an operation', async () => {
    expect((await accounts('create', 'cli-refuse-a')).status).toBe(0);
    expect((await accounts('create', 'cli-refuse-b')).status).toBe(0);
    expect((await accounts('allow-ip', 'cli-refuse-a', '203.0.113.78')).status).toBe(0);
    const before = (await accounts('show', 'cli-refuse-b')).out;
    const refusals = [
      ['create', 'cli-refuse-a'],
      ['create', 'cli-refuse-c', '--expires', '2030-02-30'],
      ['create', 'Not_An_Id'],
      ['key', 'cli-nobody'],
      ['revoke', 'cli-refuse-b', 'key_000000000000'],
      ['allow-ip', 'cli-refuse-b', '203.0.113.78'],
      ['allow-ip', 'cli-refuse-b', '203.0.113.0/24'],
      ['allow-domain', 'cli-refuse-b', 'https://example.com'],
      ['show', 'cli-refuse-c'],
    ];
    for (const argv of refusals) {
      const result = await accounts(...argv);
      expect(result.status, argv.join(' ')).toBe(1);
      expect(result.err.join('\n'), argv.join(' ')).toMatch(/^accounts: /);
    }
    expect((await accounts('show', 'cli-refuse-b')).out).toEqual(before);
  }, 60_000);
});

describe('npm run accounts -- allow-ip', () => {
  it('refuses an address no server sends from, naming its range and why, and whitelists a public one', async () => {
    expect((await accounts('create', 'cli-unsendable')).status).toBe(0);
    const privateUse = await accounts('allow-ip', 'cli-unsendable', '192.168.1.10');
    expect(privateUse.status).toBe(1);
    expect(privateUse.err.join('\n')).toMatch(/^accounts: 192\.168\.1\.10 is in 192\.168\.0\.0\/16 \(private-use network, RFC 1918\): no server sends from it/);
    const worker = await accounts('allow-ip', 'cli-unsendable', '2a06:98c0:3600::103');
    expect(worker.status).toBe(1);
    expect(worker.err.join('\n')).toMatch(/every Worker on Cloudflare/);
    expect((await accounts('allow-ip', 'cli-unsendable', '203.0.113.79')).status).toBe(0);
    expect(JSON.parse((await accounts('show', 'cli-unsendable')).out.join('\n')).ips).toEqual(['203.0.113.79']);
  }, 60_000);

  it('marks in show and list an address whitelisted before allow-ip refused it, which grants nothing now', async () => {
    expect((await accounts('create', 'cli-legacy-grant')).status).toBe(0);
    expect((await accounts('allow-ip', 'cli-legacy-grant', '203.0.113.76')).status).toBe(0);
    // As a tool of before the refusal wrote it.
    const kv = new WranglerKv('de', 'local', state);
    const document = JSON.parse((await kv.get('account:cli-legacy-grant')) ?? '{}') as { ips: string[] };
    await kv.put('account:cli-legacy-grant', JSON.stringify({ ...document, ips: ['2002:a00:1::1', ...document.ips] }));
    const shown = JSON.parse((await accounts('show', 'cli-legacy-grant')).out.join('\n'));
    expect(shown.ips).toEqual(['2002:a00:1::1', '203.0.113.76']);
    expect(shown.ignoredIps).toEqual([
      { ip: '2002:a00:1::1', reason: expect.stringMatching(/^2002:a00:1::1 is a 6to4 address \(RFC 3056\) of 10\.0\.0\.1, which is in 10\.0\.0\.0\/8/) },
    ]);
    const row = (await accounts('list')).out.find((line) => line.startsWith('cli-legacy-grant '));
    expect(row?.split(/\s{2,}/)).toEqual(['cli-legacy-grant', 'active', '-', '0', '2 (1 ignored)', '0']);
    const removed = await accounts('disallow-ip', 'cli-legacy-grant', '2002:a00:1::1');
    expect(removed.status).toBe(0);
    expect(removed.out).toContain('  server addresses: 203.0.113.76');
  }, 60_000);
});

describe('WranglerKv', () => {
  it('reads, writes and deletes through wrangler kv key, as --remote does', async () => {
    const kv = new WranglerKv('de', 'local', state);
    expect(await kv.get('cli-wrangler:missing')).toBeNull();
    await kv.put('cli-wrangler:value', '{"a":"b c"}');
    expect(await kv.get('cli-wrangler:value')).toBe('{"a":"b c"}');
    await kv.delete('cli-wrangler:value');
    expect(await kv.get('cli-wrangler:value')).toBeNull();
  }, 60_000);

  it('reads what the tool wrote through the platform proxy', async () => {
    expect((await accounts('create', 'cli-shared')).status).toBe(0);
    const text = await new WranglerKv('de', 'local', state).get('account:cli-shared');
    expect(JSON.parse(text ?? 'null')).toMatchObject({ v: 1, id: 'cli-shared', status: 'active' });
  }, 60_000);
});
