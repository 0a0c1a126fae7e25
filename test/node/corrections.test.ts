/**
 * @module Corrections in the build (`data/corrections/`, docs/operations.md "Corrections"), over the
 * small build of MaxMind's test databases: each corrected address answered (through the service's own
 * lookup) as the record expected from the source's record of the place it is corrected to, read with
 * mmdb-lib and completed from countries-list (`expected-record.ts`); the precedence of longer prefixes
 * and later files; a source network split, its remainders keeping the source's record; names in every
 * language; bad files refused with nothing written; the manifest, the log, the version, reproducibility.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AsnResponse, type CityResponse, Reader } from 'mmdb-lib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type BuildOptions, build } from '../../data/build.ts';
import { SourceError } from '../../data/sources/source.ts';
import { GeoDatabase } from '../../src/geo/database.ts';
import { identifyDatabase } from '../../src/geo/identity.ts';
import { LANGUAGES } from '../../src/geo/languages.ts';
import { DEFAULT_FIELDS, type FieldMask, parseFields } from '../../src/lookup/fields.ts';
import { lookupAll } from '../../src/lookup/pipeline.ts';
import { singleBody } from '../../src/lookup/render.ts';
import { type ExpectedRecord, expectedRecord } from '../support/expected-record.ts';
import { FIXTURES } from '../support/fixtures.ts';
import { fromUtf8 } from '../support/utf8-text.ts';

const ROOT = join(import.meta.dirname, '../..');
const tempDir = () => mkdtempSync(join(tmpdir(), 'ipgeo-corrections-'));
const testData = (name: string) => join(FIXTURES, 'test-data', name);
const city = new Reader<CityResponse>(readFileSync(testData('GeoIP2-City-Test.mmdb')));
const asn = new Reader<AsnResponse>(readFileSync(testData('GeoLite2-ASN-Test.mmdb')));

/** A corrections file of `lines` in a folder of its own, named `name`. */
function correctionsFile(name: string, lines: readonly string[]): string {
  const path = join(tempDir(), name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** The small build of MaxMind's test databases with the corrections `files`, in order, into a new folder. */
function smallBuild(files: readonly string[], log: (line: string) => void = () => {}) {
  const outDir = tempDir();
  const options: BuildOptions = {
    maxmindCity: testData('GeoIP2-City-Test.mmdb'),
    maxmindAsn: testData('GeoLite2-ASN-Test.mmdb'),
    proxyLists: [],
    corrections: files.map((path) => ({ path })),
  };
  const manifest = build(options, log, outDir);
  const bytes = readFileSync(join(outDir, 'ipgeo.mmdb'));
  return { manifest, bytes, outDir, database: new GeoDatabase(bytes) };
}

/** The service's JSON answer for `address` in language `language` (its index in LANGUAGES), or the failure's kind. */
function answer(database: GeoDatabase, address: string, language = LANGUAGES.indexOf('en')): ExpectedRecord | string {
  const [outcome] = lookupAll(database, [address]);
  if (outcome?.kind !== 'found') return outcome?.kind ?? 'none';
  return JSON.parse(fromUtf8(singleBody(outcome, 'json', { fields: DEFAULT_FIELDS, language }))) as ExpectedRecord;
}

/** The routing facts of `address` in the ASN test database, as `expectedRecord` takes them. */
function networkOf(address: string) {
  const found = asn.get(address);
  return found ? { asn: String(found.autonomous_system_number), organization: found.autonomous_system_organization ?? '' } : undefined;
}

/** The source's record at `place` (an address the source locates where a correction puts `address`), changed by `change`. */
function placeRecord(place: string, change: (record: CityResponse) => CityResponse = (record) => record): CityResponse {
  const record = city.get(place);
  if (record === null) throw new Error(`the source has no record at ${place}`);
  return change(structuredClone(record));
}

/** What `address` should answer once corrected to the source's place at `place` (changed by `change`). */
function correctedTo(address: string, place: string, change?: (record: CityResponse) => CityResponse): ExpectedRecord {
  return expectedRecord(address, placeRecord(place, change), networkOf(address)) as ExpectedRecord;
}

/** A change of a place's record: the postal code a correction gives (none by default) in place of the source's. */
const withPostal =
  (code?: string) =>
  (record: CityResponse): CityResponse =>
    ({ ...record, postal: code ? { code } : undefined }) as CityResponse;

/** What `address` answers from the sources alone. */
const sourceRecord = (address: string) => expectedRecord(address, city.get(address), networkOf(address));

/** A place named `name` in English only, where the source has no city of that name, at the position of the source's record it changes. */
const unknownCity =
  (name: string) =>
  ({ postal: _, ...record }: CityResponse): CityResponse => ({ ...record, city: { geoname_id: 0, names: { en: name } } });

// In the test databases: 89.160.20.128/25 is Linköping (SE-E), with ASN 29518 as the whole of
// 89.160.0.0/18; 214.0.1.0/24 is Melbourne (AU-VIC), named in all eight languages; 214.78.124.0/24 is
// California (US-CA) without a city; 2a02:d040::/29 and 2001:218::/32 are Sweden and Japan without a region.
const OURS = [
  '# Corrections of the operator',
  '89.160.20.160/27,AU,AU-VIC,Melbourne,3000',
  '89.160.20.0/26,SE,,Atlantis,',
  '89.160.21.0/24,us,us-ca,Nowhere Springs,',
  '89.160.24.0/24,JP,,,',
  '89.160.25.0/24,,,,',
  '2a02:d040::/32,SE,SE-E,Linkoping,',
];

describe('a build with corrections', () => {
  const ours = correctionsFile('ours.csv', OURS);
  const log: string[] = [];
  const { database, manifest, bytes } = smallBuild([ours], (line) => log.push(line));

  it('splits a source network: the corrected part answers the new place, both remainders the source record', () => {
    expect(answer(database, '89.160.20.170')).toEqual(correctedTo('89.160.20.170', '214.0.1.1', withPostal('3000')));
    for (const remainder of ['89.160.20.128', '89.160.20.159', '89.160.20.192', '89.160.20.255']) {
      expect(answer(database, remainder), remainder).toEqual(sourceRecord(remainder));
      expect(answer(database, remainder), remainder).toMatchObject({ cityName: 'Linköping' });
    }
    expect(answer(database, '2a02:d040::1')).toEqual(correctedTo('2a02:d040::1', '89.160.20.128', withPostal()));
    expect(answer(database, '2a02:d041::1')).toEqual(sourceRecord('2a02:d041::1'));
  });

  it('answers the country facts of the corrected country from countries-list, and keeps the ASN', () => {
    const melbourne = answer(database, '89.160.20.170') as ExpectedRecord;
    expect(melbourne).toMatchObject({
      countryCode: 'AU',
      countryName: 'Australia',
      capital: 'Canberra',
      phoneCodes: [61],
      currencies: ['AUD'],
      languages: ['en'],
    });
    expect(melbourne).toMatchObject({ continentCode: 'OC', asn: '29518', asnOrganization: 'Bredband2 AB', isProxy: false });
    expect(melbourne.timeZones[0]).toBe('Australia/Melbourne');
  });

  it('names a city the source knows in all eight languages, as the source does', () => {
    const source = placeRecord('214.0.1.1');
    for (const [index, language] of LANGUAGES.entries()) {
      const names = (place: { names?: object } | undefined) => {
        const named = place?.names as Record<string, string> | undefined;
        return named?.[language] || named?.en;
      };
      expect(answer(database, '89.160.20.170', index), language).toMatchObject({
        cityName: names(source.city),
        regionName: names(source.subdivisions?.[0]),
        countryName: names(source.country),
        continent: names(source.continent),
      });
    }
    // A line that writes the name without its accent finds the source's city all the same.
    const linkoping = placeRecord('89.160.20.128');
    expect(answer(database, '2a02:d040::1', LANGUAGES.indexOf('ja'))).toMatchObject({ cityName: linkoping.city?.names?.ja });
  });

  it('names a city the source does not know in English in every language, at its region or country position', () => {
    for (const index of LANGUAGES.keys()) {
      expect(answer(database, '89.160.20.1', index)).toMatchObject({ cityName: 'Atlantis' });
      expect(answer(database, '89.160.21.1', index)).toMatchObject({ cityName: 'Nowhere Springs' });
    }
    // No region given: the country's own position (2a02:d040::/29 is Sweden's); a region: the region's.
    expect(answer(database, '89.160.20.1')).toEqual(correctedTo('89.160.20.1', '2a02:d040::1', unknownCity('Atlantis')));
    expect(answer(database, '89.160.21.1')).toEqual(correctedTo('89.160.21.1', '214.78.124.1', unknownCity('Nowhere Springs')));
  });

  it('finds a city given without its region where the source knows that name in one region of the country', () => {
    const { database } = smallBuild([correctionsFile('no-region.csv', ['89.160.26.0/24,AU,,melbourne,'])]);
    expect(answer(database, '89.160.26.1')).toEqual(correctedTo('89.160.26.1', '214.0.1.1', withPostal()));
  });

  it("gives a country alone the position and zone of the source's records of the country, and a line without location none", () => {
    expect(answer(database, '89.160.24.1')).toEqual(correctedTo('89.160.24.1', '2001:218::1', withPostal()));
    // RFC 8805, section 2.1.2: the location is dropped; the ASN stays.
    expect(answer(database, '89.160.25.1')).toEqual(expectedRecord('89.160.25.1', null, networkOf('89.160.25.1')));
  });

  it("gives a corrected place the accuracy radius the source gives that city's, region's or country's networks most often", () => {
    // The oracle: MaxMind's source JSON of the test database, its networks tallied by place and radius.
    const entries = JSON.parse(readFileSync(join(FIXTURES, 'source-data', 'GeoIP2-City-Test.json'), 'utf8')) as Record<string, CityResponse>[];
    const mostOften = (country: string, region: string, cityName: string) => {
      const counts = new Map<number, number>();
      for (const record of entries.flatMap((entry) => Object.values(entry))) {
        const place = [record.country?.iso_code ?? '', record.subdivisions?.[0]?.iso_code ?? '', record.city?.names?.en ?? ''];
        if (place.join('|') !== [country, region, cityName].join('|')) continue;
        const radius = record.location?.accuracy_radius ?? 0;
        counts.set(radius, (counts.get(radius) ?? 0) + 1);
      }
      const [best] = [...counts].sort(([a, x], [b, y]) => y - x || b - a);
      if (best === undefined) throw new Error(`the source has no networks at ${country} ${region} ${cityName}`);
      return best[0];
    };
    const radius = { fields: parseFields('accuracyRadius') as FieldMask, language: LANGUAGES.indexOf('en') };
    const radiusOf = (address: string) => {
      const [outcome] = lookupAll(database, [address]);
      if (outcome?.kind !== 'found') throw new Error(`${address}: ${outcome?.kind}`);
      return (JSON.parse(fromUtf8(singleBody(outcome, 'json', radius))) as { accuracyRadius: number }).accuracyRadius;
    };
    expect(radiusOf('89.160.20.170')).toBe(mostOften('AU', 'VIC', 'Melbourne'));
    expect(radiusOf('2a02:d040::1')).toBe(mostOften('SE', 'E', 'Linköping'));
    expect(radiusOf('89.160.20.1')).toBe(mostOften('SE', '', ''));
    expect(radiusOf('89.160.21.1')).toBe(mostOften('US', 'CA', ''));
    expect(radiusOf('89.160.24.1')).toBe(mostOften('JP', '', ''));
    // A line without a location leaves no place, so no radius.
    expect(radiusOf('89.160.25.1')).toBe(0);
  });

  it('says in the log and the manifest how many lines apply and how many addresses they answer', () => {
    expect(manifest.counts.corrections).toEqual({
      prefixes: 6,
      applied: 6,
      ipv4Addresses: 32 + 64 + 256 + 256 + 256,
      ipv6Addresses: String(2n ** 96n),
      coordinates: { city: 2, region: 1, country: 2, none: 0 },
    });
    expect(log.some((line) => line.includes('corrections: 6 of 6 correction lines apply, to 864 IPv4 addresses and 4294967296 IPv6 /64 networks'))).toBe(true);
    expect(
      log.some((line) => /2 lines, a city the location source does not know: .*ours\.csv line 3 \(89\.160\.20\.0\/26\), ours\.csv line 4/.test(line)),
    ).toBe(true);
    const content = readFileSync(ours);
    expect(manifest.corrections).toEqual([
      {
        name: 'ours.csv',
        origin: 'file',
        path: expect.stringMatching(/ours\.csv$/),
        bytes: content.length,
        sha256: createHashHex(content),
        lines: OURS.length,
        prefixes: OURS.length - 1,
      },
    ]);
  });

  it('names the file in the database, by its SHA-256, lines and prefixes', async () => {
    const identity = await identifyDatabase(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    expect(identity.corrections).toEqual([{ name: 'ours.csv', sha256: createHashHex(readFileSync(ours)), lines: OURS.length, prefixes: OURS.length - 1 }]);
  });
});

describe('precedence', () => {
  const ours = correctionsFile('ours.csv', OURS);
  // Another file: a shorter prefix around ours.csv's /27, and ours.csv's /24 of California again.
  const theirs = correctionsFile('theirs.csv', ['89.160.20.128/25,SG,,Singapore,', '89.160.21.0/24,AU,AU-VIC,Melbourne,']);

  it('gives the longer prefix its addresses whatever the order of the files, and the shorter one the rest', () => {
    for (const files of [
      [ours, theirs],
      [theirs, ours],
    ]) {
      const { database } = smallBuild(files);
      expect(answer(database, '89.160.20.170')).toMatchObject({ cityName: 'Melbourne', zipCode: '3000' });
      for (const rest of ['89.160.20.128', '89.160.20.159', '89.160.20.192', '89.160.20.255']) {
        expect(answer(database, rest), rest).toEqual(correctedTo(rest, '214.0.0.1', withPostal()));
      }
    }
  });

  it('gives a prefix that two files set to the later file', () => {
    expect(answer(smallBuild([ours, theirs]).database, '89.160.21.1')).toEqual(correctedTo('89.160.21.1', '214.0.1.1', withPostal()));
    expect(answer(smallBuild([theirs, ours]).database, '89.160.21.1')).toEqual(correctedTo('89.160.21.1', '214.78.124.1', unknownCity('Nowhere Springs')));
  });

  it('says which lines are overridden whole', () => {
    const log: string[] = [];
    const { manifest } = smallBuild([theirs, ours], (line) => log.push(line));
    expect(manifest.counts.corrections).toMatchObject({ prefixes: 8, applied: 7 });
    expect(
      log.some((line) =>
        line.includes('1 line, overridden whole by longer prefixes or by a later file with the same prefix: theirs.csv line 2 (89.160.21.0/24)'),
      ),
    ).toBe(true);
  });
});

describe('bad corrections', () => {
  const FAULTS: readonly (readonly [string, string])[] = [
    ['89.160.20.0/33,SE,,,', '"89.160.20.0/33" has no valid prefix length'],
    ['89.160.20.1/24,SE,,,', '"89.160.20.1/24" has host bits set: the network is 89.160.20.0/24'],
    ['89.160.20.0/24,XX,,,', '"XX" is not an ISO 3166-1 alpha-2 country code'],
    ['89.160.20.0/24,SE,GB-ENG,,', "region GB-ENG is of GB, not of the line's country SE"],
    ['192.168.1.0/24,SE,,,', '192.168.1.0/24 is in 192.168.0.0/16, a private-use network (RFC 1918)'],
    ['240.0.0.0/8,SE,,,', '240.0.0.0/8 is in 240.0.0.0/4, a network reserved for future use (RFC 1112)'],
  ];

  it('stops the build on each, naming the file, the line and the reason, and writes nothing', () => {
    for (const [line, reason] of FAULTS) {
      const file = correctionsFile('bad.csv', ['# one good line, then a bad one', '89.160.21.0/24,US,US-CA,,', line]);
      const outDir = tempDir();
      const options: BuildOptions = {
        maxmindCity: testData('GeoIP2-City-Test.mmdb'),
        maxmindAsn: testData('GeoLite2-ASN-Test.mmdb'),
        proxyLists: [],
        corrections: [{ path: file }],
      };
      expect(() => build(options, () => {}, outDir), line).toThrow(SourceError);
      expect(() => build(options, () => {}, outDir), line).toThrow(`--corrections ${file}: a line is refused:\n  line 3: ${reason}`);
      expect(readdirSync(outDir), line).toEqual([]);
    }
    const twice = correctionsFile('twice.csv', ['89.160.21.0/24,US,,,', '89.160.21.0/24,SE,,,']);
    expect(() => smallBuild([twice])).toThrow('line 2: 89.160.21.0/24 again, already given on line 1');
  });

  it('exits 1 from npm run data:build, saying so, and leaves the previous build as it was', () => {
    const outDir = tempDir();
    const args = ['--maxmind-city', testData('GeoIP2-City-Test.mmdb'), '--maxmind-asn', testData('GeoLite2-ASN-Test.mmdb'), '--out', outDir];
    const good = spawnSync('npx', ['tsx', 'data/build.ts', ...args, '--corrections', correctionsFile('ours.csv', OURS)], { cwd: ROOT, encoding: 'utf8' });
    expect(good.status, good.stderr).toBe(0);
    expect(good.stdout).toContain('Corrections from ours.csv: 6 of 6 correction lines apply, to 864 IPv4 addresses and 4294967296 IPv6 /64 networks.');
    const before = readFileSync(join(outDir, 'ipgeo.mmdb'));
    const bad = correctionsFile('bad.csv', ['10.0.0.0/8,SE,,,', '89.160.20.0/24,EU,,,']);
    const refused = spawnSync('npx', ['tsx', 'data/build.ts', ...args, '--corrections', bad], { cwd: ROOT, encoding: 'utf8' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`data:build failed: --corrections ${bad}: 2 lines are refused:`);
    expect(refused.stderr).toContain('line 1: 10.0.0.0/8 is in 10.0.0.0/8, a private-use network (RFC 1918)');
    expect(refused.stderr).toContain('line 2: "EU" is not an ISO 3166-1 alpha-2 country code');
    expect(refused.stderr).toContain('Nothing was written.');
    expect(readFileSync(join(outDir, 'ipgeo.mmdb')).equals(before)).toBe(true);
  });
});

describe('the version and reproducibility', () => {
  afterEach(() => void vi.useRealTimers());

  it('gives the same bytes from the same sources and corrections, and another version when the corrections change', () => {
    const ours = correctionsFile('ours.csv', OURS);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T10:00:00.000Z'));
    const first = smallBuild([ours]);
    vi.setSystemTime(new Date('2026-11-26T10:09:00.000Z'));
    const second = smallBuild([ours]);
    expect(first.bytes.equals(second.bytes)).toBe(true);
    expect(second.manifest.version).toBe(first.manifest.version);

    const none = smallBuild([]);
    const changed = smallBuild([correctionsFile('ours.csv', [...OURS, '89.160.26.0/24,SE,,,'])]);
    // A file that changes nothing in the tree changes the version still: the database names it by its digest.
    const comment = smallBuild([correctionsFile('ours.csv', [...OURS, '# one more comment'])]);
    const versions = [first, none, changed, comment].map((build) => build.manifest.version);
    expect(new Set(versions).size).toBe(4);
    // The date of the version is the location source's, corrections or not.
    expect(new Set(versions.map((version) => version.slice(0, 10))).size).toBe(1);
  });
});

/** SHA-256 of `bytes` as lower-case hex. */
function createHashHex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
