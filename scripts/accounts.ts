/**
 * @module `npm run accounts -- <command>`: the operators' tool for paid accounts, API keys and
 * whitelists in the `ACCOUNTS` KV namespace (schema: `docs/storage.md`; guide: `docs/accounts.md`).
 *
 * By default it works on the local KV of `wrangler dev` (`.wrangler/state`, through wrangler's
 * `getPlatformProxy`); with `--remote`, on the deployed namespace of `--env`, through
 * `wrangler kv key get|put|delete --remote` (so wrangler's login or `CLOUDFLARE_API_TOKEN` applies).
 * The operations themselves are those of `src/access/admin.ts`, which write at most one account
 * document, last, so that a failure leaves the account as it was.
 *
 * Exit status: 0 done; 1 refused (unknown account, conflict, bad value) or failed; 2 bad usage.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type CommandLineOutput, commandLineError, parseCommandLine } from '../data/command-line.ts';
import { AccountInputError, checkDate, standingOf } from '../src/access/account.ts';
import {
  AccountStateError,
  type AccountView,
  allowDomain,
  allowIp,
  cancelAccount,
  createAccount,
  createApiKey,
  disallowDomain,
  disallowIp,
  isRevoked,
  type KvStore,
  listAccounts,
  renewAccount,
  revokeApiKey,
  rotateApiKey,
  setQuotas,
  showAccount,
} from '../src/access/admin.ts';
import { type KvListing, type KvPagedList, kvListing } from '../src/access/kv-listing.ts';
import {
  accountReport,
  localUsage,
  monthDays,
  monthReport,
  remoteUsage,
  USAGE_GROUPS,
  type UsageGroup,
  UsageReadError,
  type UsageSource,
} from './accounts-usage.ts';
import { ACCOUNTS_NAMESPACE_TITLE, accountsKvIdSetting, SETTINGS_FILE } from './deploy/settings.ts';

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

const COMMAND = 'npm run accounts';

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
class UsageError extends Error {}

/** What a run prints; kept apart from `process` so that the tool can be called from tests. */
type Output = CommandLineOutput;

/** A KV store that can list, and be closed (the local one runs workerd). */
interface OpenStore extends KvStore, KvListing {
  close(): Promise<void>;
}

/**
 * The `ACCOUNTS` namespace through `wrangler kv key` (one wrangler process per operation).
 * Used for `--remote`; `location: 'local'` exists so that the same code can be tried without an account.
 */
export class WranglerKv implements OpenStore {
  /**
   * @param namespaceId the deployed namespace's id (remote): `wrangler.toml` holds none (see `remoteNamespaceId`).
   */
  constructor(
    readonly environment: string,
    readonly location: 'local' | 'remote',
    readonly persistTo?: string,
    readonly namespaceId?: string,
  ) {}

  async get(key: string): Promise<string | null> {
    const stdout = this.#run(['get', key, '--text']);
    // wrangler prints this sentence, with status 0, for a missing key (stored values are JSON objects,
    // so none reads so); a value is printed with a newline after it, which JSON never ends with.
    if (stdout.trim() === 'Value not found') return null;
    return stdout.endsWith('\n') ? stdout.slice(0, -1) : stdout;
  }

  async put(key: string, value: string): Promise<void> {
    this.#run(['put', key, value]);
  }

  async delete(key: string): Promise<void> {
    this.#run(['delete', key]);
  }

