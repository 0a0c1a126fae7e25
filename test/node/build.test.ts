/**
 * @module `data:build` as operators run it: reproducible (the same sources give the same bytes and the
 * same version whatever the clock says, the build date being the newest source's) and held to the
 * isolate budget (a database that would not fit is refused with its figures, and the previous build
 * stays; one that fits is written with its margin printed).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Reader } from 'mmdb-lib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type BuildOptions, build } from '../../data/build.ts';
import { MEMORY_MODEL, MIB } from '../../src/geo/budget.ts';
import { FIXTURES } from '../support/fixtures.ts';

const ROOT = join(import.meta.dirname, '../..');
const tempDir = () => mkdtempSync(join(tmpdir(), 'ipgeo-build-'));
const testData = (name: string) => join(FIXTURES, 'test-data', name);
/** The build date a MaxMind DB states (its `build_epoch`), read by mmdb-lib, in seconds. */
const buildEpochOf = (file: string) => new Reader(readFileSync(file)).metadata.buildEpoch.getTime() / 1000;

/** Runs `npm run data:build -- …args` as a process; its exit code and output. */
function dataBuild(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync('npx', ['tsx', 'data/build.ts', ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 << 20 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('a reproducible build', () => {
  afterEach(() => void vi.useRealTimers());

  it('gives the same bytes and the same version from the same sources, minutes apart', () => {
    const list = join(tempDir(), 'tor-exits.txt');
    writeFileSync(list, '185.220.101.1\n2001:db8:ffff::/48\n');
    const listDate = new Date('2026-11-20T06:30:00.000Z');
    utimesSync(list, listDate, listDate);
    const options: BuildOptions = {
      maxmindCity: testData('GeoIP2-City-Test.mmdb'),
      maxmindAsn: testData('GeoLite2-ASN-Test.mmdb'),
      maxmindAnonymousIp: testData('GeoIP2-Anonymous-IP-Test.mmdb'),
      proxyLists: [list],
    };
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T10:00:00.000Z'));
    const firstDir = tempDir();
    const first = build(options, () => {}, firstDir);
    vi.setSystemTime(new Date('2026-11-26T10:07:30.000Z'));
    const secondDir = tempDir();
    const second = build(options, () => {}, secondDir);

    expect(Buffer.compare(readFileSync(join(firstDir, 'ipgeo.mmdb')), readFileSync(join(secondDir, 'ipgeo.mmdb')))).toBe(0);
    expect(second.version).toBe(first.version);
    expect(second.shards).toEqual(first.shards);
    // The build date is the newest source's: the MaxMind databases' own dates, or the list's file date.
    const newest = Math.max(
      ...['GeoIP2-City-Test.mmdb', 'GeoLite2-ASN-Test.mmdb', 'GeoIP2-Anonymous-IP-Test.mmdb'].map((name) => buildEpochOf(testData(name))),
      listDate.getTime() / 1000,
    );
    expect(first.builtAt).toBe(new Date(newest * 1000).toISOString());
    expect(buildEpochOf(join(firstDir, 'ipgeo.mmdb'))).toBe(newest);
  });
});

describe('the isolate budget of data:build', () => {
  it('prints the memory the database needs and its margin', () => {
    const out = tempDir();
    const run = dataBuild(['--maxmind-city', testData('GeoIP2-City-Test.mmdb'), '--maxmind-asn', testData('GeoLite2-ASN-Test.mmdb'), '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const size = statSync(join(out, 'ipgeo.mmdb')).size;
    expect(run.stdout).toMatch(
      new RegExp(
        `ipgeo\\.mmdb \\(${(size / 1048576).toFixed(1)} MiB\\) needs \\d+\\.\\d MiB of the isolate budget of 96\\.0 MiB once loaded with its caches full: margin \\d+\\.\\d MiB`,
      ),
    );
  }, 60_000);

  it('refuses a database as one file over --budget-mib, naming the figures and the shards that would fit, and leaves the previous build as it was', () => {
    const out = tempDir();
    const sources = ['--maxmind-city', testData('GeoIP2-City-Test.mmdb'), '--maxmind-asn', testData('GeoLite2-ASN-Test.mmdb')];
    // The previous build: of the same sources, so of the same bytes (reproducible), whose size the refusal names.
    const previous = dataBuild([...sources, '--out', out]);
    expect(previous.code, previous.stderr).toBe(0);
    const before = { database: readFileSync(join(out, 'ipgeo.mmdb')), manifest: readFileSync(join(out, 'ipgeo.manifest.json')) };
    const size = before.database.length;
    // A budget that leaves room for half the file beside what an isolate needs before it holds any data.
    const budgetMib = (MEMORY_MODEL.fixedBytes + MEMORY_MODEL.cacheBytes + MEMORY_MODEL.asnBytes + size / 2) / MIB;
    const run = dataBuild([...sources, '--shards', '1', '--budget-mib', String(budgetMib), '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `data:build refused the database: .*ipgeo\\.mmdb \\(${(size / MIB).toFixed(1)} MiB\\) would need \\d+\\.\\d MiB once loaded with its caches full, \\d+\\.\\d MiB over the isolate budget of ${budgetMib.toFixed(1)} MiB \\(files up to \\d+\\.\\d MiB fit\\).*Build more shards: --shards [23] or more`,
      ),
    );
    expect(run.stderr).toMatch(/Nothing was written: .*ipgeo\.mmdb is the previous build, as it was\./);
    expect(Buffer.compare(readFileSync(join(out, 'ipgeo.mmdb')), before.database)).toBe(0);
    expect(Buffer.compare(readFileSync(join(out, 'ipgeo.manifest.json')), before.manifest)).toBe(0);
  }, 60_000);

  it('refuses a budget that is not a positive number of MiB', () => {
    const run = dataBuild(['--budget-mib', 'lots']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--budget-mib must be a positive number of MiB, not "lots"');
  }, 60_000);
});
