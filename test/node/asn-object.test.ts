/**
 * @module The ASN object a build writes (`data/asn/`), read back piece by piece as a Worker reads it
 * (`src/geo/asn-layout.ts`), against its routing source read directly (`test/support/asn-oracle.ts`): the
 * default `@ip-location-db/asn` CSV files for a seeded sample of ASNs of every size in both families,
 * MaxMind's GeoLite2-ASN-Test for every ASN; and where each ASN's addresses are against per-network
 * mmdb-lib lookups of the same build, 6to4 included.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Reader } from 'mmdb-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AsnObjectInfo } from '../../data/asn/object.ts';
import { build, OUT_DIR } from '../../data/build.ts';
import { packageDir } from '../../data/sources/source.ts';
import { type AsnPage, blockOf, findInBlock, parseAsnIndex } from '../../src/geo/asn-layout.ts';
import { AsnSourceOracle, type ExpectedAsn, expectedCountries } from '../support/asn-oracle.ts';
import { FIXTURES } from '../support/fixtures.ts';
import { seededRandom } from '../support/seeded-random.ts';

/** A build's ASN object as a Worker reads it: every page of an ASN, each block checked against the index's digest of it. */
class BuiltAsns {
  private readonly object: Uint8Array;
  private readonly info: AsnObjectInfo;

  constructor(readonly dir: string) {
    this.info = (JSON.parse(readFileSync(join(dir, 'ipgeo.manifest.json'), 'utf8')) as { asn: AsnObjectInfo }).asn;
    this.object = new Uint8Array(readFileSync(join(dir, this.info.file)));
  }

  /** Every page of `asn` from the first, or undefined when the object does not hold it. */
  pages(asn: number): AsnPage[] | undefined {
    const { indexBytes, blockBytes } = this.info;
    const index = parseAsnIndex(this.object.subarray(0, indexBytes), this.info);
    const pages: AsnPage[] = [];
    for (let page = 0; ; page++) {
      const at = blockOf(index, asn, page);
      if (at < 0) return undefined;
      const block = this.object.subarray(indexBytes + at * blockBytes, indexBytes + (at + 1) * blockBytes);
      expect(createHash('sha256').update(block).digest('hex')).toBe(Buffer.from(index.digests.subarray(at * 32, at * 32 + 32)).toString('hex'));
      const found = findInBlock(block, asn, page);
      if (found.kind === 'not-found') return undefined;
      if (found.kind === 'no-page') return pages;
      pages.push(found.page);
    }
  }
}

/** Checks the pages of `asn` against what the source says of it. */
function expectAsSource(pages: AsnPage[] | undefined, asn: number, expected: ExpectedAsn): void {
  expect(pages, `AS${asn}`).toBeDefined();
  const all = pages ?? [];
  const ipv4 = all.flatMap((page) => page.ipv4);
  const ipv6 = all.flatMap((page) => page.ipv6);
  expect(ipv4, `AS${asn} IPv4`).toEqual(expected.ipv4);
  expect(ipv6, `AS${asn} IPv6`).toEqual(expected.ipv6);
  const total = expected.ipv4.length + expected.ipv6.length;
  expect(all.length, `AS${asn} pages`).toBe(Math.max(1, Math.ceil(total / 1000)));
  for (const page of all) {
    expect(page.ipv4.length + page.ipv6.length).toBeLessThanOrEqual(1000);
    expect(page).toMatchObject({ asn, organization: expected.organization, pages: all.length, addresses: expected.addresses });
    expect(page.prefixTotals).toEqual({ ipv4: expected.ipv4.length, ipv6: expected.ipv6.length });
    expect(page.countries).toEqual(all[0]?.countries);
  }
}

/** The countries of a page as the oracle counts them: code ('' for none) → counts. */
function countriesOf(page: AsnPage | undefined): Map<string, { ipv4: number; ipv6: number }> {
  return new Map((page?.countries ?? []).map(({ code, ipv4, ipv6 }) => [code ?? '', { ipv4, ipv6 }]));
}

