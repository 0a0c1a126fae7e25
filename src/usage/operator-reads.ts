/**
 * @module The usage Worker's one route, for the operator tool (`npm run accounts -- usage`, docs/accounts.md):
 * `GET /v1/accounts/<account>/rows?from=YYYY-MM-DD&to=YYYY-MM-DD` answers the account's rows as JSON
 * (summed over the objects of its ledger, `ledger-reads.ts`), to a request bearing the Worker's secret
 * `USAGE_READ_TOKEN`; without that secret set, it answers nothing. Customers read their own usage from
 * the paid servers instead (`GET /api/usage`).
 */
import type { LedgerEnv } from './ledger.ts';
import { readLedgerRows } from './ledger-reads.ts';
import type { RowsAnswer } from './wire.ts';

/** The usage Worker's bindings: its ledger's namespace, and the read token. */
export interface UsageStoreEnv extends LedgerEnv {
  /** The operator's read token (a Worker secret); reads are refused while it is not set. */
  readonly USAGE_READ_TOKEN?: string;
}

const ROWS_PATH = /^\/v1\/accounts\/([a-z0-9][a-z0-9-]{0,62})\/rows$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Answers an operator's read.
 *
 * @returns 200 with a {@link RowsAnswer}; 400 for bad days, 401 without the token, 404 for another
 *   path or method, 503 while no token is set. Errors are `{"error": "…"}`.
 */
export async function answerOperatorRead(request: Request, env: UsageStoreEnv): Promise<Response> {
  const url = new URL(request.url);
  const match = ROWS_PATH.exec(url.pathname);
  if (request.method !== 'GET' || !match) return failure(404, 'Not found: GET /v1/accounts/<account>/rows?from=YYYY-MM-DD&to=YYYY-MM-DD.');
  if (!env.USAGE_READ_TOKEN) return failure(503, 'Operator reads are off: set the secret USAGE_READ_TOKEN of this Worker (docs/accounts.md).');
  if (!(await sameSecret(request.headers.get('Authorization') ?? '', `Bearer ${env.USAGE_READ_TOKEN}`)))
    return failure(401, 'The read token is missing or wrong.');
  const from = url.searchParams.get('from') ?? '';
  const to = url.searchParams.get('to') ?? '';
  if (!DAY.test(from) || !DAY.test(to) || from > to) return failure(400, 'from and to are days YYYY-MM-DD, from not after to.');
  const account = match[1] as string;
  const rows = await readLedgerRows(env.USAGE, account, from, to);
  return Response.json({ account, from, to, rows } satisfies RowsAnswer);
}

function failure(status: number, error: string): Response {
  return Response.json({ error }, { status });
}

/** Compares two secrets without a timing signal: their SHA-256 digests, with `crypto.subtle.timingSafeEqual`. */
async function sameSecret(given: string, expected: string): Promise<boolean> {
  const digest = async (text: string) => new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  const [a, b] = await Promise.all([digest(given), digest(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}
