/**
 * @module The usage commands of the operator tool (`npm run accounts -- usage`, docs/accounts.md,
 * "Usage"): an account's rows read from the usage Worker (`src/usage/operator-reads.ts`), summed by
 * day, deployment, kind or credential, as a table or as CSV (RFC 4180); and every account's month, one
 * line each, the input of an invoice. Local state is read by running the usage Worker on it with
 * wrangler (`unstable_startWorker`, on the Durable Object storage that `npm run dev:paid` writes);
 * `--remote`, the deployed usage Worker over HTTPS with the operator's read token.
 */
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { readWranglerToml } from '../scripts/deploy/config.ts';
import { writeUsageConfig } from '../scripts/deploy/usage.ts';
import { type RowsAnswer, rowsPath, type UsageRow } from '../src/usage/wire.ts';

/** What a usage report sums by. */
export const USAGE_GROUPS = ['day', 'deployment', 'kind', 'credential'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/** Where usage is read from. */
export interface UsageSource {
  /** The account's rows from `from` to `to` (UTC days, inclusive). */
  rows(account: string, from: string, to: string): Promise<UsageRow[]>;
  close(): Promise<void>;
}

/** A read that failed; the message says why, for the operator. */
export class UsageReadError extends Error {
  override readonly name = 'UsageReadError';
}

/** The usage Worker's answer to a read, or a {@link UsageReadError} naming its status and message. */
async function rowsOf(response: Response): Promise<UsageRow[]> {
  const text = await response.text();
  if (response.status !== 200) {
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {}
    throw new UsageReadError(`the usage Worker answered ${response.status}: ${message.slice(0, 300)}`);
  }
  return (JSON.parse(text) as RowsAnswer).rows;
}

const query = (account: string, from: string, to: string) => `${rowsPath(account)}?from=${from}&to=${to}`;

/**
 * The deployed usage Worker at `url` (its `workers.dev` address or a route of it), read with `token`,
 * the value of its secret `USAGE_READ_TOKEN`.
 */
export function remoteUsage(url: string, token: string, fetcher: typeof fetch = fetch): UsageSource {
  return {
    async rows(account, from, to) {
      return rowsOf(await fetcher(new URL(query(account, from, to), url), { headers: { Authorization: `Bearer ${token}` } }));
    },
    async close() {},
  };
}

/**
 * The local usage store of `wrangler dev` (`npm run dev:paid`), read by running the usage Worker on the
 * same state directory, on loopback, with a read token made for this run.
 *
 * @param persistTo wrangler dev's `--persist-to` (default `.wrangler/state`).
 */
export async function localUsage(environment: string, persistTo: string | undefined, root = process.cwd()): Promise<UsageSource> {
  process.env.WRANGLER_LOG ??= 'error';
  const { unstable_startWorker } = await import('wrangler');
  const token = randomBytes(24).toString('base64url');
  const config = writeUsageConfig(readWranglerToml(join(root, 'wrangler.toml')), root, join(root, '.wrangler', 'accounts'));
  const worker = await unstable_startWorker({
    config,
    env: environment,
    bindings: { USAGE_READ_TOKEN: { type: 'plain_text', value: token } },
    dev: {
      persist: resolve(persistTo ?? join(root, '.wrangler', 'state')),
      server: { hostname: '127.0.0.1', port: 0 },
      inspector: false,
      watch: false,
      logLevel: 'error',
    },
  });
  await worker.ready;
  const origin = (await worker.url).origin;
  return {
    async rows(account, from, to) {
      return rowsOf(await fetch(`${origin}${query(account, from, to)}`, { headers: { Authorization: `Bearer ${token}` } }));
    },
    close: () => worker.dispose(),
  };
}

/** Sums of rows under one key. */
interface UsageSum {
  readonly key: string;
  readonly requests: number;
  readonly lookups: number;
  readonly problems: number;
}

/** `rows` summed by `group`, in the key's order (days by date). */
function sumBy(rows: readonly UsageRow[], group: UsageGroup): UsageSum[] {
  const sums = new Map<string, { requests: number; lookups: number; problems: number }>();
  for (const row of rows) {
    const key = row[group];
    const sum = sums.get(key) ?? { requests: 0, lookups: 0, problems: 0 };
    sum.requests += row.requests;
    sum.lookups += row.lookups;
    sum.problems += row.problems;
    sums.set(key, sum);
  }
  return [...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, sum]) => ({ key, ...sum }));
}

