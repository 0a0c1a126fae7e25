/**
 * @module What the usage tests share: accounts of their own, requests to the paid app under test (`de`)
 * and to the second paid deployment (`sg`, `SECOND_PAID`), each answer checked against its server's
 * OpenAPI document, and the operator's reads of the usage store (`USAGE_STORE`, the usage Worker).
 */
import { env } from 'cloudflare:workers';
import { createApiKey } from '../../operator/keys.ts';
import { createAccount } from '../../operator/lifecycle.ts';
import { type RowsAnswer, rowsPath, type UsageRow } from '../../src/usage/wire.ts';
import { TEST_USAGE_READ_TOKEN } from './usage-names.ts';
import { expectDescribed, workerFetch } from './worker-fetch.ts';

const bindings = env as unknown as { SECOND_PAID: Fetcher; USAGE_STORE: Fetcher };

/** The paid deployments the tests reach, by their `REGION`. */
export type Deployment = 'de' | 'sg';

/** A new account with one API key; `name` makes its id readable, a random suffix makes it this run's own. */
export async function usageAccount(name: string): Promise<{ account: string; key: string }> {
  const account = `${name}-${crypto.randomUUID().slice(0, 8)}`;
  await createAccount(env.ACCOUNTS, account);
  return { account, key: (await createApiKey(env.ACCOUNTS, account)).key };
}

/** The second deployment as a document server: its own `/openapi.json`. */
const secondPaid = (url: string) => bindings.SECOND_PAID.fetch(url);

/**
 * Sends a request to a paid deployment and returns its answer once the deployment's OpenAPI document
 * describes it.
 *
 * @param path absolute path, e.g. `/api/json/8.8.8.8`.
 */
export async function paidRequest(deployment: Deployment, path: string, init: RequestInit = {}): Promise<Response> {
  const url = `https://${deployment}.paid.test${path}`;
  if (deployment === 'de') return workerFetch(url, init);
  const request = new Request(url, init);
  return expectDescribed(request, await bindings.SECOND_PAID.fetch(request.clone()), secondPaid);
}

/** The account's rows as the operator reads them from the usage Worker. */
export async function storedRows(account: string, from: string, to: string): Promise<UsageRow[]> {
  const response = await bindings.USAGE_STORE.fetch(`https://usage.test${rowsPath(account)}?from=${from}&to=${to}`, {
    headers: { Authorization: `Bearer ${TEST_USAGE_READ_TOKEN}` },
  });
  if (response.status !== 200) throw new Error(`the usage Worker answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as RowsAnswer).rows;
}

/**
 * `read()` again until `done` holds of its value, at most `attempts` times `intervalMs` apart: for counts
 * that other isolates write within about a second (`src/usage/recorder.ts`).
 *
 * @returns the last value read.
 */
export async function readUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, attempts = 60, intervalMs = 100): Promise<T> {
  let value = await read();
  for (let attempt = 1; attempt < attempts && !done(value); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    value = await read();
  }
  return value;
}
