/**
 * @module The published lists of networks that set the privacy and hosting flags (docs/operations.md,
 * "Flag lists"): each list's flag, hosting provider, format, licence, attribution and ceiling, and the
 * reader that turns its files into a {@link FlagSource}. `data:update --flag-lists` fetches them; the
 * build reads them from the files it is given (`--flag-list ID=FILE`). A list with no network, or one
 * over its ceiling, is refused whole, wherever it comes from.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Network } from '../../mmdb/search-tree.ts';
import { type FlagSource, type NetworkFlag, type NetworkFlags, readSourceFile, SourceError, type SourceFile } from '../source.ts';
import { addressLines } from './address-lines.ts';
import { awsIpRanges } from './aws-ip-ranges.ts';
import { azureServiceTags } from './azure-service-tags.ts';
import { asPrefix, type Coverage, coverageOf } from './coverage.ts';
import { fastlyIpList } from './fastly.ts';
import { geofeedPrefixes } from './geofeed-prefixes.ts';
import { googleCloud } from './google-cloud.ts';
import { oracleCloud } from './oracle-cloud.ts';
import type { FormatReader } from './parse.ts';

/** A published list: the flag it sets, the provider it names, how its files read, and its terms. */
interface FlagList {
  readonly flag: NetworkFlag;
  /** The hosting provider's name, for lists of one provider's networks. */
  readonly hostingProvider?: string;
  readonly read: FormatReader;
  readonly licence: string;
  readonly attribution: string;
  /** Several times what the list covers now, far below what would flag a share of the Internet. */
  readonly ceiling: Ceiling;
}

/**
 * The most address space a list may cover, as prefix lengths: IPv4 addresses as many as a network of
 * `ipv4` bits holds, IPv6 /64s as many as a network of `ipv6` bits holds; and why, from what the list is.
 */
interface Ceiling {
  readonly ipv4: number;
  readonly ipv6: number;
  readonly why: string;
}

/**
 * The ceiling of each `--proxy-list` file (`../proxy-list.ts`): a list of open proxies names hosts, one
 * address each, and the build's only other proxy source is a MaxMind database.
 */
export const PROXY_LIST_CEILING: Ceiling = {
  ipv4: 10,
  ipv6: 24,
  why: 'a list of proxy hosts: a /10 of IPv4 holds four million of them; IPv6 comes in allocations, and a /24 holds 32 of the /29s a RIPE NCC member receives without further justification',
};

const X4BNET_MIT = 'MIT licence, Copyright (c) 2024 X4B (Mathew Heard)';
const NO_LICENCE = 'none stated; published by its operator for anyone to use in network configuration';

