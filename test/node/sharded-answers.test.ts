/**
 * @module The shards' equality (docs/sharding.md, "Serving"): a build of 3 shards, each address answered by the shard `shardIndexOf`
 * picks, answers every document (every field, JSON and XML, single and bulk, positions, every language)
 * exactly as the build of one file of the same sources does, over {@link ADDRESSES} seeded addresses: inside the
 * data's networks (as written, IPv4-mapped and 6to4), and uniform over IPv4 and over 2000::/3.
 * The sources are MaxMind's test databases, a proxy list and the Anonymous-IP test database.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { type BuildOptions, build } from '../../data/build.ts';
import { GeoDatabase } from '../../src/geo/database.ts';
import { MmdbReader } from '../../src/mmdb/reader.ts';
import { FIXTURES } from '../support/fixtures.ts';
import { seededRandom } from '../support/seeded-random.ts';
import { compareAnswers, openShards } from '../support/sharded-answers.ts';

/** Many times each network of the small test data: more adds time, not cases (`npm run bench:shards` runs 100,000 over the default data). */
const ADDRESSES = 20_000;
const testData = (name: string) => join(FIXTURES, 'test-data', name);
const textOf = (value: bigint): string => {
  const bytes = Array.from({ length: 16 }, (_, i) => Number((value >> BigInt(8 * (15 - i))) & 0xffn));
  return (ipaddr.fromByteArray(bytes) as ipaddr.IPv6).toRFC5952String();
};
const ipv4Of = (value: bigint) => [24n, 16n, 8n, 0n].map((shift) => (value >> shift) & 0xffn).join('.');

/** `count` seeded addresses: 60% inside the networks of `whole` (IPv4 ones also IPv4-mapped and 6to4), 20% uniform IPv4, 20% uniform in 2000::/3. */
function sample(whole: Uint8Array, count: number): string[] {
  const networks: { start: bigint; size: bigint }[] = [];
  new MmdbReader(whole).walk((bytes, prefixLength) => {
    networks.push({ start: Array.from(bytes).reduce((sum, b) => (sum << 8n) | BigInt(b), 0n), size: 1n << BigInt(128 - prefixLength) });
  });
  const random = seededRandom(30_300);
  const word = () => BigInt(Math.floor(random() * 2 ** 32));
  const below = (size: bigint) => ((word() << 96n) | (word() << 64n) | (word() << 32n) | word()) % size;
  const texts: string[] = [];
  while (texts.length < count) {
    const kind = random();
    if (kind < 0.6) {
      const network = networks[Math.floor(random() * networks.length)] as { start: bigint; size: bigint };
      const value = network.start + below(network.size);
      if (value >> 32n !== 0n) texts.push(textOf(value));
      else {
        const form = random();
        texts.push(form < 0.5 ? ipv4Of(value) : form < 0.75 ? `::ffff:${ipv4Of(value)}` : textOf((0x2002n << 112n) | (value << 80n) | word()));
      }
    } else if (kind < 0.8) texts.push(ipv4Of(word()));
    else texts.push(textOf((1n << 125n) | below(1n << 125n)));
  }
  return texts;
}

describe('the answers of 3 shards', () => {
  it(`equal the answers of one file for ${ADDRESSES} addresses, every document, every language`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'ipgeo-equal-'));
    const proxies = join(dir, 'exits.txt');
    writeFileSync(proxies, '81.2.69.160/27\n2a02:d3c0::/29\n89.160.20.112/28\n');
    const options: BuildOptions = {
      maxmindCity: testData('GeoIP2-City-Test.mmdb'),
      maxmindAsn: testData('GeoLite2-ASN-Test.mmdb'),
      maxmindAnonymousIp: testData('GeoIP2-Anonymous-IP-Test.mmdb'),
      proxyLists: [proxies],
    };
    const [oneDir, threeDir] = [join(dir, 'one'), join(dir, 'three')];
    build({ ...options, shards: 1 }, () => {}, oneDir);
    const manifest = build({ ...options, shards: 3 }, () => {}, threeDir);
    const wholeBytes = readFileSync(join(oneDir, 'ipgeo.mmdb'));
    const sharded = openShards(manifest.shards.map((shard) => ({ ...shard, bytes: readFileSync(join(threeDir, shard.file)) })));
    const texts = sample(wholeBytes, ADDRESSES);

    const result = compareAnswers(new GeoDatabase(wholeBytes), sharded, texts);

    expect(result.differences).toEqual([]);
    expect(result.addresses).toBe(ADDRESSES);
    // Most found a record: the comparison is not one of empty answers.
    expect(result.found).toBeGreaterThan(ADDRESSES / 2);
    // Every shard answered a share of them: the routing is exercised, not one shard for everything.
    for (const answered of result.perShard) expect(answered).toBeGreaterThan(ADDRESSES / 100);
  }, 180_000);
});
