/**
 * @module Who may use a paid server (docs/specification.md, 5.2; docs/accounts.md): every paid route
 * against every kind of credential, right and wrong, then CORS, preflights and the order in which
 * credentials are tried. Accounts are made with the operator tool's own functions.
 * Accounts `matrix-*`, client addresses 9.9.9.9 and 8.8.4.4, hostname example.com: this file only.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../operator/keys.ts';
import { cancelAccount, createAccount } from '../../operator/lifecycle.ts';
import { allowDomain, allowIp } from '../../operator/whitelists.ts';
import { generateApiKey } from '../../src/access/api-key.ts';
import { createApp } from '../../src/app.ts';
import { appFetch, workerFetch } from '../support/worker-fetch.ts';

/** An address no account whitelists; the client of every request that names no other. */
const OTHER_IP = '9.9.9.9';
const WHITELISTED_IP = '8.8.4.4';
const CANCELLED_IP = '9.9.9.10';
const WHITELISTED_ORIGIN = 'https://example.com';

const keys = { valid: '', revoked: '', cancelled: '', expired: '' };

beforeAll(async () => {
  const kv = env.ACCOUNTS;
  await createAccount(kv, 'matrix-active');
  keys.valid = (await createApiKey(kv, 'matrix-active')).key;
  const revoked = await createApiKey(kv, 'matrix-active');
  await revokeApiKey(kv, 'matrix-active', revoked.keyId);
  keys.revoked = revoked.key;
  await allowIp(kv, 'matrix-active', WHITELISTED_IP);
  await allowDomain(kv, 'matrix-active', 'example.com');

  await createAccount(kv, 'matrix-cancelled');
  keys.cancelled = (await createApiKey(kv, 'matrix-cancelled')).key;
  await allowIp(kv, 'matrix-cancelled', CANCELLED_IP);
  await allowDomain(kv, 'matrix-cancelled', 'cancelled.example.org');
  await cancelAccount(kv, 'matrix-cancelled');

  await createAccount(kv, 'matrix-expired', { expires: '2020-12-31' });
  keys.expired = (await createApiKey(kv, 'matrix-expired')).key;
});

/** One way of presenting oneself to a paid server. */
interface Credential {
  key?: () => string;
  /** `CF-Connecting-IP`; none when null. */
  ip?: string | null;
  origin?: string;
  authorization?: string;
}