/** Every list, by its id (the source's name in the manifest and the status). */
const FLAG_LISTS = {
  'tor-exits': {
    flag: 'tor',
    read: addressLines,
    licence: 'public data of the Tor Project',
    attribution: 'Tor exit relays from the Tor Project’s bulk exit list (https://check.torproject.org/torbulkexitlist).',
    ceiling: { ipv4: 16, ipv6: 48, why: 'one address per exit relay: a /16 holds fifty times the relays there are' },
  },
  'x4bnet-vpn': {
    flag: 'vpn',
    read: addressLines,
    licence: X4BNET_MIT,
    attribution: `VPN networks from X4BNet/lists_vpn (https://github.com/X4BNet/lists_vpn), ${X4BNET_MIT}.`,
    ceiling: { ipv4: 8, ipv6: 20, why: 'the networks of about fifteen VPN providers’ ASNs: a /8 is five times what they hold' },
  },
  'x4bnet-datacenter': {
    flag: 'hosting',
    read: addressLines,
    licence: X4BNET_MIT,
    attribution: `Data-centre and VPN networks from X4BNet/lists_vpn (https://github.com/X4BNet/lists_vpn), ${X4BNET_MIT}.`,
    ceiling: { ipv4: 2, ipv6: 16, why: 'the networks of some 900 hosting ASNs, the widest list: a quarter of IPv4 is under three times what they hold' },
  },
  'icloud-private-relay': {
    flag: 'relay',
    read: geofeedPrefixes,
    licence: 'none stated; published by Apple for network operators to recognise Private Relay traffic',
    attribution: 'iCloud Private Relay egress ranges published by Apple (https://mask-api.icloud.com/egress-ip-ranges.csv).',
    ceiling: { ipv4: 12, ipv6: 27, why: 'small egress prefixes in a few CDNs: a /12 is ten times what they hold' },
  },
  aws: {
    flag: 'hosting',
    hostingProvider: 'Amazon Web Services',
    read: awsIpRanges,
    licence: NO_LICENCE,
    attribution: 'AWS IP address ranges (https://ip-ranges.amazonaws.com/ip-ranges.json).',
    ceiling: { ipv4: 4, ipv6: 24, why: 'one cloud, the largest: a /4 is under three times what it holds' },
  },
  'google-cloud': {
    flag: 'hosting',
    hostingProvider: 'Google Cloud',
    read: googleCloud,
    licence: NO_LICENCE,
    attribution: 'Google Cloud’s external IP ranges (https://www.gstatic.com/ipranges/cloud.json).',
    ceiling: { ipv4: 6, ipv6: 32, why: 'one cloud’s customer ranges: a /6 is four times what they hold' },
  },
  azure: {
    flag: 'hosting',
    hostingProvider: 'Microsoft Azure',
    read: azureServiceTags,
    licence: 'Microsoft Download Center terms of use',
    attribution: 'Azure IP Ranges and Service Tags – Public Cloud, by Microsoft (https://www.microsoft.com/en-us/download/details.aspx?id=56519).',
    ceiling: { ipv4: 5, ipv6: 24, why: 'one cloud: a /5 is under three times its IPv4, a /24 the block of its IPv6 (2603:1000::/24)' },
  },
  'oracle-cloud': {
    flag: 'hosting',
    hostingProvider: 'Oracle Cloud Infrastructure',
    read: oracleCloud,
    licence: NO_LICENCE,
    attribution: 'Oracle Cloud Infrastructure public IP ranges (https://docs.oracle.com/iaas/tools/public_ip_ranges.json).',
    ceiling: { ipv4: 8, ipv6: 32, why: 'one provider: a /8 is four times what it holds' },
  },
  digitalocean: {
    flag: 'hosting',
    hostingProvider: 'DigitalOcean',
    read: geofeedPrefixes,
    licence: NO_LICENCE,
    attribution: 'DigitalOcean’s IP ranges (https://www.digitalocean.com/geo/google.csv).',
    ceiling: { ipv4: 8, ipv6: 32, why: 'one provider: a /8 is four times what it holds' },
  },
  cloudflare: {
    flag: 'hosting',
    hostingProvider: 'Cloudflare',
    read: addressLines,
    licence: NO_LICENCE,
    attribution: 'Cloudflare’s IP ranges (https://www.cloudflare.com/ips/).',
    ceiling: { ipv4: 9, ipv6: 24, why: 'some twenty networks of one CDN: a /9 is five times what they hold' },
  },
  fastly: {
    flag: 'hosting',
    hostingProvider: 'Fastly',
    read: fastlyIpList,
    licence: NO_LICENCE,
    attribution: 'Fastly’s public IP list (https://api.fastly.com/public-ip-list).',
    ceiling: { ipv4: 11, ipv6: 27, why: 'some twenty networks of one CDN: a /11 is six times what they hold' },
  },
} as const satisfies Record<string, FlagList>;

/** The id of a published list, e.g. `aws`. */
export type FlagListId = keyof typeof FLAG_LISTS;

/** The ids of every list, in the order `data:update --flag-lists` fetches them. */
export const FLAG_LIST_IDS = Object.keys(FLAG_LISTS) as FlagListId[];

/** Whether `id` names a published list. */
export function isFlagListId(id: string): id is FlagListId {
  return Object.hasOwn(FLAG_LISTS, id);
}

/** One file of a list, as read: its name (which may carry its date), content, and how errors name it. */
export interface FlagListFile {
  readonly name: string;
  readonly content: Buffer;
  readonly label: string;
}

/** What a list's files hold together. */
export interface ParsedFlagList {
  /** Its distinct networks, in the order of its files. */
  readonly networks: readonly Network[];
  /**
   * The publisher's version, with the count of networks: `syncToken 1763420000, 16406 networks`, or,
   * when the publisher states none, the first 12 hex digits of the SHA-256 of its files.
   */
  readonly version: string;
  /** When the publisher made it, RFC 3339 UTC, when its files say (the newest file's date). */
  readonly builtAt?: string;
  /** The address space its networks cover together. */
  readonly coverage: Coverage;
  /** Its entries dropped for lying in an IPv4 alias of the tree, each with its file (`parse.ts`). */
  readonly dropped: readonly string[];
}

/** A ceiling in coverage's units: IPv4 addresses and IPv6 /64s. */
function sizeOf(ceiling: Ceiling): Coverage {
  return { ipv4: 2 ** (32 - ceiling.ipv4), ipv6: 2 ** (64 - ceiling.ipv6) };
}

/** A list's coverage in words: `3144482 IPv4 addresses (a /10.4's worth) and 2.6e+12 IPv6 /64s (a /22.8's worth)`. */
function describeCoverage(coverage: Coverage): string {
  const ipv6 =
    coverage.ipv6 >= 1e6 || (coverage.ipv6 > 0 && coverage.ipv6 < 0.01) ? coverage.ipv6.toExponential(2) : String(Math.round(coverage.ipv6 * 100) / 100);
  return (
    `${coverage.ipv4} IPv4 addresses${coverage.ipv4 > 0 ? ` (${asPrefix(coverage.ipv4, 4)})` : ''} and ` +
    `${ipv6} IPv6 /64s${coverage.ipv6 > 0 ? ` (${asPrefix(coverage.ipv6, 6)})` : ''}`
  );
}

