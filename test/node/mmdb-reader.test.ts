/**
 * @module Our MMDB reader (src/mmdb, which the Worker runs) against mmdb-lib on MaxMind's official
 * test databases, and against MaxMind's deliberately corrupt files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Reader } from 'mmdb-lib';
import Decoder from 'mmdb-lib/lib/decoder';
import { describe, expect, it } from 'vitest';
import { MmdbFormatError, newField } from '../../src/mmdb/decoder.ts';
import { MmdbReader } from '../../src/mmdb/reader.ts';
import { FIXTURES, formatAddress } from '../support/fixtures.ts';

/** The four 32-bit words of 16 bytes, most significant first. */
function words(bytes: Uint8Array): [number, number, number, number] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  return [view.getUint32(0), view.getUint32(4), view.getUint32(8), view.getUint32(12)];
}

const TEST_DATA = readdirSync(`${FIXTURES}/test-data`).filter((f) => f.endsWith('.mmdb'));
const BAD_DATA = readdirSync(`${FIXTURES}/bad-data`).filter((f) => f.endsWith('.mmdb'));

describe.each(TEST_DATA)('reading %s', (file) => {
  const bytes = readFileSync(`${FIXTURES}/test-data/${file}`);
  const ours = new MmdbReader(bytes);
  const theirs = new Reader(bytes);
  const dataStart = (ours.metadata.nodeCount * ours.metadata.recordSize) / 4 + 16;
  const theirDecoder = new Decoder(bytes, dataStart);

  it('reads the same metadata as mmdb-lib', () => {
    expect(ours.metadata.nodeCount).toBe(theirs.metadata.nodeCount);
    expect(ours.metadata.recordSize).toBe(theirs.metadata.recordSize);
    expect(ours.metadata.ipVersion).toBe(theirs.metadata.ipVersion);
    expect(ours.metadata.databaseType).toBe(theirs.metadata.databaseType);
    expect(ours.metadata.languages).toEqual(theirs.metadata.languages);
    expect(new Date(ours.metadata.buildEpoch * 1000)).toEqual(theirs.metadata.buildEpoch);
  });

  it('finds the record that mmdb-lib finds for every network', () => {
    let networks = 0;
    ours.walk((bytes, prefixLength, offset) => {
      const ipv4 = ours.metadata.ipVersion === 4 || (bytes.subarray(0, 12).every((b) => b === 0) && prefixLength >= 96);
      const address = formatAddress(bytes, ipv4);
      const data = theirs.get(address);
      expect(data, address).not.toBeNull();
      // By one 32-bit word for IPv4, by four for IPv6.
      expect(ipv4 ? ours.offsetOfIpv4(words(bytes)[3]) : ours.offsetOfIpv6(...words(bytes)), address).toBe(offset);
      // Walking over a value without decoding it ends where mmdb-lib's decoding of it does.
      expect(ours.data.skip(offset), address).toBe(theirDecoder.decode(dataStart + offset).offset - dataStart);
      expect(JSON.parse(JSON.stringify(ours.decode(offset), (_k, v) => (typeof v === 'bigint' ? String(v) : v)))).toEqual(
        JSON.parse(JSON.stringify(data, (_k, v) => (typeof v === 'bigint' ? String(v) : v))),
      );
      networks++;
    });
    expect(networks).toBeGreaterThan(0);
  });

  it('finds IPv4 addresses through the cached /16 paths: the records mmdb-lib finds for them', () => {
    // Every IPv4 network's first address, then random addresses (most without data in these small files).
    const addresses: number[] = [];
    ours.walk((bytes, prefixLength) => {
      const ipv4 = ours.metadata.ipVersion === 4 || (bytes.subarray(0, 12).every((b) => b === 0) && prefixLength >= 96);
      if (ipv4) addresses.push(new DataView(bytes.buffer, bytes.byteOffset).getUint32(12));
    });
    let seed = 7;
    for (let i = 0; i < 500; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      addresses.push(seed);
    }
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
    const want = addresses.map((address) => {
      const bytes = new Uint8Array(16);
      new DataView(bytes.buffer).setUint32(12, address);
      return plain(theirs.get(formatAddress(bytes, true)));
    });
    const got = addresses.map((address) => {
      const offset = ours.offsetOfIpv4(address);
      return offset < 0 ? null : plain(ours.decode(offset));
    });
    expect(got).toEqual(want);
  });

  it.each([2, 16])('finds IPv6 addresses through a /32 path cache of 2^%i slots: the records mmdb-lib finds', (bits) => {
    if (ours.metadata.ipVersion !== 6) return;
    const cached = new MmdbReader(bytes, bits);
    // Each network's first address, and addresses in the same /32 with random later bits, so that
    // /32s come back after others took their slot (two slots: nearly always) and sit beside each other.
    const addresses: Uint8Array[] = [];
    let seed = 11;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed >>> 24;
    };
    ours.walk((first) => {
      addresses.push(first.slice());
      const near = first.slice();
      for (let i = 4; i < 16; i++) near[i] = random();
      addresses.push(near);
    });
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value ?? null, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
    const want = addresses.map((address) => plain(theirs.get(formatAddress(address, false))));
    for (let pass = 0; pass < 2; pass++) {
      const got = addresses.map((address) => {
        const offset = cached.offsetOfIpv6(...words(address));
        return offset < 0 ? null : plain(cached.decode(offset));
      });
      expect(got).toEqual(want);
    }
  });
});

