/**
 * @module A local imitation of the publishers of the flag lists (`data/update/flag-lists.ts`): each
 * list's files in its publisher's real format (AWS's and Google's JSON envelopes, Azure's Download
 * Center page linking to its weekly file, geofeed CSV, plain lists), made here from the prefixes of
 * {@link SAMPLES}, which are what the tests expect back. The edges of a prefix (its first and last
 * address, and the neighbours outside it) are computed with ipaddr.js, not the service's parser.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { FlagListId } from '../../data/sources/flag-lists/lists.ts';
import type { NetworkFlag } from '../../data/sources/source.ts';
import { PUBLISHED_LISTS } from '../../data/update/flag-lists.ts';

/** A list as the tests publish it: its prefixes, and what the build must make of them. */
export interface Sample {
  readonly flag: NetworkFlag;
  readonly hostingProvider?: string;
  /** The prefixes the list holds (an address alone is a /32 or /128), each once. */
  readonly prefixes: readonly string[];
  /** Prefixes in the files that the list does not hold (Azure's other service tags). */
  readonly ignored?: readonly string[];
  /** The version the publisher states in its files, when it states one. */
  readonly stated?: string;
  /** The date the publisher states, RFC 3339. */
  readonly builtAt?: string;
  /** The files, by name, in the publisher's format. */
  readonly files: Readonly<Record<string, string>>;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const geofeed = (rows: readonly string[]) => rows.map((row) => `${row}\n`).join('');

const RELAY = ['172.224.226.0/27', '2a02:26f7:b3c0:4000::/64'];
const AWS = { v4: '3.5.140.0/22', v6: '2600:1f14:fff:f800::/53' };
const GOOGLE = { v4: '34.1.208.0/20', v6: '2600:1900:8000::/44' };
const AZURE = { cloud: ['4.144.0.0/17', '2603:1000::/25'], storage: '20.150.0.0/24' };
const ORACLE = ['129.146.0.0/21', '134.70.8.0/21'];
const DIGITALOCEAN = ['5.101.96.0/21', '2a03:b0c0::/48'];
const CLOUDFLARE = { v4: ['173.245.48.0/20', '103.21.244.0/22'], v6: ['2400:cb00::/32'] };
const FASTLY = { v4: ['23.235.32.0/20'], v6: ['2a04:4e40::/32'] };

/** The name of Azure's weekly file, as its Download Center page links it. */
const AZURE_FILE = 'ServiceTags_Public_20261116.json';

/** Every list's sample. */
export const SAMPLES: Record<FlagListId, Sample> = {
  'tor-exits': { flag: 'tor', prefixes: ['185.220.101.1', '185.220.101.34'], files: { torbulkexitlist: '185.220.101.1\n185.220.101.34\n' } },
  'x4bnet-vpn': {
    flag: 'vpn',
    prefixes: ['198.51.100.0/24', '2001:db8:100::/48'],
    files: { 'ipv4.txt': '198.51.100.0/24\n', 'ipv6.txt': '2001:db8:100::/48\n' },
  },
  'x4bnet-datacenter': {
    flag: 'hosting',
    prefixes: ['203.0.113.0/25', '2001:db8:200::/40'],
    files: { 'ipv4.txt': '203.0.113.0/25\n', 'ipv6.txt': '2001:db8:200::/40\n' },
  },
  'icloud-private-relay': {
    flag: 'relay',
    prefixes: RELAY,
    files: { 'egress-ip-ranges.csv': geofeed(RELAY.map((prefix) => `${prefix},GB,GB-EN,London,`)) },
  },
  aws: {
    flag: 'hosting',
    hostingProvider: 'Amazon Web Services',
    prefixes: [AWS.v4, AWS.v6],
    stated: 'syncToken 1763420000',
    builtAt: '2026-11-17T23:29:02.000Z',
    files: {
      'ip-ranges.json': json({
        syncToken: '1763420000',
        createDate: '2026-11-17-23-29-02',
        // A prefix listed under two services, as AWS lists its EC2 ranges under AMAZON too.
        prefixes: [
          { ip_prefix: AWS.v4, region: 'ap-northeast-2', service: 'AMAZON', network_border_group: 'ap-northeast-2' },
          { ip_prefix: AWS.v4, region: 'ap-northeast-2', service: 'EC2', network_border_group: 'ap-northeast-2' },
        ],
        ipv6_prefixes: [{ ipv6_prefix: AWS.v6, region: 'us-west-2', service: 'AMAZON', network_border_group: 'us-west-2' }],
      }),
    },
  },
  'google-cloud': {
    flag: 'hosting',
    hostingProvider: 'Google Cloud',
    prefixes: [GOOGLE.v4, GOOGLE.v6],
    stated: 'syncToken 1763424000123',
    builtAt: '2026-11-17T10:01:02.123Z',
    files: {
      'cloud.json': json({
        syncToken: '1763424000123',
        creationTime: '2026-11-17T10:01:02.123456',
        prefixes: [
          { ipv4Prefix: GOOGLE.v4, service: 'Google Cloud', scope: 'africa-south1' },
          { ipv6Prefix: GOOGLE.v6, service: 'Google Cloud', scope: 'us-central1' },
        ],
      }),
    },
  },
  azure: {
    flag: 'hosting',
    hostingProvider: 'Microsoft Azure',
    prefixes: AZURE.cloud,
    ignored: [AZURE.storage],
    stated: 'Public changeNumber 388',
    builtAt: '2026-11-16T00:00:00.000Z',
    files: {
      [AZURE_FILE]: json({
        changeNumber: 388,
        cloud: 'Public',
        values: [
          {
            name: 'Storage',
            id: 'Storage',
            properties: { changeNumber: 12, region: '', regionId: 0, platform: 'Azure', systemService: 'AzureStorage', addressPrefixes: [AZURE.storage] },
          },
          {
            name: 'AzureCloud',
            id: 'AzureCloud',
            properties: {
              changeNumber: 301,
              region: '',
              regionId: 0,
              platform: 'Azure',
              systemService: '',
              addressPrefixes: AZURE.cloud,
              networkFeatures: ['API', 'NSG'],
            },
          },
        ],
      }),
    },
  },
  'oracle-cloud': {
    flag: 'hosting',
    hostingProvider: 'Oracle Cloud Infrastructure',
    prefixes: ORACLE,
    stated: '2026-11-18T19:55:47.204985',
    builtAt: '2026-11-18T19:55:47.204Z',
    files: {
      'public_ip_ranges.json': json({
        last_updated_timestamp: '2026-11-18T19:55:47.204985',
        regions: [
          {
            region: 'us-phoenix-1',
            cidrs: [
              { cidr: ORACLE[0], tags: ['OCI'] },
              { cidr: ORACLE[1], tags: ['OSN', 'OBJECT_STORAGE'] },
            ],
          },
        ],
      }),
    },
  },
  digitalocean: {
    flag: 'hosting',
    hostingProvider: 'DigitalOcean',
    prefixes: DIGITALOCEAN,
    files: { 'google.csv': geofeed([`${DIGITALOCEAN[0]},NL,NL-NH,Amsterdam,1098 XH`, `${DIGITALOCEAN[1]},NL,NL-NH,Amsterdam,`]) },
  },
  cloudflare: {
    flag: 'hosting',
    hostingProvider: 'Cloudflare',
    prefixes: [...CLOUDFLARE.v4, ...CLOUDFLARE.v6],
    // As Cloudflare serves them: no newline after the last line.
    files: { 'ips-v4': CLOUDFLARE.v4.join('\n'), 'ips-v6': CLOUDFLARE.v6.join('\n') },
  },
  fastly: {
    flag: 'hosting',
    hostingProvider: 'Fastly',
    prefixes: [...FASTLY.v4, ...FASTLY.v6],
    files: { 'public-ip-list.json': JSON.stringify({ addresses: FASTLY.v4, ipv6_addresses: FASTLY.v6 }) },
  },
};

/** How the imitation answers a path. */
export type Answer = { kind: 'serve'; body: string | Buffer } | { kind: 'status'; status: number } | { kind: 'stall' };

/** The publishers on one local server: `/{list id}/{file name}`, and Azure's page at `/azure/details.aspx`. */
export class PublisherImitation {
  readonly answers = new Map<string, Answer>();
  /** Requests per path. */
  readonly requests = new Map<string, number>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
      const answer = this.answers.get(path);
      if (!answer) return void response.writeHead(404).end();
      if (answer.kind === 'stall') return; // never answers
      if (answer.kind === 'status') return void response.writeHead(answer.status).end('publisher failure');
      return void response.end(answer.body);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.publishAll();
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** The path of a list's file (Azure's weekly file is linked from its page, at its own path). */
  pathOf(id: FlagListId, name: string): string {
    return `/${id}/${name}`;
  }

