/**
 * @module The operator tool's command line (`npm run accounts -- --help`): its commands, their
 * arguments and options, read into one {@link Invocation} or refused with a line that says why.
 */
import { type CommandLineOutput, parseCommandLine } from '../data/command-line.ts';
import { monthDays, USAGE_GROUPS, type UsageGroup } from './usage-reports.ts';

/**
 * The tool's help, printed by `--help`.
 *
 * @internal Exported for the tool's test, which holds `--help` to it (`test/node/accounts-cli.test.ts`).
 */
export const USAGE = `Usage: npm run accounts -- <command> [arguments] [options]

Commands:
  create <account> [--expires YYYY-MM-DD]   create an active account (access through the end of that day, UTC)
  key <account>                             make an API key; it is printed once, alone on the last line
  revoke <account> <key-id>                 revoke one key
  allow-ip <account> <ip>                   whitelist a server's public address (one IPv4 or IPv6 address)
  allow-domain <account> <hostname>         whitelist a website's exact hostname (as in its Origin header)
  cancel <account>                          cancel the account: its keys and whitelists stop working
  show <account>                            print the account (key ids, never keys)
  list                                      every account: status, last day, keys in use, whitelist entries
  disallow-ip <account> <ip>                take a server address off the whitelist
  disallow-domain <account> <hostname>      take a website hostname off the whitelist
  renew <account> --expires YYYY-MM-DD      set the last day of access (today or later); reactivates a cancelled account
  rotate-key <account> [--key <key-id>] [--grace <n>m|h|d]
                                            make a new key (printed once, on the last line) and revoke the old
                                            one at once, or after the grace period (at most 90d)
  set-quota <account> [--monthly N|none] [--daily-website N|none] [--monthly-website N|none]
                                            cap the lookups of the account's keys and server addresses per UTC
                                            month, and apart those authenticated by a whitelisted website alone
                                            per UTC day and per UTC month; none removes a cap
  usage <account> [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--by day|deployment|kind|credential] [--csv]
                                            the account's usage, summed by day (default), deployment, kind or
                                            credential; from the first of this month to today (UTC) by default
  usage --all --month YYYY-MM [--csv]       every account's usage in that month, one line each

Options:
  --expires YYYY-MM-DD  the last day of access, UTC (create, renew)
  --key <key-id>        the key to replace (rotate-key; needed when the account has several)
  --grace <duration>    how long the replaced key keeps working: 0, or a number with m, h or d (rotate-key)
  --monthly N|none      lookups per calendar month, UTC, by keys and whitelisted server addresses (set-quota)
  --daily-website N|none
                        lookups per UTC day authenticated by a whitelisted website alone (set-quota)
  --monthly-website N|none
                        lookups per calendar month, UTC, authenticated by a whitelisted website alone (set-quota)
  --from, --to          the first and last day of a usage report, UTC (usage)
  --by <what>           what a usage report sums by: day, deployment, kind or credential (usage)
  --month YYYY-MM       the month of a report (usage; with --all, required)
  --all                 every account, one line each (usage)
  --csv                 CSV with a header line instead of a table (usage)
  --env <name>          wrangler environment whose ACCOUNTS namespace to use (default: de)
  --remote              work on the deployed namespace instead of the local one of wrangler dev; usage is
                        then read from the deployed usage Worker at IPGEO_USAGE_URL with the token
                        IPGEO_USAGE_TOKEN (its secret USAGE_READ_TOKEN; docs/accounts.md)
  --persist-to <dir>    local state directory, as wrangler dev's --persist-to (default: .wrangler/state)
  --help                print this help`;

/** The command that runs the tool, as its messages name it. */
export const COMMAND = 'npm run accounts';

/** Commands and their positional arguments after the command name. */
const COMMANDS = {
  create: ['account'],
  key: ['account'],
  revoke: ['account', 'key-id'],
  'allow-ip': ['account', 'ip'],
  'allow-domain': ['account', 'hostname'],
  cancel: ['account'],
  show: ['account'],
  list: [],
  'disallow-ip': ['account', 'ip'],
  'disallow-domain': ['account', 'hostname'],
  renew: ['account'],
  'rotate-key': ['account'],
  'set-quota': ['account'],
  usage: ['account'],
} as const satisfies Record<string, readonly string[]>;
type Command = keyof typeof COMMANDS;

/** Bad command-line usage: one line to stderr that points at `--help`, exit status 2. */
export class UsageError extends Error {}

/** What `usage` is asked for. */
interface UsageRequest {
  /** One account's report, or every account's month (`--all`). */
  all: boolean;
  from: string;
  to: string;
  by: UsageGroup;
  csv: boolean;
  /** `YYYY-MM` with `--all`. */
  month: string;
}

/** The parsed command line. */
export interface Invocation {
  command: Command;
  args: string[];
  expires: string | undefined;
  key: string | undefined;
  graceSeconds: number;
  /** `set-quota`: each quota to set (a number), remove (null) or leave (undefined). */
  quotas: { monthly: number | null | undefined; dailyWebsite: number | null | undefined; monthlyWebsite: number | null | undefined };
  usage: UsageRequest;
  environment: string;
  remote: boolean;
  persistTo: string | undefined;
}

/**
 * The invocation that `argv` asks for, or the exit status when the command line is answered already
 * (`--help`, or a malformed line, which `parseCommandLine` reports).
 *
 * @throws {UsageError} for a line that parses but asks for no valid command.
 */
