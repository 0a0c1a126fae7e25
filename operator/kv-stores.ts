/**
 * @module Where the operator tool reads and writes accounts: the local `ACCOUNTS` namespace of
 * `wrangler dev` (`.wrangler/state`, through wrangler's `getPlatformProxy`), or with `--remote` the
 * deployed one, through `wrangler kv key get|put|delete --remote` (so wrangler's login or
 * `CLOUDFLARE_API_TOKEN` applies).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ACCOUNTS_NAMESPACE_TITLE, accountsKvIdSetting, SETTINGS_FILE } from '../scripts/deploy/settings.ts';
import type { KvStore } from './account-store.ts';
import { type KvListing, type KvPagedList, kvListing } from './kv-listing.ts';

/** A KV store that can list, and be closed (the local one runs workerd). */
export interface OpenStore extends KvStore, KvListing {
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
export async function localKv(environment: string, persistTo: string | undefined): Promise<OpenStore> {
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
export function remoteNamespaceId(): string {
  const configured = accountsKvIdSetting(SETTINGS_FILE, process.env);
  if (configured !== null) return configured;
  const listed = spawnSync('npx', ['wrangler', 'kv', 'namespace', 'list'], { encoding: 'utf8', env: { ...process.env, WRANGLER_HIDE_BANNER: 'true' } });
  if (listed.status !== 0) throw new Error(`wrangler kv namespace list failed: ${listed.stderr.trim() || `status ${listed.status}`}`);
  const found = (JSON.parse(listed.stdout) as { id: string; title: string }[]).find((namespace) => namespace.title === ACCOUNTS_NAMESPACE_TITLE);
  if (!found) throw new Error(`No KV namespace titled ${ACCOUNTS_NAMESPACE_TITLE}: deploy first (npm run deploy), or set IPGEO_ACCOUNTS_KV_ID.`);
  return found.id;
}
