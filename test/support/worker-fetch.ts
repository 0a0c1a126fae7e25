/**
 * @module How the Worker tests call the Worker (its own entry, `exports.default`, or an app of
 * `createApp` given other bindings): every answer is checked against the OpenAPI document that the
 * same server serves at `/openapi.json`, by the `CONTRACT` service binding (`contract.ts`, in Node). An
 * answer the document does not describe fails the request, naming every fault, so the route suite's
 * whole traffic holds the published contract.
 */
import { createExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, OptionalVars } from '../../src/env.ts';

/** Sends a server a GET of `url`: how a check reaches the server's `/openapi.json`. */
export type DocumentServer = (url: string) => Promise<Response>;

/** The Worker's default export, as the tests call it. */
const worker = (exports as unknown as { default: { fetch(input: string | Request, init?: RequestInit): Promise<Response> } }).default;

/** The Worker itself, serving its own document. */
const WORKER: DocumentServer = (url) => worker.fetch(url);

const contract = (env as unknown as { CONTRACT: Fetcher }).CONTRACT;

/** The key of each document registered with the binding, by the server that serves it and its origin. */
const documents = new WeakMap<DocumentServer, Map<string, Promise<string>>>();

function documentKey(server: DocumentServer, origin: string): Promise<string> {
  const byOrigin = documents.get(server) ?? new Map<string, Promise<string>>();
  documents.set(server, byOrigin);
  let key = byOrigin.get(origin);
  if (key === undefined) {
    key = (async () => {
      const response = await server(`${origin}/openapi.json`);
      if (response.status !== 200) throw new Error(`${origin}/openapi.json answered ${response.status}: ${await response.text()}`);
      const registered = await contract.fetch('http://contract/document', { method: 'POST', body: await response.text() });
      return registered.text();
    })();
    byOrigin.set(origin, key);
  }
  return key;
}

/**
 * Returns `response` once the `CONTRACT` binding has found it described, as the answer to `request`,
 * by the OpenAPI document that `server` serves for the request's origin.
 *
 * @throws Error listing what the document does not describe of the answer.
 */
export async function expectDescribed(request: Request, response: Response, server: DocumentServer = WORKER): Promise<Response> {
  const key = await documentKey(server, new URL(request.url).origin);
  const exchange = {
    request: { method: request.method, url: request.url, headers: [...request.headers] },
    response: { status: response.status, headers: [...response.headers], body: await response.clone().text() },
  };
  const checked = await contract.fetch('http://contract/check', { method: 'POST', body: JSON.stringify({ document: key, exchange }) });
  const violations = (await checked.json()) as string[];
  if (violations.length > 0) {
    throw new Error(
      `${request.method} ${request.url} answered ${response.status}, which the OpenAPI document does not describe:\n- ${violations.join('\n- ')}`,
    );
  }
  return response;
}

/**
 * Sends a request to the Worker through its own entry, and returns the answer once it is found
 * described by the Worker's OpenAPI document.
 *
 * @param url absolute, e.g. `http://free.test/api/v1/json/8.8.8.8`.
 */
export async function workerFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const request = new Request(url, init);
  return expectDescribed(request, await worker.fetch(request.clone()));
}

/**
 * Sends `request` to `app` with `bindings` (e.g. a failing KV namespace), and returns the answer once
 * it is found described by the document that `server` serves: by default the Worker's own, which must
 * then be of the app's plan.
 */
export async function appFetch(
  app: OpenAPIHono<AppEnv>,
  request: Request,
  bindings: Env & OptionalVars = env,
  server: DocumentServer = WORKER,
): Promise<Response> {
  return expectDescribed(request, await app.fetch(request.clone(), bindings, createExecutionContext()), server);
}

/** The document server of `app`, with the test's own bindings: for an app of the plan the Worker does not serve. */
export function appDocuments(app: OpenAPIHono<AppEnv>): DocumentServer {
  return async (url) => app.fetch(new Request(url), env, createExecutionContext());
}
