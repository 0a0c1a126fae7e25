/**
 * @module `data:diff` and its thresholds on small builds of synthetic GeoLite2-City releases
 * (`test/support/synthetic-release.ts`, with MaxMind's ASN test database): a release that changes as
 * much as real ones do passes; a poisoned flag list, a wide correction and a change confined to the
 * prefixes that the fixed sample misses are stopped. The expected changes are counted from the releases'
 * own model of which network changed how, over every address and over the same fixed sample, never from
 * the diff's output.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../data/build.ts';
import { buildOnDisk } from '../../data/diff/builds.ts';
import { DIFF_FIELDS, type DiffField } from '../../data/diff/facts.ts';
import { OVER_THRESHOLDS } from '../../data/diff/gate.ts';
import { type DiffReport, diffBuilds, diffTable } from '../../data/diff/report.ts';
import { addressSample } from '../../data/diff/sample.ts';
import { THRESHOLDS } from '../../data/diff/thresholds.ts';
import { FIXTURES } from '../support/fixtures.ts';
import { NETWORKS, placeOf, REAL_LOOKING, type ReleaseChanges, writeRelease } from '../support/synthetic-release.ts';

const ROOT = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'ipgeo-diff-'));
const ASN = `${FIXTURES}/test-data/GeoLite2-ASN-Test.mmdb`;

/** Builds a release (and its options) into its own folder; the folder. */
function buildRelease(name: string, changes: ReleaseChanges | undefined, extra: Partial<Parameters<typeof build>[0]> = {}): string {
  const city = join(work, `${name}.mmdb`);
  writeRelease(city, changes, changes === undefined ? 15 : 18);
  const out = join(work, name);
  build({ maxmindCity: city, maxmindAsn: ASN, proxyLists: [], ...extra }, () => {}, out);
  return out;
}

/** A file in the work folder. */
function file(name: string, content: string): string {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
}

const diff = (from: string, to: string): DiffReport => diffBuilds(buildOnDisk(from), buildOnDisk(to));
const breached = (report: DiffReport) => report.breaches.map((b) => `${b.field} ${b.family}`);

let base = '';
let next = '';
beforeAll(() => {
  base = buildRelease('base', undefined);
  next = buildRelease('next', REAL_LOOKING);
});

/** The changes of each field that the model of the releases makes at the networks of `indices` (one a time it is given), each `size` addresses. */
function expectedChanges(indices: Iterable<number>, changes: ReleaseChanges, size = 1): Record<DiffField, number> {
  const counts = Object.fromEntries(DIFF_FIELDS.map((field) => [field, 0])) as Record<DiffField, number>;
  for (const index of indices) {
    const was = placeOf(index);
    const is = placeOf(index, changes);
    if (was.city.country !== is.city.country) counts.countryCode++;
    if (was.city.country !== is.city.country || was.city.region !== is.city.region) counts.regionCode++;
    if (was.city !== is.city) counts.cityName++;
    // Another region is over 300 km away; the other city of a region 20 km.
    if (was.city.region !== is.city.region || was.city.country !== is.city.country) counts.coordinates++;
    if (was.radius !== is.radius) counts.accuracyRadius++;
  }
  for (const field of DIFF_FIELDS) counts[field] *= size;
  return counts;
}

/** The world's network (`synthetic-release.ts`) of each of the sample's IPv4 addresses in 1.0.0.0/8. */
const sampledIpv4Networks = () => [...addressSample().ipv4].filter((address) => address >>> 24 === 1).map((address) => (address >>> 12) & (NETWORKS - 1));

describe('data:diff of two releases', () => {
  it('finds nothing between a build and itself', () => {
    const report = diff(base, base);
    expect(report.breaches).toEqual([]);
    for (const family of ['ipv4', 'ipv6'] as const) {
      expect(Object.values(report.sections[0]?.sample[family].changed ?? {})).toEqual(DIFF_FIELDS.map(() => 0));
      expect(Object.values(report.sections[0]?.exact[family].changed ?? {})).toEqual(DIFF_FIELDS.map(() => 0));
    }
    expect(report.sections[0]?.largest).toEqual({ ipv4: [], ipv6: [] });
  });

  it('counts exactly the addresses and the sampled addresses of the networks that changed, field by field, and lets a real-looking release through', () => {
    const report = diff(base, next);
    const section = report.sections[0];
    const world = [...Array(NETWORKS).keys()];
    // Every address of a changed /20 (4,096) and every /64 of a changed /24 (2^40) changed.
    expect(section?.exact.ipv4.changed).toEqual(expectedChanges(world, REAL_LOOKING, 4096));
    expect(section?.exact.ipv6.changed).toEqual(expectedChanges(world, REAL_LOOKING, 2 ** 40));
    expect(section?.sample.ipv4.changed).toEqual(expectedChanges(sampledIpv4Networks(), REAL_LOOKING));
    expect(section?.sample.ipv4.changed.countryCode).toBeGreaterThan(0);
    expect(report.breaches).toEqual([]);
    // The networks that changed most are /20s of the model that changed; none appeared or disappeared.
    const changed = section?.largest.ipv4 ?? [];
    expect(changed.length).toBeGreaterThan(0);
    for (const network of changed) {
      const index = (Number(network.network.split('.')[1]) << 4) | (Number(network.network.split('.')[2]) >> 4);
      expect(network.network).toMatch(/^1\.\d+\.\d+\.0\/20$/);
      expect(network.size).toBe(4096);
      expect(placeOf(index, REAL_LOOKING)).not.toEqual(placeOf(index));
    }
    expect(section?.networks.ipv4).toEqual({ appeared: 0, appearedSize: 0, disappeared: 0, disappearedSize: 0 });
    expect(diffTable(report)).toContain('**Within every threshold.**');
  });

  it('finds the same answers in a build of three shards as in one file', () => {
    const sharded = join(work, 'sharded');
    build({ maxmindCity: join(work, 'next.mmdb'), maxmindAsn: ASN, proxyLists: [], shards: 3 }, () => {}, sharded);
    const report = diff(next, sharded);
    for (const family of ['ipv4', 'ipv6'] as const) {
      expect(Object.values(report.sections[0]?.sample[family].changed ?? {})).toEqual(DIFF_FIELDS.map(() => 0));
      expect(Object.values(report.sections[0]?.exact[family].changed ?? {})).toEqual(DIFF_FIELDS.map(() => 0));
    }
    expect(report.sections[0]?.exact).toEqual(diff(next, next).sections[0]?.exact);
    expect(report.sections[0]?.networks.ipv4.appeared).toBe(0);
  });
});