export function parse(argv: string[], output: CommandLineOutput): Invocation | number {
  const line = parseCommandLine(
    argv,
    {
      command: COMMAND,
      usage: USAGE,
      positionals: true,
      options: {
        expires: { type: 'string' },
        key: { type: 'string' },
        grace: { type: 'string' },
        monthly: { type: 'string' },
        'daily-website': { type: 'string' },
        'monthly-website': { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        by: { type: 'string' },
        month: { type: 'string' },
        all: { type: 'boolean', default: false },
        csv: { type: 'boolean', default: false },
        env: { type: 'string', default: 'de' },
        remote: { type: 'boolean', default: false },
        'persist-to': { type: 'string' },
      },
    },
    output,
  );
  if (typeof line === 'number') return line;
  const { values, positionals } = line;
  const [name, ...args] = positionals;
  if (name === undefined) throw new UsageError('no command given');
  if (!Object.hasOwn(COMMANDS, name)) throw new UsageError(`unknown command '${name}'`);
  const command = name as Command;
  const expected = COMMANDS[command];
  const all = values.all as boolean;
  // `usage --all` names no account.
  if (command === 'usage' && all && args.length > 0) throw new UsageError('usage --all takes no <account>');
  if (args.length !== expected.length && !(command === 'usage' && all)) {
    throw new UsageError(
      `${command} takes ${expected.map((arg) => `<${arg}>`).join(' ') || 'no arguments'}; got ${args.length} argument${args.length === 1 ? '' : 's'}`,
    );
  }
  if (values.expires !== undefined && command !== 'create' && command !== 'renew') throw new UsageError('--expires belongs to create and renew only');
  if (values.expires === undefined && command === 'renew') throw new UsageError('renew needs --expires YYYY-MM-DD');
  for (const option of ['key', 'grace'] as const) {
    if (values[option] !== undefined && command !== 'rotate-key') throw new UsageError(`--${option} belongs to rotate-key only`);
  }
  for (const option of ['monthly', 'daily-website', 'monthly-website'] as const) {
    if (values[option] !== undefined && command !== 'set-quota') throw new UsageError(`--${option} belongs to set-quota only`);
  }
  if (command === 'set-quota' && values.monthly === undefined && values['daily-website'] === undefined && values['monthly-website'] === undefined) {
    throw new UsageError('set-quota needs --monthly N|none, --daily-website N|none or --monthly-website N|none');
  }
  for (const option of ['from', 'to', 'by', 'month', 'all', 'csv'] as const) {
    if (values[option] !== undefined && values[option] !== false && command !== 'usage') throw new UsageError(`--${option} belongs to usage only`);
  }
  if (values.remote && values['persist-to'] !== undefined) throw new UsageError('--persist-to is for local state; it cannot go with --remote');
  return {
    command,
    args,
    expires: values.expires,
    key: values.key,
    graceSeconds: values.grace === undefined ? 0 : graceSeconds(values.grace),
    quotas: {
      monthly: quotaOf('monthly', values.monthly),
      dailyWebsite: quotaOf('daily-website', values['daily-website']),
      monthlyWebsite: quotaOf('monthly-website', values['monthly-website']),
    },
    usage: usageRequest(values, all),
    environment: values.env as string,
    remote: values.remote as boolean,
    persistTo: values['persist-to'],
  };
}

/** A quota option's value: a whole number of lookups, `none` (null), or undefined when not given. */
function quotaOf(option: string, text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'none') return null;
  if (!/^\d{1,15}$/.test(text)) throw new UsageError(`--${option} takes a whole number of lookups or none; got ${JSON.stringify(text)}`);
  return Number(text);
}

/** What `usage` reports: by default this month (UTC) to today, by day. */
function usageRequest(
  values: { from?: string | undefined; to?: string | undefined; by?: string | undefined; month?: string | undefined; csv?: boolean | undefined },
  all: boolean,
): UsageRequest {
  const by = (values.by ?? 'day') as UsageGroup;
  if (!USAGE_GROUPS.includes(by)) throw new UsageError(`--by takes ${USAGE_GROUPS.join(', ')}; got ${JSON.stringify(values.by)}`);
  if (all && values.month === undefined) throw new UsageError('usage --all needs --month YYYY-MM');
  if (all && (values.by !== undefined || values.from !== undefined || values.to !== undefined))
    throw new UsageError('usage --all reports whole months: --month only');
  if (values.month !== undefined && (values.from !== undefined || values.to !== undefined)) throw new UsageError('--month goes without --from and --to');
  const today = new Date().toISOString().slice(0, 10);
  let from = values.from ?? `${today.slice(0, 7)}-01`;
  let to = values.to ?? today;
  if (values.month !== undefined) {
    const days = monthDays(values.month);
    if (days === null) throw new UsageError(`--month takes YYYY-MM; got ${JSON.stringify(values.month)}`);
    ({ from, to } = days);
  }
  return { all, from, to, by, csv: values.csv === true, month: values.month ?? '' };
}

/** `0`, `90m`, `24h`, `7d` → seconds. */
function graceSeconds(text: string): number {
  const match = /^(\d{1,6})([mhd])?$/.exec(text);
  if (!match || (match[2] === undefined && match[1] !== '0'))
    throw new UsageError(`--grace takes 0 or a number with m, h or d (90m, 24h, 7d); got ${JSON.stringify(text)}`);
  return Number(match[1]) * { m: 60, h: 3600, d: 86_400 }[(match[2] ?? 'm') as 'm' | 'h' | 'd'];
}
