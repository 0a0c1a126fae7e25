/**
 * @module `data:diff`'s ASN object section and the diff gate's hold on it, on small builds of a synthetic
 * routing source (`test/support/synthetic-routing.ts`) and a synthetic GeoLite2-City release: a routing
 * change as large as a refresh brings passes; holders renamed, networks moved to other ASNs and one ASN
 * taking a /8 are stopped; a build whose ASN object is another build's is stopped, whatever
 * `--accept-diff` says; a version without an ASN object is reported and passes. Expected figures are counted from the routing model over the same fixed sample of
 * addresses, never from the diff's output.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { build } from '../../data/build.ts';
import { buildOnDisk, DiffError, type ReadableBucket } from '../../data/diff/builds.ts';
import { cellText } from '../../data/diff/format.ts';
import { diffGate, OVER_THRESHOLDS } from '../../data/diff/gate.ts';
import { type DiffReport, diffBuilds, diffTable } from '../../data/diff/report.ts';
import { addressSample } from '../../data/diff/sample.ts';
import { THRESHOLDS } from '../../data/diff/thresholds.ts';
import { readBuildFile } from '../../data/publish/build-file.ts';
import { runCommand } from '../../data/publish/cli.ts';
import { publishTo, type VersionBucket } from '../../data/publish/record.ts';
import { asnObjectKey } from '../../src/geo/published.ts';
import { writeRelease } from '../support/synthetic-release.ts';
import { HIJACKED, holderOf, NEW_ASNS, organizationOf, REROUTED, ROUTED, type RoutingChanges, writeRouting } from '../support/synthetic-routing.ts';

const work = mkdtempSync(join(tmpdir(), 'ipgeo-asn-diff-'));
const city = join(work, 'city.mmdb');

/** Builds the synthetic city release with the routing of `changes` (none: the base) into its own folder; the folder. */
function buildRouting(name: string, changes?: RoutingChanges): string {
  const routing = join(work, `${name}-asn.mmdb`);
  writeRouting(routing, changes);
  const out = join(work, name);
  build({ maxmindCity: city, maxmindAsn: routing, proxyLists: [] }, () => {}, out);
  return out;
}

const manifestOf = (dir: string) => join(dir, 'ipgeo.manifest.json');
const diff = (from: string, to: string): DiffReport => diffBuilds(buildOnDisk(from), buildOnDisk(to));
const breached = (report: DiffReport) => report.breaches.map((b) => `${b.field} ${b.family ?? ''}`.trim());

/** A bucket in memory, as `data:publish` and the gate use one. */
function memoryBucket(name: string): VersionBucket<Buffer> & ReadableBucket & { objects: Map<string, Buffer | string> } {
  const objects = new Map<string, Buffer | string>();
  return {
    name,
    objects,
    getText: async (key) => objects.get(key)?.toString() ?? null,
    putText: async (key, text) => void objects.set(key, text),
    putObject: async (key, body) => void objects.set(key, body),
    delete: async (key) => void objects.delete(key),
    getFile: async (key, file) => {
      const body = objects.get(key);
      if (body === undefined) throw new Error(`${key} is not in ${name}`);
      writeFileSync(file, body);
    },
  };
}

/** A bucket serving the build in `dir`. */
async function serving(dir: string): Promise<ReturnType<typeof memoryBucket>> {
  const bucket = memoryBucket(`memory:${dir.split('/').at(-1)}`);
  await publishTo(bucket, readBuildFile(manifestOf(dir)), new Date(), () => {});
  return bucket;
}

/** The routed network index of a sampled address, or -1 outside the routed space. */
function indexOf(family: 'ipv4' | 'ipv6', words: readonly number[]): number {
  if (family === 'ipv4') {
    const address = words[3] as number;
    const octet = address >>> 24;
    return octet >= 1 && octet <= 64 ? ((octet - 1) << 8) | ((address >>> 16) & 255) : -1;
  }
  const w0 = words[0] as number;
  return w0 >>> 20 === 0x2a0 ? (w0 >>> 8) & 0xfff : -1;
}

