/**
 * @module Over thousands of seeded random public addresses, every field the service answers agrees
 * with the sources read directly (see `test/support/oracle.ts`), `regionCode` being the source's own
 * ISO 3166-2 subdivision code.
 */
import ipaddr from 'ipaddr.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { isOrdinaryUnicast, SourceOracle } from '../support/oracle.ts';
import { seededRandom } from '../support/seeded-random.ts';
import { workerFetch } from '../support/worker-fetch.ts';

let oracle: SourceOracle;
beforeAll(async () => {
  oracle = await SourceOracle.load();
}, 120_000);

/** Seeded addresses: uniform IPv4, IPv6 inside the ASN file's ranges, and uniform IPv6 in 2000::/3. */
function sample(): string[] {
  const random = seededRandom(20_261_121);
  const addresses: string[] = [];
  while (addresses.length < 3000) {
    const octets = [0, 0, 0, 0].map(() => Math.floor(random() * 256));
    const address = octets.join('.');
    if (isOrdinaryUnicast(address)) addresses.push(address);
  }
  const { starts, ends } = oracle.asn6;
  const toText = (n: bigint) => ipaddr.fromByteArray(Array.from({ length: 16 }, (_, i) => Number((n >> BigInt(8 * (15 - i))) & 0xffn))).toString();
  let inRanges = 0;
  while (inRanges < 1000) {
    const row = Math.floor(random() * starts.length);
    const start = starts[row] as bigint;
    const span = (ends[row] as bigint) - start;
    const offset = (BigInt(Math.floor(random() * 2 ** 32)) * BigInt(Math.floor(random() * 2 ** 32))) % (span + 1n);
    const address = toText(start + offset);
    // 2002::/16 (6to4) is answered from the embedded IPv4 address (a documented alias), not from IPv6 rows.
    if (isOrdinaryUnicast(address)) {
      addresses.push(address);
      inRanges++;
    }
  }
  for (let i = 0; i < 500; i++) {
    const groups = Array.from({ length: 8 }, (_, g) => (Math.floor(random() * 0x10000) & (g === 0 ? 0x1fff : 0xffff)) | (g === 0 ? 0x2000 : 0));
    const address = ipaddr.parse(groups.map((g) => g.toString(16)).join(':')).toString();
    if (isOrdinaryUnicast(address)) addresses.push(address);
  }
  return addresses;
}

describe('a random sample of public addresses', () => {
  it('answers every field as the sources say', async () => {
    const addresses = sample();
    const tally = { found: 0, notFound: 0, reserved: 0, coded: 0, regions: 0 };
    for (const [index, address] of addresses.entries()) {
      // A client address (198.18.0.0/15) per ten requests, the free plan's burst quota, so that its rate
      // limit never bites; not one per request, since each client is a rate-limit Durable Object to create.
      const slot = Math.floor(index / 10);
      const client = `198.${18 + (slot >> 16)}.${(slot >> 8) & 0xff}.${slot & 0xff}`;
      const response = await workerFetch(`http://free.test/api/v1/json/${address}`, { headers: { 'CF-Connecting-IP': client } });
      const body = (await response.json()) as Record<string, unknown>;
      const expected = oracle.expected(address);
      if (response.status === 400 && body.code === 'IP_ADDRESS_RESERVED') {
        // ipaddr.js knows fewer special-purpose blocks than the service (e.g. 6to4 relay anycast).
        tally.reserved++;
        continue;
      }
      if (expected === undefined) {
        expect([response.status, body.code], address).toEqual([404, 'IP_ADDRESS_NOT_FOUND']);
        tally.notFound++;
        continue;
      }
      expect(response.status, address).toBe(200);
      expect(body, address).toEqual(expected);
      if (expected.regionName) tally.regions++;
      if (expected.regionCode) tally.coded++;
      tally.found++;
    }
    console.log(`sample of ${addresses.length}:`, tally);
    expect(tally.found).toBeGreaterThan(3000);
    expect(tally.notFound).toBeGreaterThan(100);
    expect(tally.reserved).toBeLessThan(addresses.length / 100);
    // The source codes every subdivision it names, so every region of the sample has its code.
    expect(tally.coded).toBe(tally.regions);
    expect(tally.regions).toBeGreaterThan(1000);
  }, 300_000);
});