describe('the diff gate', () => {
  it('stops a poisoned flag list that its own bounds let through: a whole /8 flagged as hosting', () => {
    const list = file('datacenter.txt', '1.0.0.0/8\n');
    const poisoned = buildRelease('poisoned', undefined, { flagLists: [{ id: 'x4bnet-datacenter', paths: [list] }] });
    const report = diff(base, poisoned);
    expect(breached(report)).toEqual(['isHosting ipv4']);
    expect(report.breaches[0]?.threshold).toBe(THRESHOLDS.database.isHosting.share);
    const table = diffTable(report);
    expect(table).toMatch(/^\*\*Over a threshold:\*\* isHosting of [\d.]+% of IPv4 addresses \(threshold 2%\)\.$/m);
    expect(table).toContain(`- isHosting: ${THRESHOLDS.database.isHosting.basis}`);
  });

  it('stops a wide correction that the operator allowed', () => {
    const corrections = file('wide.csv', '0.0.0.0/7,KP\n');
    const wide = buildRelease('wide', undefined, { corrections: [{ path: corrections }], allowWideCorrections: true });
    expect(breached(diff(base, wide))).toEqual(['countryCode ipv4']);
  });

  it('stops a change confined to the prefixes that the fixed sample misses, and shows its city names as text', () => {
    // The sample's seed is public: anyone can find the /20s that hold none of its addresses. Those of
    // 1.0.0.0/8 (the world) to 4.0.0.0/8 move to KP: some 7% of the space the builds answer.
    const sampled = new Set<number>();
    for (const address of addressSample().ipv4) if (address >>> 24 >= 1 && address >>> 24 <= 4) sampled.add(address >>> 12);
    const unsampled = [...Array(4 << 12).keys()].map((i) => (1 << 12) + i).filter((slash20) => !sampled.has(slash20));
    expect(unsampled.length).toBeGreaterThan(4 * 1000);
    const city = 'x | **Within every threshold.** [click](https://evil.example) <img src=x>';
    const lines = unsampled.map((slash20) => `${slash20 >>> 12}.${(slash20 >>> 4) & 255}.${(slash20 & 15) << 4}.0/20,KP,,${city}`);
    const moved = buildRelease('unsampled', undefined, { corrections: [{ path: file('unsampled.csv', `${lines.join('\n')}\n`) }] });
    const report = diff(base, moved);
    const section = report.sections[0];
    expect(section?.sample.ipv4.changed.countryCode).toBe(0);
    expect(section?.exact.ipv4.changed.countryCode).toBe(unsampled.length * 4096);
    expect(breached(report)).toEqual(['countryCode ipv4']);
    const table = diffTable(report);
    expect(table).toMatch(/^\*\*Over a threshold:\*\* countryCode of [\d.]+% of IPv4 addresses \(threshold 2%\)/m);
    // The city shows in the largest changed networks, as text: one cell, no link, no image, no emphasis.
    const row = table.split('\n').find((line) => line.startsWith(`| 1.`) && line.includes('KP')) ?? '';
    const cells = row.split(/(?<!\\)\|/).slice(1, -1);
    expect(cells).toHaveLength(5);
    const after = fromMarkdown((cells[4] as string).trim()).children;
    expect(after.map((node) => node.type)).toEqual(['paragraph']);
    expect((after[0] as { children: { type: string; value?: string }[] }).children).toEqual([
      expect.objectContaining({ type: 'text', value: expect.stringContaining(city) }),
    ]);
  });

  it('exits 4 from npm run data:diff over a threshold, with its JSON and its table in the summary', async () => {
    const json = join(work, 'report.json');
    const summary = join(work, 'summary.md');
    const status = await new Promise<number | null>((resolve) => {
      execFile('npx', ['tsx', 'data/diff/cli.ts', base, join(work, 'poisoned'), '--json', json, '--summary', summary], { cwd: ROOT }, (error) =>
        resolve(error ? (typeof error.code === 'number' ? error.code : null) : 0),
      );
    });
    expect(status).toBe(OVER_THRESHOLDS);
    expect((JSON.parse(readFileSync(json, 'utf8')) as DiffReport).breaches.map((b) => b.field)).toEqual(['isHosting']);
    expect(readFileSync(summary, 'utf8')).toMatch(/^### data:diff: .*base .* → .*poisoned .*\n\n\*\*Over a threshold:\*\* isHosting/);
  }, 60_000);
});
