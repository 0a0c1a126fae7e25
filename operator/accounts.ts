/**
 * @module `npm run accounts -- <command>`: the operators' tool for paid accounts, API keys and
 * whitelists in the `ACCOUNTS` KV namespace (schema: `docs/storage.md`; guide: `docs/accounts.md`).
 *
 * By default it works on the local KV of `wrangler dev`; with `--remote`, on the deployed namespace of
 * `--env` (`kv-stores.ts`). The operations write at most one account document, last, so that a
 * failure leaves the account as it was (`account-store.ts`).
 *
 * Exit status: 0 done; 1 refused (unknown account, conflict, bad value) or failed; 2 bad usage.
 */
import { pathToFileURL } from 'node:url';
import { type CommandLineOutput, commandLineError } from '../data/command-line.ts';
import { AccountInputError } from '../src/access/account.ts';
import { AccountStateError } from './account-store.ts';
import { accountTable, describe } from './account-text.ts';
import type { AccountView } from './account-view.ts';
import { COMMAND, type Invocation, parse, UsageError } from './command-line.ts';
import { checkDate } from './input.ts';
import { createApiKey, revokeApiKey, rotateApiKey } from './keys.ts';
import { localKv, type OpenStore, remoteNamespaceId, WranglerKv } from './kv-stores.ts';
import { cancelAccount, createAccount, listAccounts, renewAccount, setQuotas, showAccount } from './lifecycle.ts';
import { accountReport, localUsage, monthReport, remoteUsage, UsageReadError, type UsageSource } from './usage-reports.ts';
import { allowDomain, allowIp, disallowDomain, disallowIp } from './whitelists.ts';

/** What a run prints; kept apart from `process` so that the tool can be called from tests. */
type Output = CommandLineOutput;

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