describe('the ASN object of the default build', () => {
  let built: BuiltAsns;
  let source: AsnSourceOracle;
  let sizes: Map<number, number>;
  let sample: number[];
  beforeAll(() => {
    built = new BuiltAsns(OUT_DIR);
    const dir = packageDir('@ip-location-db/asn');
    source = AsnSourceOracle.fromCsv(readFileSync(join(dir, 'asn-ipv4.csv')), readFileSync(join(dir, 'asn-ipv6.csv')));
    // Six ASNs of each size (ranges in the source), and the largest: seeded, so that a failure repeats.
    const random = seededRandom(20261206);
    sizes = source.sizes();
    const bySize = [...sizes];
    const buckets = [1, 2, 6, 21, 101, 1001, Number.POSITIVE_INFINITY];
    sample = [13335, 15169, 4134];
    for (let b = 0; b + 1 < buckets.length; b++) {
      const within = bySize.filter(([, size]) => size >= (buckets[b] as number) && size < (buckets[b + 1] as number)).map(([asn]) => asn);
      for (let i = 0; i < 6 && within.length > 0; i++) sample.push(within.splice(Math.floor(random() * within.length), 1)[0] as number);
    }
  });

  it('answers a sample of every size as its source, ranges merged and cut into prefixes', () => {
    let ipv6 = 0;
    for (const asn of sample) {
      const expected = source.expected(asn);
      if (expected === undefined) throw new Error(`AS${asn} is not in the source`);
      if (expected.ipv6.length > 0) ipv6++;
      expectAsSource(built.pages(asn), asn, expected);
    }
    expect(ipv6).toBeGreaterThan(5);
  });

  it('holds no ASN that the source does not name', () => {
    for (const asn of [0, 23456, 64512, 4_294_967_295]) {
      expect(source.expected(asn)).toBeUndefined();
      expect(built.pages(asn)).toBeUndefined();
    }
  });

  it('places addresses in countries as lookups of the same build do', () => {
    const reader = new Reader<never>(readFileSync(join(OUT_DIR, 'ipgeo.mmdb')));
    // ASNs of up to 30 ranges, so that the lookups stay few; none of the sample reaches 2002::/16.
    const modest = sample.filter((asn) => (sizes.get(asn) ?? 0) <= 30);
    expect(modest.length).toBeGreaterThan(8);
    for (const asn of modest) {
      const expected = source.expected(asn) as ExpectedAsn;
      const countries = built.pages(asn)?.[0]?.countries ?? [];
      expect(countriesOf(built.pages(asn)?.[0]), `AS${asn}`).toEqual(expectedCountries(reader, expected.ranges));
      // Largest first: IPv4 addresses, then IPv6 /64s.
      const order = countries.map((c) => [c.ipv4, c.ipv6]);
      expect(order).toEqual([...order].sort((a, b) => (b[0] as number) - (a[0] as number) || (b[1] as number) - (a[1] as number)));
    }
  });
});

describe("the ASN object of a build from MaxMind's GeoLite2-ASN", () => {
  it('answers every ASN of GeoLite2-ASN-Test as its source, and places them as lookups of the build do', () => {
    // data/out/small is built by the global setup from GeoIP2-City-Test and GeoLite2-ASN-Test, as data:update passes them.
    const dir = join(OUT_DIR, 'small');
    const built = new BuiltAsns(dir);
    const source = AsnSourceOracle.fromMaxMindJson(JSON.parse(readFileSync(join(FIXTURES, 'source-data', 'GeoLite2-ASN-Test.json'), 'utf8')));
    const reader = new Reader<never>(readFileSync(join(dir, 'ipgeo.mmdb')));
    expect(source.sizes().size).toBeGreaterThan(90);
    for (const asn of source.sizes().keys()) {
      const expected = source.expected(asn) as ExpectedAsn;
      const pages = built.pages(asn);
      expectAsSource(pages, asn, expected);
      expect(countriesOf(pages?.[0]), `AS${asn}`).toEqual(expectedCountries(reader, expected.ranges));
    }
  });

  it('merges touching ranges, counts a /64 once however it is cut, and places 6to4 by the IPv4 address it embeds', () => {
    // A routing source of the default package's form: two halves of a /24 (64503), two pieces of one /64
    // and a range across two /64s (64502), and 6to4 ranges that embed 81.2.69.0/24 (64500) and others (64501).
    const work = mkdtempSync(join(tmpdir(), 'ipgeo-asn-6to4-'));
    const asnDir = join(work, 'asn');
    mkdirSync(asnDir);
    writeFileSync(join(asnDir, 'package.json'), JSON.stringify({ name: '@ip-location-db/asn', version: '2.3.2026061719' }));
    writeFileSync(
      join(asnDir, 'asn-ipv4.csv'),
      ['81.2.69.0,81.2.69.255,64500,"Example, Inc."', '175.16.199.0,175.16.199.127,64503,Halves', '175.16.199.128,175.16.199.255,64503,Halves'].join('\n'),
    );
    writeFileSync(
      join(asnDir, 'asn-ipv6.csv'),
      [
        '2001:218::,2001:218::ff,64502,Pieces',
        '2001:218::1:0,2001:218::1:ff,64502,Pieces',
        '2001:220::,2001:220:0:1::ffff,64502,Pieces',
        '2002:5102:4400::,2002:5102:46ff:ffff:ffff:ffff:ffff:ffff,64501,Six to Four',
        '2002:d8a0:5338:8000::,2002:d8a0:5339::ffff,64501,Six to Four',
      ].join('\n'),
    );
    build({ maxmindCity: join(FIXTURES, 'test-data', 'GeoIP2-City-Test.mmdb'), asnPackageDir: asnDir, proxyLists: [] }, () => {}, work);
    const built = new BuiltAsns(work);
    const source = AsnSourceOracle.fromCsv(readFileSync(join(asnDir, 'asn-ipv4.csv')), readFileSync(join(asnDir, 'asn-ipv6.csv')));
    const reader = new Reader<never>(readFileSync(join(work, 'ipgeo.mmdb')));
    expect(source.expected(64503)?.ipv4).toEqual(['175.16.199.0/24']);
    expect(source.expected(64502)?.addresses.ipv6).toBe(3);
    for (const asn of [64500, 64501, 64502, 64503]) {
      const expected = source.expected(asn) as ExpectedAsn;
      expectAsSource(built.pages(asn), asn, expected);
      const countries = expectedCountries(reader, expected.ranges);
      expect(countriesOf(built.pages(asn)?.[0]), `AS${asn}`).toEqual(countries);
    }
    // The embedded 81.2.69.0/24 is in GB in the test data: its 6to4 /64s are placed there too.
    expect(countriesOf(built.pages(64501)?.[0]).get('GB')?.ipv6).toBeGreaterThan(0);
  });
});
