/**
 * @module Rebuilds MaxMind's official test databases from their source JSON with our writer and
 * compares every network, reading both files with mmdb-lib (an independent reader).
 */
import { readFileSync } from 'node:fs';
import { Reader } from 'mmdb-lib';
import { describe, expect, it } from 'vitest';
import type { MmdbValue } from '../../data/mmdb/data-section.ts';
import { parseNetwork } from '../../data/mmdb/network.ts';
import { MmdbReader } from '../../src/mmdb/reader.ts';
import { FIXTURES, formatAddress } from '../support/fixtures.ts';
import { MmdbWriter } from '../support/mmdb-writer.ts';

const NAMES = ['GeoIP2-City-Test', 'GeoIP2-Country-Test', 'GeoLite2-City-Test', 'GeoLite2-Country-Test', 'GeoLite2-ASN-Test', 'GeoIP2-Anonymous-IP-Test'];

type Source = Array<Record<string, MmdbValue>>;

function rebuild(name: string): { ours: Buffer; official: Buffer; source: Source } {
  const official = readFileSync(`${FIXTURES}/test-data/${name}.mmdb`);
  const source = JSON.parse(readFileSync(`${FIXTURES}/source-data/${name}.json`, 'utf8')) as Source;
  const meta = new Reader(official).metadata;
  const writer = new MmdbWriter({
    ipVersion: meta.ipVersion as 4 | 6,
    databaseType: meta.databaseType,
    languages: meta.languages,
    description: meta.description as unknown as Record<string, string>,
    recordSize: meta.recordSize as 24 | 28 | 32,
  });
  // Broad networks first, so that a more specific network overrides the one containing it.
  const entries = source.flatMap((item) => Object.entries(item)).map(([cidr, data]) => ({ network: parseNetwork(cidr), data }));
  entries.sort((a, b) => a.network.prefixLength - b.network.prefixLength);
  for (const { network, data } of entries) writer.insert(network, data);
  return { ours: Buffer.from(writer.build()), official, source };
}

/**
 * The official GeoIP2-Anonymous-IP-Test.mmdb fills the IPv4 space around its networks with an
 * empty map `{}` that its source JSON does not contain (an artefact of MaxMind's test writer), so
 * for comparisons an empty map counts as "no data".
 */
function normalized(answer: [unknown, number]): [unknown, number] {
  const [data, prefix] = answer;
  const empty = typeof data === 'object' && data !== null && Object.keys(data).length === 0;
  return [empty ? null : data, prefix];
}

/** Every network of `file` as [first address text, prefix length], found by walking its tree. */
function networksOf(file: Buffer): Array<[string, number, boolean]> {
  const list: Array<[string, number, boolean]> = [];
  new MmdbReader(file).walk((bytes, prefixLength) => {
    const ipv4 = bytes.subarray(0, 12).every((b) => b === 0) && prefixLength >= 96;
    list.push([formatAddress(bytes, ipv4), ipv4 ? prefixLength - 96 : prefixLength, ipv4]);
  });
  return list;
}

describe.each(NAMES)('%s rebuilt from its source JSON', (name) => {
  const { ours, official, source } = rebuild(name);
  const oursReader = new Reader(ours);
  const officialReader = new Reader(official);

  it('keeps the metadata of the original', () => {
    const { buildEpoch: _a, nodeCount: _b, searchTreeSize: _c, ...expected } = officialReader.metadata;
    const { buildEpoch: _d, nodeCount: _e, searchTreeSize: _f, ...actual } = oursReader.metadata;
    expect(actual).toEqual(expected);
  });

  it('answers every source network with its source record', () => {
    for (const item of source) {
      for (const [cidr, data] of Object.entries(item)) {
        const address = cidr.split('/')[0] as string;
        expect(oursReader.get(address), cidr).toEqual(JSON.parse(JSON.stringify(data)));
      }
    }
  });

  it('holds every network of the official database, with the same data and prefix', () => {
    const networks = networksOf(official);
    expect(networks.length).toBeGreaterThan(0);
    for (const [address, prefix] of networks) {
      const expected = normalized(officialReader.getWithPrefixLength(address));
      const actual = oursReader.getWithPrefixLength(address);
      if (expected[0] === null) expect(actual[0], `${address}/${prefix}`).toBeNull();
      else expect(actual, `${address}/${prefix}`).toEqual(expected);
    }
  });

  it('holds no network that the official database lacks', () => {
    for (const [address, prefix] of networksOf(ours)) {
      expect(normalized(officialReader.getWithPrefixLength(address)), `${address}/${prefix}`).toEqual(oursReader.getWithPrefixLength(address));
    }
  });

  it('aliases IPv4-mapped and 6to4 addresses to the IPv4 data as the original does', () => {
    for (const [address, , ipv4] of networksOf(official).filter(([, , v4]) => v4)) {
      expect(ipv4).toBe(true);
      const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
      const sixToFour = `2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::1`;
      for (const alias of [`::ffff:${address}`, sixToFour]) {
        expect(normalized([oursReader.get(alias), 0]), alias).toEqual(normalized([officialReader.get(alias), 0]));
      }
    }
  });
});