/** Per family, the sampled addresses in the routed space and those whose holder the model changes. */
function expectedSample(changes: RoutingChanges) {
  const sample = addressSample();
  const counts = { ipv4: { answered: 0, changed: 0 }, ipv6: { answered: 0, changed: 0 } };
  const visit = (family: 'ipv4' | 'ipv6', words: readonly number[]) => {
    const index = indexOf(family, words);
    if (index < 0) return;
    counts[family].answered++;
    if (holderOf(family, index) !== holderOf(family, index, changes)) counts[family].changed++;
  };
  for (const address of sample.ipv4) visit('ipv4', [0, 0, 0, address]);
  for (let i = 0; i < sample.ipv6.length; i += 4) visit('ipv6', [...sample.ipv6.subarray(i, i + 4)]);
  return counts;
}

/** Per family, the sampled addresses in the routed space whose organisation (their holder's name) the model changes. */
function expectedOrganizations(changes: RoutingChanges): { ipv4: number; ipv6: number } {
  const sample = addressSample();
  const counts = { ipv4: 0, ipv6: 0 };
  const visit = (family: 'ipv4' | 'ipv6', words: readonly number[]) => {
    const index = indexOf(family, words);
    if (index < 0) return;
    if (organizationOf(holderOf(family, index)) !== organizationOf(holderOf(family, index, changes), changes)) counts[family]++;
  };
  for (const address of sample.ipv4) visit('ipv4', [0, 0, 0, address]);
  for (let i = 0; i < sample.ipv6.length; i += 4) visit('ipv6', [...sample.ipv6.subarray(i, i + 4)]);
  return counts;
}

/** The ASN gaining the most networks under `changes`, and how many addresses (IPv4) it gains. */
function expectedLargestIpv4Gain(changes: RoutingChanges): { asn: number; gained: number } {
  const gained = new Map<number, number>();
  for (let index = 0; index < ROUTED.ipv4; index++) {
    const is = holderOf('ipv4', index, changes);
    if (is !== holderOf('ipv4', index)) gained.set(is, (gained.get(is) ?? 0) + 65_536);
  }
  const [asn, most] = [...gained].sort(([a, x], [b, y]) => y - x || a - b)[0] as [number, number];
  return { asn, gained: most };
}

/** The ASNs holding a network of either family in the base, or with `changes`. */
function asnsOf(changes?: RoutingChanges): Set<number> {
  const asns = new Set<number>();
  for (const family of ['ipv4', 'ipv6'] as const) for (let index = 0; index < ROUTED[family]; index++) asns.add(holderOf(family, index, changes));
  return asns;
}

let routed = '';
let rerouted = '';
/** The rerouted build with the routed build's ASN object: its database and its object disagree. */
let mixed = '';
/** The routed build as a version published before builds had an ASN object. */
let old = '';
beforeAll(() => {
  writeRelease(city, undefined, 15);
  routed = buildRouting('routed');
  rerouted = buildRouting('rerouted', REROUTED);
  mixed = join(work, 'mixed');
  cpSync(rerouted, mixed, { recursive: true });
  cpSync(join(routed, 'ipgeo.asn'), join(mixed, 'ipgeo.asn'));
  const manifest = JSON.parse(readFileSync(manifestOf(mixed), 'utf8'));
  manifest.asn = JSON.parse(readFileSync(manifestOf(routed), 'utf8')).asn;
  writeFileSync(manifestOf(mixed), JSON.stringify(manifest));
  old = join(work, 'old');
  cpSync(routed, old, { recursive: true });
  rmSync(join(old, 'ipgeo.asn'));
  const { asn: _, ...withoutAsn } = JSON.parse(readFileSync(manifestOf(old), 'utf8'));
  writeFileSync(manifestOf(old), JSON.stringify(withoutAsn));
}, 120_000);

