/**
 * @module Requests to the paid app from the paid-route tests. Every paid-route test goes through
 * {@link paidFetch}, which presents an API key of an account it creates once per test file with the
 * operator tool's own operations (`operator/`), as an operator would. Tests of access itself
 * live elsewhere; here credentials are only the price of admission.
 */
import { env } from 'cloudflare:workers';
import { createApiKey } from '../../operator/keys.ts';
import { createAccount } from '../../operator/lifecycle.ts';
import { workerFetch } from './worker-fetch.ts';

/** Origin of the requests; a paid test server. */
export const PAID_ORIGIN = 'https://de.paid.test';

let key: Promise<string> | undefined;

/** The API key of this test file's account, created on first use. */
function apiKey(): Promise<string> {
  key ??= (async () => {
    const account = `paid-routes-${crypto.randomUUID().slice(0, 8)}`;
    await createAccount(env.ACCOUNTS, account);
    return (await createApiKey(env.ACCOUNTS, account)).key;
  })();
  return key;
}

/**
 * Sends a request to the paid Worker with this file's API key (unless `init` sets `Authorization`).
 *
 * @param path absolute path, e.g. `/api/languages/de`.
 */
export async function paidFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has('Authorization')) headers.set('Authorization', `Bearer ${await apiKey()}`);
  return workerFetch(`${PAID_ORIGIN}${path}`, { ...init, headers });
}

/** `POST path` with `body` serialised as JSON. */
export function postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return paidFetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
}
