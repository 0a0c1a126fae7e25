/**
 * @module Server addresses that no request from a customer's server carries (docs/accounts.md, "The tool"):
 * `allow-ip` refuses them, transition forms included (IPv4-compatible, NAT64, 6to4 and Teredo of a
 * refused IPv4 host), and an entry written before the refusal existed grants nothing when a request
 * arrives, and is marked by `show` and `list`. What is refused is decided by an oracle of this file that
 * reads the addresses with ipaddr.js and the ranges as docs/accounts.md lists them, not by the service's
 * code. Accounts `grant-*` with random suffixes: this file only.
 */
import { env } from 'cloudflare:workers';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { kvListing } from '../../operator/kv-listing.ts';
import { createAccount, listAccounts, showAccount } from '../../operator/lifecycle.ts';
import { allowIp } from '../../operator/whitelists.ts';
import { AccountInputError } from '../../src/access/account.ts';
import { oracleParse } from '../support/ip-oracle.ts';
import { storedAccount } from '../support/stored-account.ts';
import { workerFetch } from '../support/worker-fetch.ts';

/** The ranges no server sends from, as docs/accounts.md lists them for `allow-ip`. */
const NOT_SENT_FROM = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '::/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '2001:2::/48',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
].map((cidr) => ipaddr.parseCIDR(cidr));

/** Whether `text` is refused: by a range, as Cloudflare's Worker address, or as a 6to4 or Teredo address of a refused IPv4 host. */
function oracleRefuses(text: string): boolean {
  // Parsed by the oracle of ip-oracle.ts: ipaddr.js alone reads `::a.b.c.d` as IPv4-mapped.
  const parsed = oracleParse(text);
  if (parsed === 'invalid') throw new Error(`${text} is not an address`);
  const address = parsed.version === 4 ? ipaddr.fromByteArray(parsed.bytes.slice(12)) : ipaddr.fromByteArray(parsed.bytes);
  if (address.kind() === 'ipv6' && address.toNormalizedString() === ipaddr.parse('2a06:98c0:3600::103').toNormalizedString()) return true;
  if (address.kind() === 'ipv6') {
    const bytes = address.toByteArray();
    // RFC 3056: 2002:V4ADDR::/48; RFC 4380: the client's address, inverted, in the last 32 bits.
    if (address.range() === '6to4') return oracleRefuses(bytes.slice(2, 6).join('.'));
    if (address.range() === 'teredo')
      return oracleRefuses(
        bytes
          .slice(12, 16)
          .map((byte) => byte ^ 0xff)
          .join('.'),
      );
  }
  return NOT_SENT_FROM.some(([network, length]) => network.kind() === address.kind() && address.match(network, length));
}

/** The Teredo address of a client at `ipv4` (RFC 4380's example server 65.54.227.120), its address inverted. */
const teredo = (ipv4: string) => {
  const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(ipv4).octets.map((octet) => octet ^ 0xff);
  return `2001:0:4136:e378:8000:63bf:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
};

/** The forms of the issue, and their neighbours that a server can send from. */
const ADDRESSES = [
  '::127.0.0.1',
  '::203.0.113.7',
  '64:ff9b::127.0.0.1',
  '64:ff9b::203.0.113.7',
  '64:ff9b:1::1',
  '2002:7f00:1::1',
  '2002:a00:1::1',
  '2002:c0a8:101::1',
  '2002:cb00:7107:1::1',
  teredo('127.0.0.1'),
  teredo('10.1.2.3'),
  teredo('240.0.0.9'),
  teredo('203.0.113.7'),
  '240.0.0.1',
  '255.255.255.254',
  '198.18.0.1',
  '198.19.255.255',
  '198.20.0.1',
  '192.0.0.1',
  '192.0.0.9',
  '192.0.0.170',
  '192.0.1.1',
  '2001:2::1',
  '203.0.113.7',
  '2a06:98c0:3600::103',
  '2a06:98c0:3600::104',
];

const newAccount = async (name: string) => {
  const id = `${name}-${crypto.randomUUID().slice(0, 8)}`;
  await createAccount(env.ACCOUNTS, id);
  return id;
};

describe('allow-ip', () => {
  it.each(ADDRESSES)('refuses %s exactly when no server can send from it', async (address) => {
    const account = await newAccount('grant-form');
    if (oracleRefuses(address)) {
      await expect(allowIp(env.ACCOUNTS, account, address)).rejects.toThrow(AccountInputError);
      expect((await storedAccount(env.ACCOUNTS, account)).ips).toEqual([]);
    } else {
      const parsed = oracleParse(address);
      expect((await allowIp(env.ACCOUNTS, account, address)).ips).toEqual([parsed === 'invalid' ? 'invalid' : parsed.canonical]);
    }
  });

  it('names the IPv4 host and its range when it refuses a 6to4 or Teredo address', async () => {
    const account = await newAccount('grant-tunnel');
    await expect(allowIp(env.ACCOUNTS, account, '2002:7f00:1::1')).rejects.toThrow(
      /^2002:7f00:1::1 is a 6to4 address \(RFC 3056\) of 127\.0\.0\.1, which is in 127\.0\.0\.0\/8 \(loopback network, RFC 1122\)/,
    );
    await expect(allowIp(env.ACCOUNTS, account, teredo('10.1.2.3'))).rejects.toThrow(
      /is a Teredo address \(RFC 4380\) of the client 10\.1\.2\.3, which is in 10\.0\.0\.0\/8/,
    );
  });
});

describe('an address grant that allow-ip refuses today', () => {
  it('grants nothing at request time, as an address no account whitelists, and is marked by show and list', async () => {
    const account = await newAccount('grant-legacy');
    const legacy = ['2a06:98c0:3600::103', '2002:7f00:1::1', '240.0.0.1'];
    // As a tool of before these refusals wrote them: the index entries, then the account listing them.
    for (const ip of legacy) await env.ACCOUNTS.put(`ip:${ip}`, JSON.stringify({ account }));
    await allowIp(env.ACCOUNTS, account, '203.0.113.77');
    const document = await storedAccount(env.ACCOUNTS, account);
    await env.ACCOUNTS.put(`account:${account}`, JSON.stringify({ ...document, ips: [...legacy, ...document.ips] }));

    for (const ip of legacy) {
      const response = await workerFetch('https://de.paid.test/api/json/8.8.8.8', { headers: { 'CF-Connecting-IP': ip } });
      expect([ip, response.status]).toEqual([ip, 401]);
      expect(await response.json()).toMatchObject({ code: 'AUTHORIZATION_REQUIRED' });
    }
    const honoured = await workerFetch('https://de.paid.test/api/json/8.8.8.8', { headers: { 'CF-Connecting-IP': '203.0.113.77' } });
    expect(honoured.status).toBe(200);
    await honoured.arrayBuffer();

    const shown = await showAccount(env.ACCOUNTS, account);
    expect(shown.ips).toEqual([...legacy, '203.0.113.77']);
    expect(shown.ignoredIps.map((entry) => entry.ip)).toEqual(legacy);
    expect(shown.ignoredIps[0]?.reason).toMatch(/every Worker on Cloudflare/);
    const listed = (
      await listAccounts({
        ...kvListing(env.ACCOUNTS),
        get: (key) => env.ACCOUNTS.get(key),
        put: (key, value) => env.ACCOUNTS.put(key, value),
        delete: (key) => env.ACCOUNTS.delete(key),
      })
    ).find((view) => view.id === account);
    expect(listed?.ignoredIps.map((entry) => entry.ip)).toEqual(legacy);
  });
});
