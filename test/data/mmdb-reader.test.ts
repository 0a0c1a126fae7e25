/**
 * @module Our MMDB reader (src/mmdb, which the Worker runs) against mmdb-lib on MaxMind's official
 * test databases, and against MaxMind's deliberately corrupt files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Reader } from 'mmdb-lib';
import { describe, expect, it } from 'vitest';
import { MmdbFormatError } from '../../src/mmdb/decoder.ts';
import { MmdbReader } from '../../src/mmdb/reader.ts';
import { FIXTURES, formatAddress } from '../support/fixtures.ts';

const TEST_DATA = readdirSync(`${FIXTURES}/test-data`).filter((f) => f.endsWith('.mmdb'));
const BAD_DATA = readdirSync(`${FIXTURES}/bad-data`).filter((f) => f.endsWith('.mmdb'));

describe.each(TEST_DATA)('reading %s', (file) => {
  const bytes = readFileSync(`${FIXTURES}/test-data/${file}`);
  const ours = new MmdbReader(bytes);
  const theirs = new Reader(bytes);

  it('reads the same metadata as mmdb-lib', () => {
    expect(ours.metadata.nodeCount).toBe(theirs.metadata.nodeCount);
    expect(ours.metadata.recordSize).toBe(theirs.metadata.recordSize);
    expect(ours.metadata.ipVersion).toBe(theirs.metadata.ipVersion);
    expect(ours.metadata.databaseType).toBe(theirs.metadata.databaseType);
    expect(ours.metadata.languages).toEqual(theirs.metadata.languages);
    expect(new Date(ours.metadata.buildEpoch * 1000)).toEqual(theirs.metadata.buildEpoch);
  });

  it('finds the record and prefix that mmdb-lib finds for every network', () => {
    let networks = 0;
    ours.walk((bytes, prefixLength, offset) => {
      const ipv4 = ours.metadata.ipVersion === 4 || (bytes.subarray(0, 12).every((b) => b === 0) && prefixLength >= 96);
      const address = formatAddress(bytes, ipv4);
      const [data, prefix] = theirs.getWithPrefixLength(address);
      const found = ours.lookup(bytes, ipv4);
      expect(found.offset, address).toBe(offset);
      expect(found.prefixLength, address).toBe(prefix);
      expect(JSON.parse(JSON.stringify(ours.decode(offset), (_k, v) => (typeof v === 'bigint' ? String(v) : v)))).toEqual(
        JSON.parse(JSON.stringify(data, (_k, v) => (typeof v === 'bigint' ? String(v) : v))),
      );
      networks++;
    });
    expect(networks).toBeGreaterThan(0);
  });
});

describe('corrupt databases', () => {
  it.each(BAD_DATA)('rejects %s with a format error, or reads it exactly as mmdb-lib does', (file) => {
    const bytes = readFileSync(`${FIXTURES}/bad-data/${file}`);
    let read: Array<[string, unknown]> | MmdbFormatError;
    try {
      const reader = new MmdbReader(bytes);
      const networks: Array<[string, unknown]> = [];
      const ipv4 = reader.metadata.ipVersion === 4;
      reader.walk((address, _prefix, offset) => networks.push([formatAddress(address, ipv4), reader.decode(offset)]));
      read = networks;
    } catch (error) {
      // Anything but our own format error (a RangeError, a stack overflow, ...) fails the test.
      expect(error).toBeInstanceOf(MmdbFormatError);
      read = error as MmdbFormatError;
    }
    if (!(read instanceof MmdbFormatError)) {
      // libmaxminddb's edge cases that are valid for a careful reader (empty containers last in the
      // metadata, the largest epoch, nodes no path reaches): mmdb-lib must agree on every network.
      const reference = new Reader(bytes);
      expect(read.length).toBeGreaterThan(0);
      for (const [address, data] of read) expect(reference.get(address), address).toEqual(data);
    }
  });

  it('refuses a file without metadata', () => {
    expect(() => new MmdbReader(new Uint8Array(1000))).toThrow(MmdbFormatError);
  });
});