describe("data:diff's ASN object section", () => {
  it('lets a routing change as large as a refresh brings through, counting what the routing model changed', async () => {
    const report = diff(routed, rerouted);
    const [database, asn] = report.sections;
    const expected = expectedSample(REROUTED);
    expect(expected.ipv4.changed).toBeGreaterThan(0);
    expect(expected.ipv6.changed).toBeGreaterThan(0);
    for (const family of ['ipv4', 'ipv6'] as const) {
      expect(asn.changes?.sample[family]).toMatchObject(expected[family]);
      // The database answers the same ASNs as the object: its own share of changed ASNs is the same count.
      expect(database.sample[family].changed.asn).toBe(expected[family].changed);
      expect(database.sample[family].changed.organization).toBe(expectedOrganizations(REROUTED)[family]);
    }
    const [before, after] = [asnsOf(), asnsOf(REROUTED)];
    const inBoth = [...after].filter((a) => before.has(a));
    expect(asn.changes?.asns).toMatchObject({
      appeared: NEW_ASNS.length,
      disappeared: REROUTED.disappeared.length,
      inBoth: inBoth.length,
      renamed: inBoth.filter((a) => organizationOf(a) !== organizationOf(a, REROUTED)).length,
    });
    expect(asn.changes?.largestGain.ipv4).toMatchObject(expectedLargestIpv4Gain(REROUTED));
    expect(asn.before).toMatchObject({ asns: before.size, addresses: { ipv4: ROUTED.ipv4 * 65_536, ipv6: ROUTED.ipv6 * 2 ** 40 } });
    expect(asn.after).toMatchObject({ asns: after.size, addresses: { ipv4: ROUTED.ipv4 * 65_536, ipv6: ROUTED.ipv6 * 2 ** 40 } });
    expect(asn.consistency).toEqual({ checked: expected.ipv4.answered + expected.ipv6.answered, mismatches: 0, examples: [] });
    expect(report.breaches).toEqual([]);
    expect(report.broken).toBe(false);
    const table = diffTable(report);
    expect(table).toContain('**Within every threshold.**');
    expect(table).toContain('#### ASN object');
    expect(table).toContain(`${NEW_ASNS.length} appeared, ${REROUTED.disappeared.length} disappeared`);

    // The same, with the old build the version a bucket serves: its ASN object fetched and verified.
    const verdict = await diffGate(manifestOf(rerouted), [await serving(routed)], () => {});
    expect(verdict).toMatchObject({ stopped: false, broken: false });
    expect(verdict.reports[0]?.sections[1]).toEqual(asn);
  });

  it("stops locations moved wholesale by the countries of unchanged ASNs, the routing's measures untouched", () => {
    const moved = join(work, 'moved-city.mmdb');
    // A third of the networks to another country: a location source gone wrong.
    writeRelease(moved, { country: 0.3, region: 0, city: 0, radius: 0 }, 18);
    const out = join(work, 'moved');
    build({ maxmindCity: moved, maxmindAsn: join(work, 'routed-asn.mmdb'), proxyLists: [] }, () => {}, out);
    const report = diff(routed, out);
    const changes = report.sections[1].changes;
    expect(changes?.countries.rerouted).toBe(0);
    expect(changes?.sample.ipv4.changed).toBe(0);
    expect(changes?.largestGain).toEqual({ ipv4: null, ipv6: null });
    // IPv6 is located wholly (2a00::/12), IPv4 only in 1.0.0.0/8 of the 64 /8s the ASNs hold.
    expect(report.breaches.filter((b) => b.object === 'asn').map((b) => `${b.field} ${b.family}`)).toEqual(['countries ipv6']);
    expect(breached(report)).toContain('countryCode ipv6');
  });

  it("stops a routing source that renames its ASNs' holders, which no ASN number shows: the object's renamed ASNs and the answers' organisation", () => {
    const renaming: RoutingChanges = { moved: 0, appeared: 0, disappeared: [], renamed: 0.3 };
    const report = diff(routed, buildRouting('renamed', renaming));
    const [database, asn] = report.sections;
    const asns = asnsOf();
    const renamed = [...asns].filter((a) => organizationOf(a) !== organizationOf(a, renaming));
    expect(asn.changes?.asns).toMatchObject({ appeared: 0, disappeared: 0, inBoth: asns.size, renamed: renamed.length });
    const organizations = expectedOrganizations(renaming);
    for (const family of ['ipv4', 'ipv6'] as const) {
      expect(asn.changes?.sample[family].changed).toBe(0);
      expect(database.sample[family].changed.asn).toBe(0);
      expect(database.sample[family].changed.organization).toBe(organizations[family]);
      expect(organizations[family] / database.sample[family].answered).toBeGreaterThan(THRESHOLDS.database.organization.share);
    }
    expect(renamed.length / asns.size).toBeGreaterThan(THRESHOLDS.asn.renamed.share);
    expect(breached(report)).toEqual(['organization ipv4', 'organization ipv6', 'renamed']);
    expect(report.breaches.at(-1)?.value).toBe(renamed.length / asns.size);
    const table = diffTable(report);
    const listed = [...table.matchAll(/AS(\d+) "([^"]+)" → "([^"]+)"/g)].map(([, asn, was, is]) => [Number(asn), was, is]);
    expect(listed.length).toBeGreaterThan(0);
    for (const [asn, was, is] of listed) expect([was, is]).toEqual([organizationOf(asn as number), organizationOf(asn as number, renaming)]);
    expect(renamed).toEqual(expect.arrayContaining(listed.map(([asn]) => asn)));
    expect(table).toContain(`- organization: ${THRESHOLDS.database.organization.basis}`);
    expect(table).toContain(`- renamed: ${THRESHOLDS.asn.renamed.basis}`);
    // The largest changed networks show the names that changed, the ASN the same.
    const [changed] = database.largest.ipv4;
    expect(changed?.fields).toEqual(['organization']);
    expect(changed?.after).toMatch(/ AS\d+ "Synthetic Networks \d+ \(renamed\)"/);
  });

  it('stops a routing source that moves a fifth of the networks to another ASN, by the sampled shares of both objects', () => {
    const moving: RoutingChanges = { moved: 0.2, appeared: 0, disappeared: [], renamed: 0 };
    const report = diff(routed, buildRouting('moved-asns', moving));
    const [database, asn] = report.sections;
    const expected = expectedSample(moving);
    for (const family of ['ipv4', 'ipv6'] as const) {
      expect(asn.changes?.sample[family]).toMatchObject(expected[family]);
      expect(database.sample[family].changed.asn).toBe(expected[family].changed);
      // Each holder's name is its number's: a moved network changes organisation too.
      expect(database.sample[family].changed.organization).toBe(expected[family].changed);
      expect(expected[family].changed / expected[family].answered).toBeGreaterThan(THRESHOLDS.asn.sampledAsn.share);
    }
    expect(asn.changes?.asns).toMatchObject({ appeared: 0, disappeared: 0, renamed: 0 });
    expect(breached(report)).toEqual(['asn ipv4', 'organization ipv4', 'asn ipv6', 'organization ipv6', 'sampledAsn ipv4', 'sampledAsn ipv6']);
    const sampled = report.breaches.filter((b) => b.field === 'sampledAsn');
    expect(sampled.map((b) => b.value)).toEqual([expected.ipv4.changed / expected.ipv4.answered, expected.ipv6.changed / expected.ipv6.answered]);
  });

  it('stops a hijack in the routing source, one ASN taking a whole /8, which the sampled shares alone let through', () => {
    const report = diff(routed, buildRouting('hijacked', HIJACKED));
    const gain = expectedLargestIpv4Gain(HIJACKED);
    expect(gain.asn).toBe(HIJACKED.hijack?.asn);
    expect(breached(report)).toEqual(['largestGain ipv4']);
    expect(report.breaches[0]).toMatchObject({ value: gain.gained, threshold: THRESHOLDS.asn.largestGain.ipv4 });
    // A /8 is a sixty-fourth of the routed space here: under the share of changed ASNs on the sample.
    const expected = expectedSample(HIJACKED);
    expect(report.sections[1].changes?.sample.ipv4).toMatchObject(expected.ipv4);
    expect(expected.ipv4.changed / expected.ipv4.answered).toBeLessThan(THRESHOLDS.asn.sampledAsn.share);
    expect(report.sections[0].sample.ipv4.changed.asn / report.sections[0].sample.ipv4.answered).toBeLessThan(THRESHOLDS.database.asn.share);
    const table = diffTable(report);
    expect(table).toContain(
      `**Over a threshold:** AS${gain.asn} gained ${gain.gained.toLocaleString('en-US')} IPv4 addresses (threshold 4,194,304, a /10's worth).`,
    );
    expect(table).toContain(`- largestGain: ${THRESHOLDS.asn.largestGain.basis}`);
  });

  it('stops a build whose ASN object disagrees with its database, and no --accept-diff lets it through', async () => {
    const report = diff(routed, mixed);
    const expected = expectedSample(REROUTED);
    expect(report.broken).toBe(true);
    expect(report.breaches[0]).toMatchObject({ field: 'consistency', value: expected.ipv4.changed + expected.ipv6.changed, threshold: 0 });
    // Both objects are the routed build's: between them, nothing changed.
    expect(report.sections[1].changes?.sample.ipv4.changed).toBe(0);
    expect(diffTable(report)).toMatch(/^\*\*Broken build:\*\* the new build's ASN object disagrees with its database at [\d,]+ of [\d,]+ sampled addresses/m);

    const lines: string[] = [];
    const compared = await diffGate(manifestOf(mixed), [await serving(routed)], (line) => lines.push(line));
    expect(compared).toMatchObject({ stopped: true, broken: true });
    // Compared with no bucket's version, as with --accept-diff, it is still checked against itself.
    const alone = await diffGate(manifestOf(mixed), [], (line) => lines.push(line));
    expect(alone).toEqual({ reports: [], stopped: true, broken: true });
    expect(lines.at(-1)).toContain(`### data:diff: ${mixed} ${buildOnDisk(mixed).version} against itself`);
    expect(lines.at(-1)).toContain('**Broken build:**');
    expect(await diffGate(manifestOf(rerouted), [], () => {})).toEqual({ reports: [], stopped: false, broken: false });

    const output: string[] = [];
    const spies = [vi.spyOn(console, 'log'), vi.spyOn(console, 'error')].map((spy) => spy.mockImplementation((line: string) => void output.push(line)));
    try {
      const version = buildOnDisk(mixed).version;
      const code = await runCommand('publish', {
        env: ['free'],
        file: manifestOf(mixed),
        check: true,
        'accept-diff': version,
        'persist-to': join(work, 'state'),
      });
      expect(code).toBe(OVER_THRESHOLDS);
      expect(output.join('\n')).toContain(`The diff gate stops version ${version}: its ASN object disagrees with its database`);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  }, 60_000);

  it('reports a version without an ASN object, checks only the new build, and lets it through', async () => {
    const report = diff(old, rerouted);
    const asn = report.sections[1];
    expect(asn.before).toBeNull();
    expect(asn.changes).toBeNull();
    expect(asn.consistency?.mismatches).toBe(0);
    expect(report.breaches).toEqual([]);
    expect(diffTable(report)).toContain("The old build has no ASN object (a version published before builds had one): only the new build's is checked.");

    const bucket = await serving(old);
    const verdict = await diffGate(manifestOf(rerouted), [bucket], () => {});
    expect(verdict).toMatchObject({ stopped: false, broken: false });
    expect(verdict.reports[0]?.sections[1]).toEqual(asn);

    // A bucket's ASN object that is not the one its record names is refused, not compared.
    const served = await serving(routed);
    const key = asnObjectKey(buildOnDisk(routed).version);
    const body = Buffer.from(served.objects.get(key) as Buffer);
    body[body.length - 1] = (body[body.length - 1] as number) ^ 1;
    served.objects.set(key, body);
    await expect(diffGate(manifestOf(rerouted), [served], () => {})).rejects.toThrow(DiffError);
    await expect(diffGate(manifestOf(rerouted), [served], () => {})).rejects.toThrow(new RegExp(`${key} has SHA-256 [0-9a-f]{64}, not the`));
  });
});

describe("a source's names in a table cell", () => {
  it('keeps a hostile organisation name on one line, in one cell, within its length', () => {
    expect(cellText('Evil | Net\n`x`\\', 60)).toBe('Evil \\| Net \\`x\\`\\\\');
    expect(cellText('Ünïcode 名前 Networks', 10)).toBe('Ünïcode 名…');
    expect(cellText('a\u0000b\u007fc', 60)).toBe('a b c');
  });
});
