/**
 * @module The paid servers' gate: checks every `/api/*` request's credentials (`check.ts`) before its
 * route runs, answers CORS preflights, and puts CORS headers on answers to whitelisted origins;
 * `/api/countrycodes` and `/api/status` are open to everyone but still answer CORS. A keyless request
 * from an address and an `Origin` that no account whitelists is `403 ORIGIN_FORBIDDEN` (its preflight
 * too, without CORS headers), the same without `Origin` `401 AUTHORIZATION_REQUIRED`. While KV cannot be
 * read, a request whose credential is not cached is `503 ACCOUNTS_UNAVAILABLE` with `Retry-After`.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { type AppEnv, clientIpOf, type OptionalVars } from '../env.ts';
import { ProblemError } from '../errors/problem.ts';
import { reportEvent, whyOf } from '../events/operational.ts';
import { setOnAnswer } from '../http/answer-headers.ts';
import { STATUS_PATHS } from '../http/paths.ts';
import { type AccessFailure, type AccessGrant, type AccessPolicy, checkAccess, corsOriginOf } from './check.ts';
import { corsHeaders, isPreflight, preflightHeaders, varyOnOrigin } from './cors.ts';
import { AccountDirectory, AccountsUnavailableError } from './directory.ts';

/** Paid-server paths that need no credential. */
export const OPEN_PAID_PATHS: ReadonlySet<string> = new Set(['/api/countrycodes', STATUS_PATHS.paid]);

const directory = new AccountDirectory();

/** What the gate hands the middleware after it (usage counting) about a granted request. */
type PaidGrant = Pick<AccessGrant, 'accountId' | 'credential' | 'quotas'>;

declare module '../env.ts' {
  interface AppVariables {
    /** The grant of this request; unset when not granted, on an open path, a preflight, or a free server. */
    paidGrant?: PaidGrant;
  }
}

/**
 * Hono middleware of the paid plan.
 *
 * @throws {ProblemError} `AUTHORIZATION_REQUIRED`, `AUTHORIZATION_INVALID` (401), `SUBSCRIPTION_INACTIVE`
 *   or `ORIGIN_FORBIDDEN` (403), `ACCOUNTS_UNAVAILABLE` (503) when KV cannot be read.
 */
export function accessGate(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!c.req.path.startsWith('/api/')) return next();
    const origin = c.req.header('Origin');
    const policy = accessPolicyOf(c.env);

    if (isPreflight(c.req.method, (name) => c.req.header(name))) {
      const allowed = await readingKv(corsOriginOf(origin, c.env.ACCOUNTS, directory, policy));
      setHeaders(c, varyOnOrigin());
      if (allowed === null) throw forbiddenOrigin(origin ?? '');
      return c.body(null, 204, preflightHeaders(allowed));
    }

    if (OPEN_PAID_PATHS.has(c.req.path)) {
      const allowed = await readingKv(corsOriginOf(origin, c.env.ACCOUNTS, directory, policy));
      const headers = allowed === null ? varyOnOrigin() : corsHeaders(allowed);
      setHeaders(c, headers);
      await next();
      setOnAnswer(c, headers);
      return;
    }

    const result = await readingKv(
      checkAccess({ authorization: c.req.header('Authorization'), clientIp: clientIpOf(c.req), origin }, c.env.ACCOUNTS, directory, Date.now(), policy),
    );
    const headers = result.corsOrigin === null ? varyOnOrigin() : corsHeaders(result.corsOrigin);
    setHeaders(c, headers);
    if (!result.granted) throw problemOf(result.failure);
    c.set('paidGrant', result);
    await next();
    // Again on the final answer: a handler may have returned a Response built without the context.
    setOnAnswer(c, headers);
  };
}

/** Seconds a client is asked to wait (`Retry-After`) when KV cannot be read. */
const ACCOUNTS_RETRY_AFTER_SECONDS = 5;

/** The outcome of an access check, with a failed KV read turned into 503 `ACCOUNTS_UNAVAILABLE` (the cause logged). */
async function readingKv<T>(check: Promise<T>): Promise<T> {
  try {
    return await check;
  } catch (error) {
    if (!(error instanceof AccountsUnavailableError)) throw error;
    reportEvent({ event: 'accounts-unavailable', status: 503, why: `${error.message}: ${whyOf(error.cause)}` });
    throw new ProblemError('ACCOUNTS_UNAVAILABLE', 'The account data cannot be read at the moment. Try again shortly.', {
      headers: { 'Retry-After': String(ACCOUNTS_RETRY_AFTER_SECONDS) },
    });
  }
}

/** What the deployment's optional variables accept beyond the defaults (exact values only: anything else is the default). */
function accessPolicyOf(vars: OptionalVars): AccessPolicy {
  return { legacyKeys: vars.LEGACY_API_KEYS === 'accept', httpOrigins: vars.ALLOW_HTTP_ORIGINS === 'true' };
}

/** The public problem of an access failure; internal detail (account and key ids) stays in the logs. */
function problemOf(failure: AccessFailure): ProblemError {
  switch (failure.kind) {
    case 'no-credential':
      return new ProblemError(
        'AUTHORIZATION_REQUIRED',
        'This paid server needs an API key (Authorization: Bearer <key>), a whitelisted server address or a whitelisted website origin.',
        { headers: { 'WWW-Authenticate': 'Bearer realm="ipgeo"' } },
      );
    case 'key-malformed':
      return new ProblemError(
        'AUTHORIZATION_INVALID',
        'The Authorization header is not "Bearer " followed by a valid API key (ipgeo_…); a mistyped or cut key fails its checksum.',
        {
          headers: { 'WWW-Authenticate': 'Bearer realm="ipgeo", error="invalid_token"' },
        },
      );
    case 'key-revoked':
      reportEvent({ event: 'revoked-key', account: failure.accountId, key: failure.keyId });
      return invalidKey();
    case 'key-unknown':
      return invalidKey();
    case 'inactive': {
      const holder = { key: 'this API key', address: 'this server address', origin: 'this website' }[failure.via];
      const what = failure.reason === 'cancelled' ? `was cancelled on ${failure.since}` : `expired at the end of ${failure.since} (UTC)`;
      return new ProblemError('SUBSCRIPTION_INACTIVE', `The subscription behind ${holder} ${what}.`);
    }
    case 'origin-forbidden':
      return forbiddenOrigin(failure.origin);
    default:
      return failure satisfies never;
  }
}

function invalidKey(): ProblemError {
  return new ProblemError('AUTHORIZATION_INVALID', 'The API key is unknown or has been revoked.', {
    headers: { 'WWW-Authenticate': 'Bearer realm="ipgeo", error="invalid_token"' },
  });
}

function forbiddenOrigin(origin: string): ProblemError {
  return new ProblemError(
    'ORIGIN_FORBIDDEN',
    `The origin ${JSON.stringify(origin.slice(0, 200))} is not whitelisted. Whitelist the website's exact hostname, or call from a server with an API key.`,
  );
}

/** Sets `headers` through the context, before the route answers (and on a preflight's or a refusal's answer). */
function setHeaders(c: Context<AppEnv>, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
}