  /** Serves every sample, the Azure page linking to the weekly file, as the publishers do. */
  publishAll(): void {
    for (const [id, sample] of Object.entries(SAMPLES) as [FlagListId, Sample][]) {
      for (const [name, body] of Object.entries(sample.files)) this.answers.set(this.pathOf(id, name), { kind: 'serve', body });
    }
    const link = `${this.url}${this.pathOf('azure', AZURE_FILE)}`;
    const older = `${this.url}${this.pathOf('azure', 'ServiceTags_Public_20261109.json')}`;
    this.answers.set('/azure/details.aspx', {
      kind: 'serve',
      body: `<html><body><h1>Azure IP Ranges and Service Tags – Public Cloud</h1><a href="${older}">last week</a> <a href="${link}" class="mscom-link">Download</a></body></html>`,
    });
  }

  /**
   * The variables of `data/update/flag-lists.ts` pointing every file of every list at this server (Azure's
   * at its weekly file: its page's links must be on download.microsoft.com), so that nothing is fetched
   * from the internet.
   */
  environment(): Record<string, string> {
    const variables: Record<string, string> = {};
    for (const list of PUBLISHED_LISTS) {
      for (const file of list.files) variables[file.variable] = `${this.url}${this.pathOf(list.id, file.name ?? AZURE_FILE)}`;
    }
    return variables;
  }
}

/** The first and last address of a prefix, and the addresses just outside it, as text. */
export function edgesOf(prefix: string): { first: string; last: string; before: string; after: string } {
  const [address, length] = prefix.includes('/') ? ipaddr.parseCIDR(prefix) : [ipaddr.parse(prefix), prefix.includes(':') ? 128 : 32];
  const bits = address.kind() === 'ipv4' ? 32 : 128;
  const value = address.toByteArray().reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
  const size = 1n << BigInt(bits - length);
  const first = value & ~(size - 1n);
  const text = (n: bigint) => {
    const bytes = Array.from({ length: bits / 8 }, (_, i) => Number((n >> BigInt(bits - 8 * (i + 1))) & 0xffn));
    return ipaddr.fromByteArray(bytes).toString();
  };
  return { first: text(first), last: text(first + size - 1n), before: text(first - 1n), after: text(first + size) };
}
