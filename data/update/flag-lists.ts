/**
 * @module The published lists of `data:update --flag-lists` (docs/operations.md, "Flag lists"): where
 * each publisher puts its files, and their download into the cache. A list is checked with the build's
 * own reader (its entries, its ceiling) and against its cached version (a change of more than
 * {@link MAX_LIST_CHANGE} of its networks or covered addresses) before it is kept; a list refused so, or
 * that cannot be fetched, keeps its cached version, or is left out of the build when there is none, and
 * the update says so: one publisher down never stops the refresh of the others. Each URL can be
 * overridden by an environment variable (mirrors, tests).
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type FlagListId, type ParsedFlagList, parseFlagList } from '../sources/flag-lists/lists.ts';
import { SourceError } from '../sources/source.ts';
import type { DownloadCache, StagedSource } from './cache.ts';
import { publicUrl } from './destination.ts';
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

/**
 * The largest change from the cached version that a refresh takes without the operator: of the list's
 * networks, its IPv4 addresses or its IPv6 /64s (each family measured when the cached version covers
 * some). Lists grow by a few percent a month; a list halved or doubled between two refreshes is one its
 * publisher broke, or one poisoned.
 */
export const MAX_LIST_CHANGE = 0.5;

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
        linkedAs: /https:\/\/download\.microsoft\.com\/[^\s"'<>]+\/ServiceTags_Public_\d{8}\.json/g,
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
  /** Why the list was not updated (not fetched, refused, or changed too much), and what the build uses instead; absent when it was. */
  readonly problem?: string;
}

/**
 * Downloads a list's files and checks them with the build's reader and against the cached version. A
 * list that is the same byte for byte as the cached one keeps its cached files (whose modification time
 * is the date of a list that states none), so that the same lists give the same database.
 *
 * A download that fails (a refused hop, a network error, a status other than 2xx, the timeout, an
 * answer over {@link FLAG_LIST_MAX_BYTES}), a list the reader refuses (an entry, no network, over its
 * ceiling), or one that changed more than {@link MAX_LIST_CHANGE} from the cached version (unless
 * `acceptChange`) leaves the cached version to the build, or, when there is none, the list out of it:
 * both are logged and returned as `problem`.
 */
export async function fetchFlagList(
  list: PublishedList,
  cache: DownloadCache,
  timeoutMs: number,
  log: (line: string) => void,
  acceptChange = false,
): Promise<FetchedList> {
  const id = `lists/${list.id}`;
  const cached = cache.cached(id);
  const cachedFiles = Object.keys(cached?.files ?? {}).map((name) => ({ name, content: readFileSync(join(cache.dirOf(id), name)) }));
  const label = (name: string, where: string) => `${list.id} ${name} ${where}`;
  let before: ParsedFlagList | undefined;
  try {
    before =
      cachedFiles.length > 0
        ? parseFlagList(
            list.id,
            cachedFiles.map((file) => ({ ...file, label: label(file.name, '(cached)') })),
          )
        : undefined;
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    log(`${list.id}: the cached version is refused now (${error.message}); it is not used`);
  }
  const keepCached = (why: string): FetchedList => {
    if (cached && before) {
      const problem = `${list.id}: ${why}; the build uses the cached version, ${cached.version}, fetched ${cached.fetchedAt}`;
      log(problem);
      return { staged: cache.unchanged(id, cached), paths: cachedFiles.map((file) => join(cache.dirOf(id), file.name)), problem };
    }
    const problem = `${list.id}: ${why}; no cached version, so the build goes on without this list`;
    log(problem);
    return { paths: [], problem };
  };
  const files = new Map<string, Buffer>();
  let parsed: ParsedFlagList;
  try {
    for (const file of list.files) {
      const { name, body } = await downloadFile(list.id, file, timeoutMs);
      files.set(name, body);
    }
    parsed = parseFlagList(
      list.id,
      [...files].map(([name, content]) => ({ name, content, label: label(name, `from ${origins(list)}`) })),
    );
  } catch (error) {
    if (!(error instanceof UpdateError || error instanceof SourceError)) throw error;
    return keepCached(error.message);
  }
  const names = [...files.keys()];
  if (cached && before && cachedFiles.length === files.size && cachedFiles.every((file) => files.get(file.name)?.equals(file.content))) {
    log(`${list.id}: ${parsed.version} from ${origins(list)}, as cached`);
    return { staged: cache.unchanged(id, cached), paths: names.map((name) => join(cache.dirOf(id), name)) };
  }
  const change = before === undefined ? undefined : changeFrom(before, parsed);
  if (change !== undefined) {
    if (!acceptChange)
      return keepCached(`${change}, more than the ${MAX_LIST_CHANGE * 100}% a refresh takes unasked (--accept-list-change ${list.id} takes it)`);
    log(`${list.id}: ${change}; taken, as --accept-list-change ${list.id} asks`);
  }
  log(`${list.id}: ${parsed.version} from ${origins(list)}`);
  const staged = cache.stage(id, files, { version: parsed.version, fetchedAt: new Date().toISOString() });
  return { staged, paths: names.map((name) => join(staged.dir, name)) };
}

/** How a list changed from its cached version when by more than {@link MAX_LIST_CHANGE}, in words; else undefined. */
function changeFrom(before: ParsedFlagList, after: ParsedFlagList): string | undefined {
  const measures: [string, number, number][] = [
    ['networks', before.networks.length, after.networks.length],
    ['IPv4 addresses', before.coverage.ipv4, after.coverage.ipv4],
    ['IPv6 /64s', before.coverage.ipv6, after.coverage.ipv6],
  ];
  for (const [what, was, is] of measures) {
    if (was === 0 || Math.abs(is - was) / was <= MAX_LIST_CHANGE) continue;
    const figure = (n: number) => (n >= 1e9 ? n.toExponential(2) : String(Math.round(n)));
    return `its ${what} went from ${figure(was)} in the cached version to ${figure(is)} (${is > was ? '+' : ''}${Math.round(((is - was) / was) * 100)}%)`;
  }
  return undefined;
}

/**
 * The newest link of `page` that `pattern` matches (by the file's name, which carries its date), if any.
 *
 * @internal Exported for its tests.
 */
export function newestLink(page: string, pattern: RegExp): string | undefined {
  return [...new Set(page.match(pattern) ?? [])].sort((a, b) => basename(a).localeCompare(basename(b))).at(-1);
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
  const link = newestLink(page, file.linkedAs);
  if (link === undefined)
    throw new UpdateError(`${what('download page')}: ${publicUrl(url)} links to no file matching ${file.linkedAs.source} (has the page changed?)`);
  const name = basename(new URL(link).pathname);
  return { name, body: await download(link, { ...options, what: what(name) }) };
}
