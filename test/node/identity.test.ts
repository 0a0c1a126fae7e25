/**
 * @module The database's identity (`src/geo/identity.ts`): the version string (docs/storage.md,
 * "R2 bucket GEO_DATA"), staleness at the licence's 30 days with the clock passed in, and the identity read back from a file
 * compiled with sources, its SHA-256 checked against `node:crypto`.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compile } from '../../data/compile.ts';
import { parseNetwork } from '../../data/mmdb/network.ts';
import { maxmindAnonymousIp, maxmindAsn, maxmindCity } from '../../data/sources/maxmind.ts';
import type { SourceInfo } from '../../data/sources/source.ts';
import { databaseVersion, identifyDatabase, isStale } from '../../src/geo/identity.ts';
import { DATABASE_TYPE } from '../../src/geo/schema.ts';
import { FIXTURES } from '../support/fixtures.ts';
import { MmdbWriter } from '../support/mmdb-writer.ts';

const SHA = '3f2a9c1d0123456789abcdef0123456789abcdef0123456789abcdef01234567';
const DAY = 86_400_000;

describe('databaseVersion', () => {
  it("dates the version by the newest location source's build, in UTC, and adds eight hex digits", () => {
    const sources = [
      { provides: 'location' as const, builtAt: '2026-09-18T04:49:38.000Z' },
      { provides: 'location' as const, builtAt: '2026-09-01T23:59:59.000Z' },
      // A newer ASN source does not date the data of locations.
      { provides: 'network' as const, builtAt: '2026-10-01T00:00:00.000Z' },
    ];
    expect(databaseVersion(sources, SHA)).toBe('2026-09-18.3f2a9c1d');
  });

  it('falls back to the given date when no source provides locations', () => {
    expect(databaseVersion([], SHA, '2026-11-23T18:00:00.000Z')).toBe('2026-11-23.3f2a9c1d');
  });
});

describe('isStale', () => {
  const sources = [{ builtAt: '2026-09-18T00:00:00.000Z' }, { builtAt: '2026-06-17T19:00:00.000Z' }].map((s) => ({
    ...s,
    name: 'x',
    provides: 'location' as const,
    version: '1',
    licence: '',
    attribution: '',
  }));
  const oldest = Date.parse('2026-06-17T19:00:00.000Z');

  it('is false up to 30 days after the oldest source was built, and true after', () => {
    expect(isStale({ sources }, oldest + 30 * DAY)).toBe(false);
    expect(isStale({ sources }, oldest + 30 * DAY + 1)).toBe(true);
  });

  it('is false without sources', () => {
    expect(isStale({ sources: [] }, Date.now())).toBe(false);
  });

  it('counts routing sources, but not lists of flagged networks, whatever their age', () => {
    const at = (provides: 'location' | 'network' | 'proxy', builtAt: string) => ({ ...(sources[0] as (typeof sources)[0]), provides, builtAt });
    const now = Date.parse('2026-11-26T00:00:00.000Z');
    const fresh = at('location', '2026-11-20T00:00:00.000Z');
    expect(isStale({ sources: [fresh, at('network', '2026-10-01T00:00:00.000Z')] }, now)).toBe(true);
    expect(isStale({ sources: [fresh, at('proxy', '2023-05-01T00:00:00.000Z')] }, now)).toBe(false);
    expect(isStale({ sources: [at('proxy', '2023-05-01T00:00:00.000Z')] }, now)).toBe(false);
  });
});

describe('identifyDatabase', () => {
  it('reads the sources and counts the build wrote into the metadata, and hashes the whole file', async () => {
    const locations = maxmindCity(`${FIXTURES}/test-data/GeoIP2-City-Test.mmdb`);
    const networks = maxmindAsn(`${FIXTURES}/test-data/GeoLite2-ASN-Test.mmdb`);
    const flags = maxmindAnonymousIp(`${FIXTURES}/test-data/GeoIP2-Anonymous-IP-Test.mmdb`);
    const { bytes, counts } = compile({ locations: [locations], networks: [networks], flags: [flags], buildEpoch: 1_700_000_000 });
    const identity = await identifyDatabase(bytes.slice().buffer);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const described = ({ name, provides, version, builtAt, licence, attribution }: SourceInfo) => ({ name, provides, version, builtAt, licence, attribution });
    expect(identity).toEqual({
      version: `${locations.info.builtAt.slice(0, 10)}.${sha256.slice(0, 8)}`,
      builtAt: '2023-11-14T22:13:20.000Z',
      networks: counts.networks,
      records: counts.records,
      bytes: bytes.length,
      sha256,
      sources: [described(locations.info), described(networks.info), { ...described(flags.info), flags: ['vpn', 'tor', 'hosting', 'proxy'] }],
      flags: ['vpn', 'tor', 'hosting', 'proxy'],
      // A build without corrections names none (test/node/corrections.test.ts names some).
      corrections: [],
    });
  });

  it('reads a file of schema 3 with a proxy source as one that sets the proxy flag only', async () => {
    const source = { name: 'tor-exits.txt', provides: 'proxy', version: '1 networks', built_at: '2026-01-01T00:00:00.000Z', licence: '', attribution: '' };
    const writer = new MmdbWriter({ ipVersion: 6, databaseType: DATABASE_TYPE, extra: { sources: [source] } });
    writer.insert(parseNetwork('1.2.3.0/24'), { proxy: true });
    const bytes = writer.build();
    expect((await identifyDatabase(bytes.slice().buffer)).flags).toEqual(['proxy']);
  });
});
