/**
 * @module `data:diff` and its thresholds on small builds of synthetic GeoLite2-City releases
 * (`test/support/synthetic-release.ts`, with MaxMind's ASN test database): a release that changes as
 * much as real ones do passes; a poisoned flag list and a wide correction are stopped. The expected
 * changes are counted from the releases' own model of which network changed how, over the same fixed
 * sample of addresses, never from the diff's output.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** The changes of each field that the model of the releases makes on the sample's IPv4 addresses in 1.0.0.0/8. */
function expectedIpv4Changes(changes: ReleaseChanges): Record<DiffField, number> {
  const counts = Object.fromEntries(DIFF_FIELDS.map((field) => [field, 0])) as Record<DiffField, number>;
  for (const address of addressSample().ipv4) {
    if (address >>> 24 !== 1) continue;
    const index = (address >>> 12) & (NETWORKS - 1);
    const was = placeOf(index);
    const is = placeOf(index, changes);
    if (was.city.country !== is.city.country) counts.countryCode++;
    if (was.city.country !== is.city.country || was.city.region !== is.city.region) counts.regionCode++;
    if (was.city !== is.city) counts.cityName++;
    // Another region is over 300 km away; the other city of a region 20 km.
    if (was.city.region !== is.city.region || was.city.country !== is.city.country) counts.coordinates++;
    if (was.radius !== is.radius) counts.accuracyRadius++;
  }
  return counts;
}

describe('data:diff of two releases', () => {
  it('finds nothing between a build and itself', () => {
    const report = diff(base, base);
    expect(report.breaches).toEqual([]);
    for (const family of ['ipv4', 'ipv6'] as const) expect(Object.values(report.sections[0]?.sample[family].changed ?? {})).toEqual(DIFF_FIELDS.map(() => 0));
    expect(report.sections[0]?.largest).toEqual({ ipv4: [], ipv6: [] });
  });

  it('counts exactly the sampled addresses of the networks that changed, field by field, and lets a real-looking release through', () => {
    const report = diff(base, next);
    const section = report.sections[0];
    expect(section?.sample.ipv4.changed).toEqual(expectedIpv4Changes(REAL_LOOKING));
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
    for (const family of ['ipv4', 'ipv6'] as const) expect(Object.values(report.sections[0]?.sample[family].changed ?? {})).toEqual(DIFF_FIELDS.map(() => 0));
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
