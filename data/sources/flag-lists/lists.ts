/**
 * @module The published lists of networks that set the privacy and hosting flags (docs/operations.md,
 * "Flag lists"): each list's flag, hosting provider, format, licence and attribution, and the reader
 * that turns its files into a {@link FlagSource}. `data:update --flag-lists` fetches them; the build
 * reads them from the files it is given (`--flag-list ID=FILE`).
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Network } from '../../mmdb/search-tree.ts';
import { type FlagSource, type NetworkFlag, type NetworkFlags, readSourceFile, type SourceFile } from '../source.ts';
import { addressLines } from './address-lines.ts';
import { awsIpRanges } from './aws-ip-ranges.ts';
import { azureServiceTags } from './azure-service-tags.ts';
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
}

const X4BNET_MIT = 'MIT licence, Copyright (c) 2024 X4B (Mathew Heard)';
const NO_LICENCE = 'none stated; published by its operator for anyone to use in network configuration';

/** Every list, by its id (the source's name in the manifest and the status). */
const FLAG_LISTS = {
  'tor-exits': {
    flag: 'tor',
    read: addressLines,
    licence: 'public data of the Tor Project',
    attribution: 'Tor exit relays from the Tor Project’s bulk exit list (https://check.torproject.org/torbulkexitlist).',
  },
  'x4bnet-vpn': {
    flag: 'vpn',
    read: addressLines,
    licence: X4BNET_MIT,
    attribution: `VPN networks from X4BNet/lists_vpn (https://github.com/X4BNet/lists_vpn), ${X4BNET_MIT}.`,
  },
  'x4bnet-datacenter': {
    flag: 'hosting',
    read: addressLines,
    licence: X4BNET_MIT,
    attribution: `Data-centre and VPN networks from X4BNet/lists_vpn (https://github.com/X4BNet/lists_vpn), ${X4BNET_MIT}.`,
  },
  'icloud-private-relay': {
    flag: 'relay',
    read: geofeedPrefixes,
    licence: 'none stated; published by Apple for network operators to recognise Private Relay traffic',
    attribution: 'iCloud Private Relay egress ranges published by Apple (https://mask-api.icloud.com/egress-ip-ranges.csv).',
  },
  aws: {
    flag: 'hosting',
    hostingProvider: 'Amazon Web Services',
    read: awsIpRanges,
    licence: NO_LICENCE,
    attribution: 'AWS IP address ranges (https://ip-ranges.amazonaws.com/ip-ranges.json).',
  },
  'google-cloud': {
    flag: 'hosting',
    hostingProvider: 'Google Cloud',
    read: googleCloud,
    licence: NO_LICENCE,
    attribution: 'Google Cloud’s external IP ranges (https://www.gstatic.com/ipranges/cloud.json).',
  },
  azure: {
    flag: 'hosting',
    hostingProvider: 'Microsoft Azure',
    read: azureServiceTags,
    licence: 'Microsoft Download Center terms of use',
    attribution: 'Azure IP Ranges and Service Tags – Public Cloud, by Microsoft (https://www.microsoft.com/en-us/download/details.aspx?id=56519).',
  },
  'oracle-cloud': {
    flag: 'hosting',
    hostingProvider: 'Oracle Cloud Infrastructure',
    read: oracleCloud,
    licence: NO_LICENCE,
    attribution: 'Oracle Cloud Infrastructure public IP ranges (https://docs.oracle.com/iaas/tools/public_ip_ranges.json).',
  },
  digitalocean: {
    flag: 'hosting',
    hostingProvider: 'DigitalOcean',
    read: geofeedPrefixes,
    licence: NO_LICENCE,
    attribution: 'DigitalOcean’s IP ranges (https://www.digitalocean.com/geo/google.csv).',
  },
  cloudflare: {
    flag: 'hosting',
    hostingProvider: 'Cloudflare',
    read: addressLines,
    licence: NO_LICENCE,
    attribution: 'Cloudflare’s IP ranges (https://www.cloudflare.com/ips/).',
  },
  fastly: {
    flag: 'hosting',
    hostingProvider: 'Fastly',
    read: fastlyIpList,
    licence: NO_LICENCE,
    attribution: 'Fastly’s public IP list (https://api.fastly.com/public-ip-list).',
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
}

/**
 * Reads a list's files (both of Cloudflare's, say) in the list's format.
 *
 * @throws SourceError naming the file and the line or JSON path of the first entry that is not a network.
 */
export function parseFlagList(id: FlagListId, files: readonly FlagListFile[]): ParsedFlagList {
  const list: FlagList = FLAG_LISTS[id];
  const parsed = files.map((file) => list.read(file.content, file.label, file.name));
  const seen = new Set<string>();
  const networks = parsed
    .flatMap((file) => file.networks)
    .filter((network) => {
      const key = `${Buffer.from(network.bytes).toString('hex')}/${network.prefixLength}`;
      return !seen.has(key) && Boolean(seen.add(key));
    });
  const stated = parsed.map((file) => file.version).filter((version) => version !== undefined);
  const digest = createHash('sha256');
  for (const file of files) digest.update(file.content);
  const dates = parsed.map((file) => file.builtAt).filter((date) => date !== undefined);
  return {
    networks,
    version: `${stated.length > 0 ? stated.join(', ') : `sha256 ${digest.digest('hex').slice(0, 12)}`}, ${networks.length} networks`,
    ...(dates.length > 0 ? { builtAt: dates.sort().at(-1) as string } : {}),
  };
}

/**
 * The list `id` read from its files, as a flag source: every network of it with the list's flag (and
 * hosting provider). Its build date is the publisher's when its files state one, else the newest file's
 * modification time (when `data:update` fetched it; a list fetched again the same keeps its file).
 *
 * @throws SourceError when a file is missing, empty or holds an entry that is not a network.
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
    forEach(visit) {
      for (const network of parsed.networks) visit(network, flags);
    },
  };
}