/**
 * Reads a list's files (both of Cloudflare's, say) in the list's format, and holds it to its bounds.
 *
 * @throws SourceError naming the file and the line or JSON path of the first entry that is refused
 *   (`parse.ts`); or naming the files when together they hold no network, or cover more than the
 *   list's ceiling in either family.
 */
export function parseFlagList(id: FlagListId, files: readonly FlagListFile[]): ParsedFlagList {
  const list: FlagList = FLAG_LISTS[id];
  const parsed = files.map((file) => list.read(file.content, file.label, file.name));
  const labels = files.map((file) => file.label).join(' and ');
  const { networks, coverage } = boundedList(
    parsed.flatMap((file) => file.networks),
    list.ceiling,
    labels,
  );
  const stated = parsed.map((file) => file.version).filter((version) => version !== undefined);
  const digest = createHash('sha256');
  for (const file of files) digest.update(file.content);
  const dates = parsed.map((file) => file.builtAt).filter((date) => date !== undefined);
  return {
    networks,
    version: `${stated.length > 0 ? stated.join(', ') : `sha256 ${digest.digest('hex').slice(0, 12)}`}, ${networks.length} networks`,
    ...(dates.length > 0 ? { builtAt: dates.sort().at(-1) as string } : {}),
    coverage,
    dropped: parsed.flatMap((file, index) => file.dropped.map((entry) => `${files[index]?.label} ${entry}: dropped`)),
  };
}

/**
 * The distinct networks of a list (in their order) and what they cover, held to the list's bounds.
 *
 * @param labels names the list's files in errors.
 * @throws SourceError naming `labels` when there is no network (a list that lost its entries would
 *   clear its flag everywhere), or the networks cover more than `ceiling` in either family.
 */
export function boundedList(all: readonly Network[], ceiling: Ceiling, labels: string): { networks: Network[]; coverage: Coverage } {
  const seen = new Set<string>();
  const networks = all.filter((network) => {
    const key = `${Buffer.from(network.bytes).toString('hex')}/${network.prefixLength}`;
    return !seen.has(key) && Boolean(seen.add(key));
  });
  if (networks.length === 0) throw new SourceError(`${labels}: no network (a list that lost its entries would clear its flag everywhere)`);
  const coverage = coverageOf(networks);
  const most = sizeOf(ceiling);
  for (const family of ['ipv4', 'ipv6'] as const) {
    if (coverage[family] <= most[family]) continue;
    const unit = family === 'ipv4' ? 'IPv4 addresses' : 'IPv6 /64s';
    throw new SourceError(
      `${labels}: covers ${describeCoverage(coverage)}, over the list's ceiling of ${asPrefix(most[family], family === 'ipv4' ? 4 : 6)} of ${unit} (${ceiling.why})`,
    );
  }
  return { networks, coverage };
}

/** The build log's note on a list: `tor-exits: 1203 networks, covering … ; its ceiling is a /16's worth and a /48's worth`. */
export function coverageNote(name: string, networks: number, coverage: Coverage, ceiling: Ceiling): string {
  const most = sizeOf(ceiling);
  return `${name}: ${networks} networks, covering ${describeCoverage(coverage)}; its ceiling is ${asPrefix(most.ipv4, 4)} and ${asPrefix(most.ipv6, 6)}`;
}

/**
 * The list `id` read from its files, as a flag source: every network of it with the list's flag (and
 * hosting provider). Its build date is the publisher's when its files state one, else the newest file's
 * modification time (when `data:update` fetched it; a list fetched again the same keeps its file).
 *
 * @throws SourceError when a file is missing or empty, or as {@link parseFlagList}.
 */
export function flagList(id: FlagListId, paths: readonly string[]): FlagSource {
  const list: FlagList = FLAG_LISTS[id];
  const read = paths.map((path) => ({ path, ...readSourceFile(path, `--flag-list ${id}=${path}`) }));
  const parsed = parseFlagList(
    id,
    read.map(({ path, content }) => ({ name: basename(path), content, label: `${id} ${basename(path)} (${path})` })),
  );
  const fetchedAt = new Date(Math.max(...paths.map((path) => statSync(path).mtimeMs))).toISOString();
  const flags: NetworkFlags = { flags: [list.flag], ...(list.hostingProvider ? { hostingProvider: list.hostingProvider } : {}) };
  const files: SourceFile[] = read.map(({ file }) => file);
  return {
    info: {
      name: id,
      provides: 'proxy',
      origin: 'file',
      version: parsed.version,
      builtAt: parsed.builtAt ?? fetchedAt,
      licence: list.licence,
      attribution: list.attribution,
      files,
    },
    sets: [list.flag],
    notes: [coverageNote(id, parsed.networks.length, parsed.coverage, list.ceiling), ...parsed.dropped],
    forEach(visit) {
      for (const network of parsed.networks) visit(network, flags);
    },
  };
}