  async listKeys(prefix: string): Promise<string[]> {
    return (JSON.parse(this.#run(['list', '--prefix', prefix])) as { name: string }[]).map((entry) => entry.name);
  }

  async close(): Promise<void> {}

  #run(args: string[]): string {
    const where = this.location === 'remote' ? ['--remote'] : ['--local', ...(this.persistTo ? ['--persist-to', this.persistTo] : [])];
    const namespace = this.namespaceId === undefined ? ['--binding', 'ACCOUNTS', '--env', this.environment] : ['--namespace-id', this.namespaceId];
    const result = spawnSync('npx', ['wrangler', 'kv', 'key', ...args, ...namespace, ...where], {
      encoding: 'utf8',
      // At wrangler's default level: below it, `kv key get` prints no value at all.
      env: { ...process.env, WRANGLER_LOG: 'log', WRANGLER_HIDE_BANNER: 'true' },
    });
    if (result.status !== 0)
      throw new Error(`wrangler kv key ${args.slice(0, 2).join(' ')} failed: ${result.stderr.trim() || result.error?.message || `status ${result.status}`}`);
    return result.stdout;
  }
}

/**
 * The local namespace of `wrangler dev`, through wrangler's platform proxy (one workerd for the whole
 * run). Local KV data is kept by namespace id (the binding's name when wrangler.toml gives none), so a configuration with the `ACCOUNTS` binding of
 * `environment` alone reaches the same data as `wrangler dev --env <environment>`, without starting
 * the Worker's other bindings.
 */
async function localKv(environment: string, persistTo: string | undefined): Promise<OpenStore> {
  process.env.WRANGLER_LOG ??= 'error';
  const { getPlatformProxy, unstable_readConfig } = await import('wrangler');
  const namespace = unstable_readConfig({ config: 'wrangler.toml', env: environment }, { hideWarnings: true }).kv_namespaces.find(
    (binding: { binding: string; id?: string | undefined }) => binding.binding === 'ACCOUNTS',
  );
  if (!namespace) throw new Error(`wrangler.toml has no ACCOUNTS namespace for the environment ${environment}.`);
  // Without an id (wrangler.toml holds none: `npm run deploy` puts it in), wrangler dev keeps local
  // data under the binding's name.
  const namespaceId = namespace.id ?? namespace.binding;
  const directory = await mkdtemp(join(tmpdir(), 'ipgeo-accounts-'));
  const configPath = join(directory, 'wrangler.json');
  await writeFile(
    configPath,
    JSON.stringify({ name: 'ipgeo-accounts', compatibility_date: '2026-11-01', kv_namespaces: [{ binding: 'ACCOUNTS', id: namespaceId }] }),
  );
  // wrangler dev keeps its Miniflare state under <persist-to>/v3.
  const path = join(resolve(persistTo ?? '.wrangler/state'), 'v3');
  const proxy = await getPlatformProxy<{ ACCOUNTS: KvStore & KvPagedList }>({ configPath, persist: { path } });
  const kv = proxy.env.ACCOUNTS;
  return {
    get: (key) => kv.get(key),
    put: (key, value) => kv.put(key, value),
    delete: (key) => kv.delete(key),
    listKeys: kvListing(kv).listKeys,
    close: async () => {
      await proxy.dispose();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * The deployed `ACCOUNTS` namespace's id: the deploy settings' `accountsKvId` (`IPGEO_ACCOUNTS_KV_ID`
 * or `deploy.settings.json`), else the namespace that `npm run deploy` created, by its title.
 *
 * @throws {Error} when neither names a namespace.
 */
function remoteNamespaceId(): string {
  const configured = accountsKvIdSetting(SETTINGS_FILE, process.env);
  if (configured !== null) return configured;
  const listed = spawnSync('npx', ['wrangler', 'kv', 'namespace', 'list'], { encoding: 'utf8', env: { ...process.env, WRANGLER_HIDE_BANNER: 'true' } });
  if (listed.status !== 0) throw new Error(`wrangler kv namespace list failed: ${listed.stderr.trim() || `status ${listed.status}`}`);
  const found = (JSON.parse(listed.stdout) as { id: string; title: string }[]).find((namespace) => namespace.title === ACCOUNTS_NAMESPACE_TITLE);
  if (!found) throw new Error(`No KV namespace titled ${ACCOUNTS_NAMESPACE_TITLE}: deploy first (npm run deploy), or set IPGEO_ACCOUNTS_KV_ID.`);
  return found.id;
}

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
interface Invocation {
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
function parse(argv: string[], output: Output): Invocation | number {
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

/**
 * Runs one command.
 *
 * @param openUsage opens where usage is read from (`usage` alone calls it).
 */
async function execute(kv: OpenStore, invocation: Invocation, output: Output, openUsage: () => Promise<UsageSource>): Promise<void> {
  const { command, args, expires, key, graceSeconds, quotas } = invocation;
  const [account = '', second = ''] = args;
  const summary = (view: AccountView) => output.out(describe(view));
  switch (command) {
    case 'create':
      summary(await createAccount(kv, account, { expires }));
      return;
    case 'key': {
      const { keyId, key } = await createApiKey(kv, account);
      output.out(`Created key ${keyId} for account ${account}. Store it now: it is shown this once, and kept only as a hash.`);
      output.out(key);
      return;
    }
    case 'revoke':
      summary(await revokeApiKey(kv, account, second));
      return;
    case 'allow-ip':
      summary(await allowIp(kv, account, second));
      return;
    case 'allow-domain':
      summary(await allowDomain(kv, account, second));
      return;
    case 'cancel':
      summary(await cancelAccount(kv, account));
      return;
    case 'show':
      output.out(JSON.stringify(await showAccount(kv, account), null, 2));
      return;
    case 'list':
      output.out(accountTable(await listAccounts(kv), new Date()));
      return;
    case 'disallow-ip':
      summary(await disallowIp(kv, account, second));
      return;
    case 'disallow-domain':
      summary(await disallowDomain(kv, account, second));
      return;
    case 'renew':
      summary(await renewAccount(kv, account, expires ?? ''));
      return;
    case 'rotate-key': {
      const rotated = await rotateApiKey(kv, account, { keyId: key, graceSeconds });
      const until = graceSeconds === 0 ? 'is revoked now' : `keeps working until ${rotated.oldKeyRevokedAt}`;
      output.out(
        `Created key ${rotated.keyId} for account ${account}; the old key ${rotated.replaced} ${until}. Store the new key now: it is shown this once.`,
      );
      output.out(rotated.key);
      return;
    }
    case 'set-quota':
      summary(await setQuotas(kv, account, quotas));
      return;
    case 'usage':
      await reportUsage(kv, await openUsage(), invocation, output);
      return;
    default:
      command satisfies never;
  }
}

/**
 * `usage`: one account's report (refused for an account that does not exist), or every account's month.
 *
 * @throws {AccountInputError} for a day that is not a date, or a range that ends before it starts.
 */
async function reportUsage(kv: OpenStore, source: UsageSource, { args, usage }: Invocation, output: Output): Promise<void> {
  if (usage.all) {
    output.out(
      await monthReport(
        source,
        (await listAccounts(kv)).map((view) => view.id),
        usage.month,
        usage.csv,
      ),
    );
    return;
  }
  const [account = ''] = args;
  const [from, to] = [checkDate(usage.from), checkDate(usage.to)];
  if (from > to) throw new AccountInputError(`The report would end (${to}) before it starts (${from}).`);
  await showAccount(kv, account);
  output.out(await accountReport(source, account, from, to, usage.by, usage.csv));
}

/**
 * The deployed usage Worker, from `IPGEO_USAGE_URL` and `IPGEO_USAGE_TOKEN` (docs/accounts.md, "Usage").
 *
 * @throws {Error} when either is not set.
 */
function remoteUsageSource(): UsageSource {
  const url = process.env.IPGEO_USAGE_URL;
  const token = process.env.IPGEO_USAGE_TOKEN;
  if (!url || !token) {
    throw new Error(
      'usage --remote reads the deployed usage Worker: set IPGEO_USAGE_URL (e.g. https://ipgeo-usage.<your-subdomain>.workers.dev) and IPGEO_USAGE_TOKEN (its secret USAGE_READ_TOKEN).',
    );
  }
  return remoteUsage(url, token);
}

/** `list`: one row per account, columns aligned. LAST DAY is the last day with access: a cancelled account's is the day it was cancelled. */
function accountTable(views: readonly AccountView[], now: Date): string {
  if (views.length === 0) return 'No accounts.';
  const rows = views.map((view) => {
    const standing = standingOf({ ...view, v: 1, keys: [] }, now.getTime());
    return [
      view.id,
      standing.active ? 'active' : standing.reason,
      standing.active ? (view.expires ?? '-') : standing.since,
      String(view.keys.filter((key) => !isRevoked(key, now)).length),
      view.ignoredIps.length === 0 ? String(view.ips.length) : `${view.ips.length} (${view.ignoredIps.length} ignored)`,
      String(view.domains.length),
    ];
  });
  const table = [['ACCOUNT', 'STATUS', 'LAST DAY', 'KEYS', 'IPS', 'DOMAINS'], ...rows];
  const widths = table[0]?.map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length))) ?? [];
  return table
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * What an account is now, first line first. The first line says whether it gives access: a cancelled
 * account's last day is not shown there, since "cancelled, access through …" reads as if access went on.
 */
function describe(view: AccountView): string {
  const now = new Date();
  const keys = view.keys.map((key) =>
    key.revokedAt === null ? key.id : isRevoked(key, now) ? `${key.id} (revoked)` : `${key.id} (works until ${key.revokedAt}, then revoked)`,
  );
  const standing = standingOf({ ...view, v: 1, keys: [] }, now.getTime());
  const state = standing.active
    ? view.expires === null
      ? 'active, with no last day'
      : `active, access through ${view.expires} (UTC)`
    : standing.reason === 'cancelled'
      ? `cancelled: its keys, server addresses and website hostnames no longer give access (running servers stop accepting them within about 90 seconds; renew reactivates it)`
      : `expired: access ended with ${standing.since} (UTC); renew gives a new last day`;
  return [
    `Account ${view.id}: ${state}.`,
    `  keys: ${keys.join(', ') || 'none'}`,
    `  server addresses: ${view.ips.map((ip) => (view.ignoredIps.some((ignored) => ignored.ip === ip) ? `${ip} (ignored: allow-ip refuses it now; remove it with disallow-ip)` : ip)).join(', ') || 'none'}`,
    `  website hostnames: ${view.domains.join(', ') || 'none'}`,
    `  quotas: ${quotaText(view.quotas)}`,
  ].join('\n');
}

/** An account's quotas in words. */
function quotaText(quotas: AccountView['quotas']): string {
  const parts = [
    ...(quotas.monthly === null ? [] : [`${quotas.monthly} lookups per month by keys and server addresses`]),
    ...(quotas.dailyWebsite === null ? [] : [`${quotas.dailyWebsite} lookups per day by a whitelisted website alone`]),
    ...(quotas.monthlyWebsite === null ? [] : [`${quotas.monthlyWebsite} lookups per month by a whitelisted website alone`]),
  ];
  return parts.join(', ') || 'none';
}

/**
 * Runs the tool on `argv` (the arguments after `npm run accounts --`).
 *
 * @returns the exit status: 0 done, 1 refused or failed, 2 bad usage.
 */
export async function run(argv: string[], output: Output): Promise<number> {
  let invocation: Invocation | number;
  try {
    invocation = parse(argv, output);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return commandLineError(COMMAND, error.message, output);
  }
  if (typeof invocation === 'number') return invocation;
  let kv: OpenStore | undefined;
  let source: UsageSource | undefined;
  try {
    kv = invocation.remote
      ? new WranglerKv(invocation.environment, 'remote', undefined, remoteNamespaceId())
      : await localKv(invocation.environment, invocation.persistTo);
    const { remote, environment, persistTo } = invocation;
    await execute(kv, invocation, output, async () => {
      source = remote ? remoteUsageSource() : await localUsage(environment, persistTo);
      return source;
    });
    return 0;
  } catch (error) {
    const known = error instanceof AccountInputError || error instanceof AccountStateError || error instanceof UsageReadError;
    output.err(`accounts: ${known ? error.message : String(error instanceof Error ? error.message : error)}`);
    return 1;
  } finally {
    await source?.close();
    await kv?.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const status = await run(process.argv.slice(2), { out: (line) => console.log(line), err: (line) => console.error(line) });
  process.exit(status);
}
