/**
 * @module An `Origin` whose hostname is longer than a hostname can be (253 characters, RFC 1035) is no
 * website any account can whitelist: it is not looked up in KV (whose keys end at 512 bytes, where the
 * lookup failed and a request with a valid key answered 503 ACCOUNTS_UNAVAILABLE), and gets no CORS.
 * A whitelisted hostname of exactly 253 characters still works. Accounts `long-origin-*`: this file only.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../operator/keys.ts';
import { createAccount } from '../../operator/lifecycle.ts';
import { allowDomain } from '../../operator/whitelists.ts';
import { workerFetch } from '../support/worker-fetch.ts';

/** A hostname of `length` characters ending in `.test`, of letters with a dot after every 63 (labels of 63 at most). */
function hostnameOf(length: number): string {
  const body = Array.from({ length: length - '.test'.length }, (_, at) => ((at + 1) % 64 === 0 ? '.' : 'a'));
  if (body.at(-1) === '.') body[body.length - 1] = 'a';
  return `${body.join('')}.test`;
}

const LONGEST = hostnameOf(253);
let key = '';

beforeAll(async () => {
  await createAccount(env.ACCOUNTS, 'long-origin-active');
  key = (await createApiKey(env.ACCOUNTS, 'long-origin-active')).key;
  await allowDomain(env.ACCOUNTS, 'long-origin-active', LONGEST);
});

describe('an Origin longer than a hostname can be', () => {
  it('makes hostnames of the lengths the test needs', () => {
    expect([253, 254, 600].map((length) => hostnameOf(length).length)).toEqual([253, 254, 600]);
    expect(
      hostnameOf(600)
        .split('.')
        .every((label) => label.length <= 63),
    ).toBe(true);
  });

  for (const length of [254, 600]) {
    it(`is no whitelisted website at ${length} characters: a valid key answers 200 without CORS`, async () => {
      const response = await workerFetch('https://de.paid.test/api/json/81.2.69.142', {
        headers: { Authorization: `Bearer ${key}`, Origin: `https://${hostnameOf(length)}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('Access-Control-Allow-Origin')).toBeNull();
    });

    it(`is refused with 403 ORIGIN_FORBIDDEN at ${length} characters, in a request and a preflight`, async () => {
      const origin = `https://${hostnameOf(length)}`;
      const plain = await workerFetch('https://de.paid.test/api/json/81.2.69.142', { headers: { Origin: origin, 'CF-Connecting-IP': '198.18.38.1' } });
      const preflight = await workerFetch('https://de.paid.test/api/json/81.2.69.142', {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' },
      });
      expect([plain.status, preflight.status]).toEqual([403, 403]);
      expect(((await plain.json()) as { code: string }).code).toBe('ORIGIN_FORBIDDEN');
    });
  }

  it('still whitelists a hostname of exactly 253 characters', async () => {
    const origin = `https://${LONGEST}`;
    const response = await workerFetch('https://de.paid.test/api/json/81.2.69.142', { headers: { Origin: origin, 'CF-Connecting-IP': '198.18.38.2' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(origin);
  });
});
