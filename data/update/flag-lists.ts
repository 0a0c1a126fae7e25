/**
 * @module The published lists of `data:update --flag-lists` (docs/operations.md, "Flag lists"): where
 * each publisher puts its files, and their download into the cache. A list is checked with the build's
 * own reader before it is kept; a list that cannot be fetched or read keeps its cached version, or is
 * left out of the build when there is none, and the update says so: one publisher down never stops the
 * refresh of the others. Each URL can be overridden by an environment variable (mirrors, tests).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type FlagListFile, type FlagListId, parseFlagList } from '../sources/flag-lists/lists.ts';
import { SourceError } from '../sources/source.ts';
import type { DownloadCache, StagedSource } from './cache.ts';
import { download, UpdateError } from './download.ts';

/** One file of a list: where it is published, and the variable that overrides it. */
interface PublishedFile {
  /** Its name in the cache; a file found by its link on a page has the link's name. */
  readonly name?: string;
  readonly url: string;
  readonly variable: string;
  /**
   * When `url` is a page that links to the file rather than the file (Azure's Download Center page):
   * the pattern of the link, whose newest match (by its name) is the file. A URL whose path ends in
   * `.json` is taken as the file itself.
   */
  readonly linkedAs?: RegExp;
}

/** A list and its files. */
export interface PublishedList {
  readonly id: FlagListId;
  readonly files: readonly PublishedFile[];
}

/** The largest file accepted from a publisher: Apple's, the largest, is about 12 MiB. */
const FLAG_LIST_MAX_BYTES = 64 * 1_048_576;

const X4BNET = 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output';