/** The sum of every row. */
function total(rows: readonly UsageRow[]): Omit<UsageSum, 'key'> {
  return rows.reduce((sum, row) => ({ requests: sum.requests + row.requests, lookups: sum.lookups + row.lookups, problems: sum.problems + row.problems }), {
    requests: 0,
    lookups: 0,
    problems: 0,
  });
}

/** One CSV line (RFC 4180): a field with a comma, a quote or a line break is quoted, its quotes doubled. */
function csvLine(fields: readonly (string | number)[]): string {
  return fields.map((field) => (/[",\r\n]/.test(String(field)) ? `"${String(field).replaceAll('"', '""')}"` : String(field))).join(',');
}

/** Rows of cells as a table, columns aligned, numbers to the right. */
function alignedTable(rows: readonly (readonly (string | number)[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => String(row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => (typeof cell === 'number' ? String(cell).padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The first and last day (`YYYY-MM-DD`) of a month `YYYY-MM`, or null when it is not one. */
export function monthDays(month: string): { from: string; to: string } | null {
  const match = /^(\d{4})-(\d{2})$/.exec(month);
  const [year, number] = [Number(match?.[1]), Number(match?.[2])];
  if (!match || number < 1 || number > 12) return null;
  return { from: `${month}-01`, to: new Date(Date.UTC(year, number, 0)).toISOString().slice(0, 10) };
}

/**
 * The report of one account from `from` to `to`, summed by `group`: a table with a total line, or CSV
 * with a header line (`account,<group>,requests,lookups,problems`).
 */
export async function accountReport(source: UsageSource, account: string, from: string, to: string, group: UsageGroup, csv: boolean): Promise<string> {
  const rows = await source.rows(account, from, to);
  const sums = sumBy(rows, group);
  if (csv)
    return [
      csvLine(['account', group, 'requests', 'lookups', 'problems']),
      ...sums.map((sum) => csvLine([account, sum.key, sum.requests, sum.lookups, sum.problems])),
    ].join('\n');
  const all = total(rows);
  const heading = `Usage of account ${account}, ${from} to ${to} (UTC), by ${group}: requests and lookups of successful answers, problems (4xx) apart.`;
  if (sums.length === 0) return `${heading}\nNone.`;
  return `${heading}\n${alignedTable([
    [group.toUpperCase(), 'REQUESTS', 'LOOKUPS', 'PROBLEMS'],
    ...sums.map((sum) => [sum.key, sum.requests, sum.lookups, sum.problems]),
    ['TOTAL', all.requests, all.lookups, all.problems],
  ])}`;
}

/**
 * Every account's month, one line each (accounts without use too, with zeros): a table, or CSV with a
 * header line (`account,month,requests,lookups,problems`), the input of an invoice.
 */
export async function monthReport(source: UsageSource, accounts: readonly string[], month: string, csv: boolean): Promise<string> {
  const days = monthDays(month);
  if (days === null) throw new UsageReadError(`${JSON.stringify(month)} is not a month in the form YYYY-MM.`);
  const lines: [string, string, number, number, number][] = [];
  for (const account of accounts) {
    const sum = total(await source.rows(account, days.from, days.to));
    lines.push([account, month, sum.requests, sum.lookups, sum.problems]);
  }
  if (csv) return [csvLine(['account', 'month', 'requests', 'lookups', 'problems']), ...lines.map(csvLine)].join('\n');
  if (lines.length === 0) return 'No accounts.';
  return alignedTable([['ACCOUNT', 'MONTH', 'REQUESTS', 'LOOKUPS', 'PROBLEMS'], ...lines]);
}
