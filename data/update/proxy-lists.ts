/**
 * @module Lists of anonymising networks for `isProxy` (`data:update --proxy-lists`): the Tor Project's
 * bulk list of exit addresses, and the datacenter and VPN networks of X4BNet/lists_vpn (MIT). Each URL
 * can be overridden by an environment variable (mirrors, tests).
 */
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
 * Downloads a list into the staging folder as `{id}.txt` (the name the manifest gives the source).
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
  log(`${list.id}: ${entries} entries from ${new URL(url).host}`);
  return cache.stage(`lists/${list.id}`, new Map([[`${list.id}.txt`, body]]), { version: `${entries} entries`, fetchedAt: new Date().toISOString() });
}
