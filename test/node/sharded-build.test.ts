/**
 * @module `data:build --shards N` on MaxMind's test databases: N files whose ranges tile the address
 * space, each a valid MaxMind DB (read with mmdb-lib, an independent reader) that answers exactly the
 * whole build's record for every address whose position is in its range (IPv4, IPv4-mapped, 6to4 and
 * IPv4-compatible forms included) and nothing for any other; the manifest names them; a build of
 * another N replaces them. Positions and ranges are worked out here with bigints from ipaddr.js.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { Reader } from 'mmdb-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { type BuildOptions, build } from '../../data/build.ts';
import type { Manifest } from '../../data/output.ts';
import { budgetFit, MEMORY_MODEL } from '../../src/geo/budget.ts';
import { readMetadata } from '../../src/mmdb/metadata.ts';
import { MmdbReader } from '../../src/mmdb/reader.ts';
import { FIXTURES } from '../support/fixtures.ts';
import { seededRandom } from '../support/seeded-random.ts';

const MAX = (1n << 128n) - 1n;
const testData = (name: string) => join(FIXTURES, 'test-data', name);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const bytesOf = (value: bigint): number[] => Array.from({ length: 16 }, (_, i) => Number((value >> BigInt(8 * (15 - i))) & 0xffn));
const ipv6Text = (value: bigint) => (ipaddr.fromByteArray(bytesOf(value)) as ipaddr.IPv6).toRFC5952String();
const ipv4Text = (value: bigint) => ipaddr.fromByteArray(bytesOf(value).slice(12)).toString();
/** The 128 bits of address text; a dotted tail as hex first, as ipaddr.js would read `::a.b.c.d` as IPv4-mapped. */
const bitsOf = (text: string) => {
  const parsed = ipaddr.parse(
    text.replace(
      /:(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
      (_, a, b, c, d) => `:${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
    ),
  );
  return (parsed.kind() === 'ipv4' ? [...new Array(12).fill(0), ...parsed.toByteArray()] : parsed.toByteArray()).reduce(
    (sum, b) => (sum << 8n) | BigInt(b),
    0n,
  );
};
/** Where the tree answers an address's text from: IPv4 and IPv4-mapped at ::a.b.c.d, 6to4 at the IPv4 address it embeds. */
function positionOf(text: string): bigint {
  const value = bitsOf(text);
  if (value >> 32n === 0xffffn) return value & 0xffffffffn;
  if (value >> 112n === 0x2002n) return (value >> 80n) & 0xffffffffn;
  return value;
}

describe('data:build --shards 3', () => {
  const proxies = join(mkdtempSync(join(tmpdir(), 'ipgeo-shards-')), 'exits.txt');
  writeFileSync(proxies, '81.2.69.160/27\n2a02:d3c0::/29\n');
  const options: BuildOptions = {
    maxmindCity: testData('GeoIP2-City-Test.mmdb'),
    maxmindAsn: testData('GeoLite2-ASN-Test.mmdb'),
    maxmindAnonymousIp: testData('GeoIP2-Anonymous-IP-Test.mmdb'),
    proxyLists: [proxies],
  };
  const wholeDir = mkdtempSync(join(tmpdir(), 'ipgeo-whole-'));
  const shardDir = mkdtempSync(join(tmpdir(), 'ipgeo-shards-'));
  let manifest: Manifest;
  let whole: Reader<Record<string, unknown>>;
  let shards: { reader: Reader<Record<string, unknown>>; first: bigint; last: bigint; bytes: Buffer }[];

  beforeAll(() => {
    build({ ...options, shards: 1 }, () => {}, wholeDir);
    // A build of one shard there before: the sharded build replaces it.
    build({ ...options, shards: 1 }, () => {}, shardDir);
    manifest = build({ ...options, shards: 3 }, () => {}, shardDir);
    whole = new Reader(readFileSync(join(wholeDir, 'ipgeo.mmdb')));
    shards = manifest.shards.map((shard) => {
      const bytes = readFileSync(join(shardDir, shard.file));
      return { reader: new Reader(bytes), first: bitsOf(shard.first), last: bitsOf(shard.last), bytes };
    });
  });

  it('writes three files and a manifest naming each with its range, size and SHA-256, and removes the build of one', () => {
    expect(readdirSync(shardDir).sort()).toEqual([
      'ipgeo.asn',
      'ipgeo.manifest.json',
      'ipgeo.shard-0-of-3.mmdb',
      'ipgeo.shard-1-of-3.mmdb',
      'ipgeo.shard-2-of-3.mmdb',
    ]);
    expect(manifest.output).toBeUndefined();
    expect(JSON.parse(readFileSync(join(shardDir, 'ipgeo.manifest.json'), 'utf8'))).toEqual(manifest);
    manifest.shards.forEach((shard, k) => {
      expect(shard.index).toBe(k);
      expect(shard.bytes).toBe(shards[k]?.bytes.length);
      expect(shard.sha256).toBe(sha256(shards[k]?.bytes ?? new Uint8Array()));
    });
  });

  it('names its version by its locations’ build date and the SHA-256 of the files’ SHA-256s', () => {
    const digest = sha256(Buffer.from(manifest.shards.map((shard) => `${shard.sha256}\n`).join('')));
    const date = new Reader(readFileSync(testData('GeoIP2-City-Test.mmdb'))).metadata.buildEpoch.toISOString().slice(0, 10);
    expect(manifest.version).toBe(`${date}.${digest.slice(0, 8)}`);
  });

  it('has ranges that cover the whole address space without overlap, in RFC 5952 text', () => {
    expect(shards[0]?.first).toBe(0n);
    expect(shards.at(-1)?.last).toBe(MAX);
    for (let k = 0; k + 1 < shards.length; k++) expect(shards[k + 1]?.first).toBe((shards[k]?.last ?? 0n) + 1n);
    for (const shard of shards) expect(shard.first).toBeLessThanOrEqual(shard.last);
    for (const { first, last } of manifest.shards) {
      for (const text of [first, last]) {
        const value = bitsOf(text);
        const embedded = value > 0n && (value >> 32n === 0n || value >> 32n === 0xffffn);
        expect(text).toBe(embedded ? `::${value >> 32n ? 'ffff:' : ''}${ipv4Text(value)}` : ipv6Text(value));
      }
    }
  });

  it('makes each file a valid MaxMind DB of the compact schema, with its shard in the metadata', () => {
    const wholeMetadata = whole.metadata;
    manifest.shards.forEach((shard, k) => {
      const { metadata } = shards[k]?.reader ?? whole;
      expect(metadata.databaseType).toBe(wholeMetadata.databaseType);
      expect(metadata.ipVersion).toBe(6);
      expect(metadata.languages).toEqual(wholeMetadata.languages);
      expect(metadata.buildEpoch).toEqual(wholeMetadata.buildEpoch);
      expect(readMetadata(shards[k]?.bytes ?? new Uint8Array()).map.shard).toEqual({ index: k, count: 3, first: shard.first, last: shard.last });
    });
    expect(readMetadata(readFileSync(join(wholeDir, 'ipgeo.mmdb'))).map.shard).toBeUndefined();
  });

  it('holds no network outside its range', () => {
    for (const shard of shards) {
      new MmdbReader(shard.bytes).walk((bytes, prefixLength) => {
        const start = Array.from(bytes).reduce((sum, b) => (sum << 8n) | BigInt(b), 0n);
        const end = start + (1n << BigInt(128 - prefixLength)) - 1n;
        expect(start >= shard.first && end <= shard.last, `${ipv6Text(start)}/${prefixLength}`).toBe(true);
      });
    }
  });

  it('answers exactly the whole build’s record for every address in its range, and nothing outside it', () => {
    // Every network's ends and neighbours, every range's ends and neighbours, and random addresses.
    const values = new Set<bigint>();
    new MmdbReader(readFileSync(join(wholeDir, 'ipgeo.mmdb'))).walk((bytes, prefixLength) => {
      const start = Array.from(bytes).reduce((sum, b) => (sum << 8n) | BigInt(b), 0n);
      for (const v of [start - 1n, start, start + (1n << BigInt(128 - prefixLength)) - 1n, start + (1n << BigInt(128 - prefixLength))]) values.add(v);
    });
    for (const shard of shards) for (const v of [shard.first - 1n, shard.first, shard.last, shard.last + 1n]) values.add(v);
    const random = seededRandom(30);
    const word = () => BigInt(Math.floor(random() * 2 ** 32));
    for (let i = 0; i < 2000; i++) values.add(i % 2 ? word() : (word() << 96n) | (word() << 64n) | (word() << 32n) | word());
    const texts: string[] = [];
    for (const value of [...values].filter((v) => v >= 0n && v <= MAX)) {
      texts.push(ipv6Text(value));
      if (value >> 32n !== 0n) continue;
      // The IPv4 forms of an address at ::a.b.c.d: dotted, IPv4-mapped, 6to4 (any interface id), IPv4-compatible.
      const tail = word() & 0xffffn;
      texts.push(ipv4Text(value), `::ffff:${ipv4Text(value)}`, ipv6Text((0x2002n << 112n) | (value << 80n) | tail), `::${ipv4Text(value)}`);
    }
    let answered = 0;
    for (const text of texts) {
      const position = positionOf(text);
      const owner = shards.findIndex((shard) => shard.first <= position && position <= shard.last);
      // The whole build's record at that position: what it answers for the IPv4 address a 6to4 or mapped one embeds.
      const expected = whole.get(position >> 32n === 0n ? ipv4Text(position) : ipv6Text(position));
      if (expected !== null) answered++;
      shards.forEach((shard, k) => {
        expect(shard.reader.get(text), `${text} from shard ${k} (its owner: ${owner})`).toEqual(k === owner ? expected : null);
      });
    }
    // Enough of them found something: the comparison is not one of empty answers.
    expect(answered).toBeGreaterThan(texts.length / 4);
  });

  it('leaves out --shards under a budget one file does not fit: the fewest shards that fit, the same files as --shards of that number', () => {
    const size = readFileSync(join(wholeDir, 'ipgeo.mmdb')).length;
    // A budget whose largest file is three quarters of the whole one (src/geo/budget.ts's model).
    const budgetBytes =
      MEMORY_MODEL.fixedBytes + MEMORY_MODEL.cacheBytes + MEMORY_MODEL.asnBytes + Math.ceil(MEMORY_MODEL.perFileByte * Math.floor(size * 0.75));
    expect(budgetFit(size, budgetBytes).fits).toBe(false);
    const dir = mkdtempSync(join(tmpdir(), 'ipgeo-fewest-'));
    const fewest = build({ ...options, budgetBytes }, () => {}, dir);
    expect(fewest.shards.length).toBe(2);
    for (const shard of fewest.shards) expect(budgetFit(shard.bytes, budgetBytes).fits).toBe(true);
    const named = build({ ...options, shards: 2 }, () => {}, mkdtempSync(join(tmpdir(), 'ipgeo-two-')));
    expect(fewest.shards).toEqual(named.shards);
    expect(fewest.version).toBe(named.version);
  });

  it('leaves out --shards: the fewest that fit, one file for a database that fits whole, as the build of one shard', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ipgeo-default-'));
    const fewest = build(options, () => {}, dir);
    expect(fewest.shards.map((shard) => shard.file)).toEqual(['ipgeo.mmdb']);
    expect(readFileSync(join(dir, 'ipgeo.mmdb')).equals(readFileSync(join(wholeDir, 'ipgeo.mmdb')))).toBe(true);
    expect(existsSync(join(dir, 'ipgeo.shard-0-of-3.mmdb'))).toBe(false);
  });
});