function send(method: string, path: string, credential: Credential, init: { body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const ip = credential.ip === undefined ? OTHER_IP : credential.ip;
  if (ip !== null) headers.set('CF-Connecting-IP', ip);
  if (credential.key) headers.set('Authorization', `Bearer ${credential.key()}`);
  if (credential.authorization) headers.set('Authorization', credential.authorization);
  if (credential.origin) headers.set('Origin', credential.origin);
  return workerFetch(`https://de.ipgeo.test${path}`, { method, headers, ...(init.body === undefined ? {} : { body: init.body }) });
}

/** The problem code of a JSON or XML problem answer. */
async function codeOf(response: Response): Promise<string> {
  const type = response.headers.get('Content-Type') ?? '';
  if (type.startsWith('application/problem+xml')) return /<code>([A-Z_]+)<\/code>/.exec(await response.text())?.[1] ?? '';
  if (type.startsWith('application/problem+json')) return ((await response.json()) as { code: string }).code;
  return `not a problem (${response.status} ${type})`;
}

const bulk = JSON.stringify({ ips: ['8.8.8.8', '1.1.1.1'] });
const json = { 'Content-Type': 'application/json' };

/** Every route of a paid server that needs a credential, with a request it answers 200. */
const ROUTES: [method: string, path: string, init: { body?: string; headers?: Record<string, string> }][] = [
  ['GET', '/api/json/8.8.8.8', {}],
  ['GET', '/api/xml/8.8.8.8', {}],
  ['GET', '/api/json', {}],
  ['GET', '/api/xml', {}],
  ['POST', '/api/bulk/json', { body: bulk, headers: json }],
  ['POST', '/api/bulk/xml', { body: bulk, headers: json }],
  ['POST', '/api/distance', { body: JSON.stringify({ from: '8.8.8.8', to: '81.2.69.142' }), headers: json }],
  ['GET', '/api/languages/de', {}],
  ['GET', '/api/countries', {}],
  ['GET', '/api/countries/DE', {}],
  ['GET', '/api/phonecodes', {}],
  ['GET', '/api/phonecodes/49', {}],
  ['GET', '/api/timezones', {}],
  ['GET', '/api/timezones/Europe/Berlin', {}],
];

/** Credentials, and what every route must answer to them. */
const CREDENTIALS: [name: string, credential: Credential, status: number, code: string | null][] = [
  ['no credential', { ip: null }, 401, 'AUTHORIZATION_REQUIRED'],
  ['a valid key', { key: () => keys.valid }, 200, null],
  ['a wrong key', { key: () => generateApiKey() }, 401, 'AUTHORIZATION_INVALID'],
  ['a revoked key', { key: () => keys.revoked }, 401, 'AUTHORIZATION_INVALID'],
  ['a key of a cancelled account', { key: () => keys.cancelled }, 403, 'SUBSCRIPTION_INACTIVE'],
  ['a key of an expired account', { key: () => keys.expired }, 403, 'SUBSCRIPTION_INACTIVE'],
  ['a whitelisted IP', { ip: WHITELISTED_IP }, 200, null],
  ['another IP', { ip: OTHER_IP }, 401, 'AUTHORIZATION_REQUIRED'],
  ['a whitelisted origin', { origin: WHITELISTED_ORIGIN }, 200, null],
  ['the near-miss origin evil-example.com', { origin: 'https://evil-example.com' }, 403, 'ORIGIN_FORBIDDEN'],
  ['the near-miss origin example.com.evil.net', { origin: 'https://example.com.evil.net' }, 403, 'ORIGIN_FORBIDDEN'],
  ['the near-miss origin www.example.com', { origin: 'https://www.example.com' }, 403, 'ORIGIN_FORBIDDEN'],
];

const MATRIX = ROUTES.flatMap(([method, path, init]) =>
  CREDENTIALS.map(([name, credential, status, code]) => ({ method, path, init, name, credential, status, code })),
);

describe('the access matrix', () => {
  it.each(MATRIX)('answers $method $path with $name: $status $code', async ({ method, path, init, credential, status, code }) => {
    const response = await send(method, path, credential, init);
    expect(response.status).toBe(status);
    if (code === null) {
      expect(response.headers.get('Content-Type')).toMatch(path.includes('/xml') ? /^application\/xml/ : /^application\/json/);
    } else {
      expect(await codeOf(response)).toBe(code);
    }
    // CORS for the whitelisted origin only, whatever the answer.
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(credential.origin === WHITELISTED_ORIGIN ? WHITELISTED_ORIGIN : null);
    expect(response.headers.get('Vary')).toContain('Origin');
  });
});

describe('the order of credentials', () => {
  it('refuses a wrong key even from a whitelisted IP', async () => {
    const response = await send('GET', '/api/json/8.8.8.8', { key: () => generateApiKey(), ip: WHITELISTED_IP });
    expect([response.status, await codeOf(response)]).toEqual([401, 'AUTHORIZATION_INVALID']);
  });

  it('refuses a malformed Authorization header as an invalid key', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer not-a-key', `Bearer ${keys.valid}x`]) {
      const response = await send('GET', '/api/json/8.8.8.8', { authorization, ip: WHITELISTED_IP });
      expect([response.status, await codeOf(response)], authorization).toEqual([401, 'AUTHORIZATION_INVALID']);
      expect(response.headers.get('WWW-Authenticate')).toContain('invalid_token');
    }
  });

  it('accepts the Bearer scheme in any case', async () => {
    expect((await send('GET', '/api/json/8.8.8.8', { authorization: `bearer ${keys.valid}` })).status).toBe(200);
  });

  it('serves a valid key from any origin, with CORS for none but the whitelisted', async () => {
    const response = await send('GET', '/api/json/8.8.8.8', { key: () => keys.valid, origin: 'https://evil-example.com' });
    expect(response.status).toBe(200);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('serves a whitelisted IP whatever its Origin', async () => {
    const response = await send('GET', '/api/json/8.8.8.8', { ip: WHITELISTED_IP, origin: 'https://evil-example.com' });
    expect(response.status).toBe(200);
  });

  it('refuses the whitelisted IP and origin of a cancelled account as inactive', async () => {
    const byIp = await send('GET', '/api/json/8.8.8.8', { ip: CANCELLED_IP });
    expect([byIp.status, await codeOf(byIp)]).toEqual([403, 'SUBSCRIPTION_INACTIVE']);
    const byOrigin = await send('GET', '/api/json/8.8.8.8', { origin: 'https://cancelled.example.org' });
    expect([byOrigin.status, await codeOf(byOrigin)]).toEqual([403, 'SUBSCRIPTION_INACTIVE']);
    // The website can read why: its origin is whitelisted, if by an inactive account.
    expect(byOrigin.headers.get('Access-Control-Allow-Origin')).toBe('https://cancelled.example.org');
  });

  it('tells a cancelled account from an expired one', async () => {
    const cancelled = (await (await send('GET', '/api/json/8.8.8.8', { key: () => keys.cancelled })).json()) as { detail: string };
    const expired = (await (await send('GET', '/api/json/8.8.8.8', { key: () => keys.expired })).json()) as { detail: string };
    expect(cancelled.detail).toMatch(/was cancelled on \d{4}-\d{2}-\d{2}/);
    expect(expired.detail).toContain('expired at the end of 2020-12-31');
  });

  it('asks for credentials with WWW-Authenticate', async () => {
    const response = await send('GET', '/api/json/8.8.8.8', {});
    expect(response.headers.get('WWW-Authenticate')).toBe('Bearer realm="ipgeo"');
  });

  it('matches the exact hostname of the origin over https on the default port only', async () => {
    expect((await send('GET', '/api/countries', { origin: 'https://example.com' })).status).toBe(200);
    const nearMisses = ['http://example.com', 'http://example.com:8080', 'https://example.com:8443', 'https://example.com:443'];
    for (const origin of [...nearMisses, 'null', 'https://example.com/', 'https://example.com.', 'file://example.com', 'https://user@example.com']) {
      const response = await send('GET', '/api/countries', { origin });
      expect([response.status, await codeOf(response)], origin).toEqual([403, 'ORIGIN_FORBIDDEN']);
    }
  });
});

describe('a deployment with ALLOW_HTTP_ORIGINS=true (local development)', () => {
  const devApp = createApp('paid');
  const devSend = (origin: string, method = 'GET') =>
    appFetch(
      devApp,
      new Request('http://127.0.0.1:8788/api/countries', {
        method,
        headers: { Origin: origin, 'CF-Connecting-IP': OTHER_IP, ...(method === 'OPTIONS' ? { 'Access-Control-Request-Method': 'GET' } : {}) },
      }),
      { ...env, ALLOW_HTTP_ORIGINS: 'true' },
    );

  it('matches a whitelisted hostname over http and on any port, and echoes the origin as sent', async () => {
    for (const origin of ['http://example.com:8741', 'http://example.com', 'https://example.com:8443', 'https://example.com']) {
      for (const method of ['GET', 'OPTIONS']) {
        const response = await devSend(origin, method);
        expect([response.status, response.headers.get('Access-Control-Allow-Origin')], `${method} ${origin}`).toEqual([method === 'GET' ? 200 : 204, origin]);
      }
    }
  });

  it('still refuses other hostnames and what is not an origin', async () => {
    for (const origin of ['http://www.example.com:8741', 'http://evil-example.com', 'ftp://example.com', 'http://example.com/path', 'null']) {
      const response = await devSend(origin);
      expect([response.status, response.headers.get('Access-Control-Allow-Origin')], origin).toEqual([403, null]);
    }
  });

  it('is off for any other value', async () => {
    const response = await appFetch(
      devApp,
      new Request('http://127.0.0.1:8788/api/countries', { headers: { Origin: 'http://example.com:8741', 'CF-Connecting-IP': OTHER_IP } }),
      { ...env, ALLOW_HTTP_ORIGINS: 'yes' },
    );
    expect(response.status).toBe(403);
  });
});

describe('CORS preflight', () => {
  const preflight = (origin: string, path = '/api/bulk/json') =>
    workerFetch(`https://de.ipgeo.test${path}`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type', 'CF-Connecting-IP': OTHER_IP },
    });

  it('allows a whitelisted origin', async () => {
    const response = await preflight(WHITELISTED_ORIGIN);
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(WHITELISTED_ORIGIN);
    expect(response.headers.get('Access-Control-Allow-Methods')).toContain('POST');
    expect(response.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('content-type');
    expect(Number(response.headers.get('Access-Control-Max-Age'))).toBeGreaterThan(0);
  });

  it('refuses other origins without CORS headers', async () => {
    for (const origin of ['https://evil-example.com', 'https://example.com.evil.net']) {
      const response = await preflight(origin);
      expect([response.status, await codeOf(response)], origin).toEqual([403, 'ORIGIN_FORBIDDEN']);
      expect(response.headers.get('Access-Control-Allow-Origin')).toBeNull();
      expect(response.headers.get('Access-Control-Allow-Methods')).toBeNull();
    }
  });
});

describe('what needs no credential', () => {
  it('serves /api/countrycodes to everyone, with CORS for whitelisted origins only', async () => {
    const anyone = await send('GET', '/api/countrycodes', { ip: null });
    expect(anyone.status).toBe(200);
    const site = await send('GET', '/api/countrycodes', { origin: WHITELISTED_ORIGIN });
    expect(site.headers.get('Access-Control-Allow-Origin')).toBe(WHITELISTED_ORIGIN);
    const other = await send('GET', '/api/countrycodes', { origin: 'https://evil-example.com' });
    expect(other.status).toBe(200);
    expect(other.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('serves /openapi.json and /docs without a credential', async () => {
    expect((await send('GET', '/openapi.json', { ip: null })).status).toBe(200);
    expect((await send('GET', '/docs', { ip: null })).status).toBe(200);
  });

  it('refuses unknown /api/ paths before saying they do not exist', async () => {
    const response = await send('GET', '/api/planets', {});
    expect([response.status, await codeOf(response)]).toEqual([401, 'AUTHORIZATION_REQUIRED']);
  });
});
