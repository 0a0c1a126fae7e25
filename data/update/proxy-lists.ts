/**
 * @module Lists of anonymising networks for `isProxy` (`data:update --proxy-lists`): the Tor Project's
 * bulk list of exit addresses, and the datacenter and VPN networks of X4BNet/lists_vpn (MIT). Each URL
 * can be overridden by an environment variable (mirrors, tests).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DownloadCache, StagedSource } from './cache.ts';
import { download, UpdateError } from './download.ts';

/** A list: its cache name, default URL, the variable that overrides it, and its publisher's terms. */
export interface ProxyList {
  readonly id: string;
  readonly url: string;
  readonly variable: string;
  readonly about: string;
}

/** The lists fetched by `--proxy-lists`. */
export const PROXY_LISTS: readonly ProxyList[] = [
  {
    id: 'tor-exits',
    url: 'https://check.torproject.org/torbulkexitlist',
    variable: 'TOR_EXIT_LIST_URL',
    about: 'Tor exit relays, published by the Tor Project (public data)',
  },
  {
    id: 'x4bnet-vpn',
    url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv4.txt',
    variable: 'VPN_LIST_URL',
    about: 'VPN and hosting networks of X4BNet/lists_vpn (MIT licence)',
  },
];

/**
 * Downloads a list into the staging folder as `{id}.txt` (the name the manifest gives the source), or
 * finds it unchanged in the cache: a list the same byte for byte keeps its cached file, whose
 * modification time is the list's date in the build (`data/sources/proxy-list.ts`), so that the same
 * lists give the same database.
 *
 * @throws UpdateError when the download fails or the answer holds no address at all.
 */
export async function fetchProxyList(list: ProxyList, cache: DownloadCache, timeoutMs: number, log: (line: string) => void): Promise<StagedSource> {
  const url = process.env[list.variable] || list.url;
  const body = await download(url, { what: `${list.id} list (${list.variable})`, timeoutMs });
  const entries = body
    .toString('utf8')
    .split(/\r?\n/)
    .filter((line) => line.replace(/#.*/, '').trim() !== '').length;
  if (entries === 0) throw new UpdateError(`${list.id} list from ${url} holds no address`);
  const id = `lists/${list.id}`;
  const cached = cache.cached(id);
  const cachedFile = join(cache.dirOf(id), `${list.id}.txt`);
  if (cached && existsSync(cachedFile) && readFileSync(cachedFile).equals(body)) {
    log(`${list.id}: ${entries} entries from ${new URL(url).host}, as cached`);
    return cache.unchanged(id, cached);
  }
  log(`${list.id}: ${entries} entries from ${new URL(url).host}`);
  return cache.stage(id, new Map([[`${list.id}.txt`, body]]), { version: `${entries} entries`, fetchedAt: new Date().toISOString() });
}