describe.each(TEST_DATA)('reading %s field by field', (file) => {
  const reader = new MmdbReader(readFileSync(`${FIXTURES}/test-data/${file}`));
  const data = reader.data;

  /** A value read through field(), stringOf() and numberOf() only, as the service's schema readers do. */
  function viaFields(offset: number, depth = 0): unknown {
    const field = data.field(offset, newField());
    switch (field.type) {
      case 2:
        return data.stringOf(field);
      case 3:
      case 5:
      case 6:
      case 8:
      case 15:
        return data.numberOf(field);
      case 9:
      case 10:
        return field.size <= 6 ? data.numberOf(field) : data.decode(field.start);
      case 7: {
        const map: Record<string, unknown> = {};
        let at = field.payload;
        for (let i = 0; i < field.size; i++) {
          const key = data.field(at, newField());
          const value = viaFields(key.next, depth + 1);
          map[data.stringOf(key)] = value;
          at = data.skip(key.next);
        }
        return map;
      }
      case 11: {
        const items: unknown[] = [];
        let at = field.payload;
        for (let i = 0; i < field.size; i++) {
          items.push(viaFields(at, depth + 1));
          at = data.skip(at);
        }
        return items;
      }
      default:
        return data.decode(field.start);
    }
  }

  it('reads every record through field(), target() and skip() as decode() does', () => {
    let records = 0;
    reader.walk((_bytes, _prefix, offset) => {
      expect(viaFields(offset)).toEqual(reader.decode(offset));
      // Where a value is stored, found without reading it, is where field() finds it.
      expect(data.target(offset)).toBe(data.field(offset, newField()).start);
      records++;
    });
    expect(records).toBeGreaterThan(0);
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
      reader.walk((address, _prefix, offset) => {
        networks.push([formatAddress(address, ipv4), reader.decode(offset)]);
        if (ipv4) reader.offsetOfIpv4(words(address)[3]);
        else reader.offsetOfIpv6(...words(address));
        reader.data.skip(offset);
      });
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

  it('refuses an IPv6 path cache it cannot make', () => {
    const bytes = readFileSync(`${FIXTURES}/test-data/${TEST_DATA[0]}`);
    for (const bits of [0, 25, 1.5]) expect(() => new MmdbReader(bytes, bits)).toThrow(RangeError);
  });

  it('refuses a file without metadata', () => {
    expect(() => new MmdbReader(new Uint8Array(1000))).toThrow(MmdbFormatError);
  });
});