/** Every list `--flag-lists` fetches, in order. */
export const PUBLISHED_LISTS: readonly PublishedList[] = [
  { id: 'tor-exits', files: [{ name: 'torbulkexitlist', url: 'https://check.torproject.org/torbulkexitlist', variable: 'TOR_EXIT_LIST_URL' }] },
  {
    id: 'x4bnet-vpn',
    files: [
      { name: 'ipv4.txt', url: `${X4BNET}/vpn/ipv4.txt`, variable: 'VPN_LIST_URL' },
      { name: 'ipv6.txt', url: `${X4BNET}/vpn/ipv6.txt`, variable: 'VPN_LIST_IPV6_URL' },
    ],
  },
  {
    id: 'x4bnet-datacenter',
    files: [
      { name: 'ipv4.txt', url: `${X4BNET}/datacenter/ipv4.txt`, variable: 'DATACENTER_LIST_URL' },
      { name: 'ipv6.txt', url: `${X4BNET}/datacenter/ipv6.txt`, variable: 'DATACENTER_LIST_IPV6_URL' },
    ],
  },
  {
    id: 'icloud-private-relay',
    files: [{ name: 'egress-ip-ranges.csv', url: 'https://mask-api.icloud.com/egress-ip-ranges.csv', variable: 'PRIVATE_RELAY_RANGES_URL' }],
  },
  { id: 'aws', files: [{ name: 'ip-ranges.json', url: 'https://ip-ranges.amazonaws.com/ip-ranges.json', variable: 'AWS_IP_RANGES_URL' }] },
  { id: 'google-cloud', files: [{ name: 'cloud.json', url: 'https://www.gstatic.com/ipranges/cloud.json', variable: 'GOOGLE_CLOUD_RANGES_URL' }] },
  {
    id: 'azure',
    files: [
      {
        url: 'https://www.microsoft.com/en-us/download/details.aspx?id=56519',
        variable: 'AZURE_SERVICE_TAGS_URL',
        linkedAs: /https?:\/\/[^\s"'<>]+\/ServiceTags_Public_\d{8}\.json/g,
      },
    ],
  },
  {
    id: 'oracle-cloud',
    files: [{ name: 'public_ip_ranges.json', url: 'https://docs.oracle.com/iaas/tools/public_ip_ranges.json', variable: 'ORACLE_CLOUD_RANGES_URL' }],
  },
  { id: 'digitalocean', files: [{ name: 'google.csv', url: 'https://www.digitalocean.com/geo/google.csv', variable: 'DIGITALOCEAN_RANGES_URL' }] },
  {
    id: 'cloudflare',
    files: [
      { name: 'ips-v4', url: 'https://www.cloudflare.com/ips-v4', variable: 'CLOUDFLARE_IPS_V4_URL' },
      { name: 'ips-v6', url: 'https://www.cloudflare.com/ips-v6', variable: 'CLOUDFLARE_IPS_V6_URL' },
    ],
  },
  { id: 'fastly', files: [{ name: 'public-ip-list.json', url: 'https://api.fastly.com/public-ip-list', variable: 'FASTLY_IP_LIST_URL' }] },
];

/** What fetching a list gave the build. */
export interface FetchedList {
  /** The list as the build reads it (new, unchanged, or the cached one kept), absent when there is none. */
  readonly staged?: StagedSource;
  /** The paths of its files. */
  readonly paths: readonly string[];
  /** Why the list could not be fetched, and what the build uses instead; absent when it was fetched. */
  readonly problem?: string;
}

/**
 * Downloads a list's files and checks them with the build's reader. A list that is the same byte for
 * byte as the cached one keeps its cached files (whose modification time is the date of a list that
 * states none), so that the same lists give the same database.
 *
 * A download that fails (a network error, a status other than 2xx, the timeout, an answer over
 * {@link FLAG_LIST_MAX_BYTES}) or a file the reader refuses leaves the cached version to the build,
 * or, when there is none, the list out of it: both are logged and returned as `problem`.
 */
export async function fetchFlagList(list: PublishedList, cache: DownloadCache, timeoutMs: number, log: (line: string) => void): Promise<FetchedList> {
  const id = `lists/${list.id}`;
  const cached = cache.cached(id);
  const cachedFiles = cached ? filesIn(cache.dirOf(id)) : [];
  let files: Map<string, Buffer>;
  let version: string;
  try {
    files = new Map();
    for (const file of list.files) {
      const { name, body } = await downloadFile(list.id, file, timeoutMs);
      files.set(name, body);
    }
    version = parseFlagList(
      list.id,
      [...files].map(([name, content]) => ({ name, content, label: `${list.id} ${name} from ${origins(list)}` })),
    ).version;
  } catch (error) {
    if (!(error instanceof UpdateError || error instanceof SourceError)) throw error;
    if (cached && cachedFiles.length > 0) {
      const problem = `${list.id}: ${error.message}; the build uses the cached version, ${cached.version}, fetched ${cached.fetchedAt}`;
      log(problem);
      return { staged: cache.unchanged(id, cached), paths: cachedFiles.map((file) => join(cache.dirOf(id), file.name)), problem };
    }
    const problem = `${list.id}: ${error.message}; no cached version, so the build goes on without this list`;
    log(problem);
    return { paths: [], problem };
  }
  const names = [...files.keys()];
  if (cached && cachedFiles.length === files.size && cachedFiles.every((file) => files.get(file.name)?.equals(file.content))) {
    log(`${list.id}: ${version} from ${origins(list)}, as cached`);
    return { staged: cache.unchanged(id, cached), paths: names.map((name) => join(cache.dirOf(id), name)) };
  }
  log(`${list.id}: ${version} from ${origins(list)}`);
  const staged = cache.stage(id, files, { version, fetchedAt: new Date().toISOString() });
  return { staged, paths: names.map((name) => join(staged.dir, name)) };
}

/** The cached files of a list (every file of its folder but `source.json`). */
function filesIn(dir: string): Omit<FlagListFile, 'label'>[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name !== 'source.json')
    .sort()
    .map((name) => ({ name, content: readFileSync(join(dir, name)) }));
}

/** The hosts a list comes from, for the log: `ip-ranges.amazonaws.com`. */
function origins(list: PublishedList): string {
  return [...new Set(list.files.map((file) => new URL(urlOf(file)).host))].join(', ');
}

function urlOf(file: PublishedFile): string {
  return process.env[file.variable] || file.url;
}

/**
 * Downloads one file, following the link of a page when the file is published so.
 *
 * @throws UpdateError when a download fails or a page holds no link to the file.
 */
async function downloadFile(id: FlagListId, file: PublishedFile, timeoutMs: number): Promise<{ name: string; body: Buffer }> {
  const url = urlOf(file);
  const what = (name: string) => `${id} ${name} (${file.variable})`;
  const options = { timeoutMs, maxBytes: FLAG_LIST_MAX_BYTES };
  if (!file.linkedAs || new URL(url).pathname.endsWith('.json')) {
    const name = file.name ?? basename(new URL(url).pathname);
    return { name, body: await download(url, { ...options, what: what(name) }) };
  }
  const page = (await download(url, { ...options, what: what('download page') })).toString('utf8');
  const links = [...new Set(page.match(file.linkedAs) ?? [])].sort((a, b) => basename(a).localeCompare(basename(b)));
  const link = links.at(-1);
  if (link === undefined) throw new UpdateError(`${what('download page')}: ${url} links to no file matching ${file.linkedAs.source} (has the page changed?)`);
  const name = basename(new URL(link).pathname);
  return { name, body: await download(link, { ...options, what: what(name) }) };
}
