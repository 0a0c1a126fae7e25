/**
 * @module The benchmark's addresses: the same seeded sample on every run, so that every reader and
 * every run answers exactly the same questions.
 *
 * - IPv4: uniform over the 32-bit space, special-purpose ranges (`src/ip/special-ranges.ts`) skipped,
 *   so every address is one the service would look up.
 * - IPv6: uniform inside a uniformly chosen row of `@ip-location-db/asn`'s IPv6 ranges (announced
 *   space; uniform over 2000::/3 would almost never hit data), special-purpose ranges skipped.
 *
 * Addresses are canonical text (dotted quad; RFC 5952), the form clients and the routes pass around.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import ipaddr from 'ipaddr.js';
import { specialRangeOf } from '../src/ip/special-ranges.ts';
import { seededRandom } from '../test/support/seeded-random.ts';

/** The seed of the sample; change it and every figure of BENCHMARKS.md changes with it. */
export const SEED = 20_261_121;

/** Whether the service would look the address up (its bytes in the IPv6 space, IPv4 at ::a.b.c.d). */
const isPublic = (version: 4 | 6, bytes: Uint8Array): boolean => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  const [w0, w1, w2, w3] = [0, 4, 8, 12].map((at) => view.getUint32(at)) as [number, number, number, number];
  return specialRangeOf({ version, canonical: '', w0, w1, w2, w3 }) === undefined;
};

/** `count` public IPv4 addresses, uniform over the address space. */
export function randomIpv4(count: number, seed = SEED): string[] {
  const random = seededRandom(seed);
  const out: string[] = [];
  const bytes = new Uint8Array(16);
  while (out.length < count) {
    const n = Math.floor(random() * 2 ** 32);
    bytes[12] = n >>> 24;
    bytes[13] = (n >>> 16) & 0xff;
    bytes[14] = (n >>> 8) & 0xff;
    bytes[15] = n & 0xff;
    if (isPublic(4, bytes)) out.push(bytes.subarray(12).join('.'));
  }
  return out;
}

/** `count` public IPv6 addresses inside announced ranges (see the module header). */
export function randomIpv6(count: number, seed = SEED + 1): string[] {
  const require = createRequire(import.meta.url);
  const csv = readFileSync(require.resolve('@ip-location-db/asn/asn-ipv6.csv'), 'utf8');
  const starts: bigint[] = [];
  const spans: bigint[] = [];
  for (const line of csv.split('\n')) {
    const comma = line.indexOf(',');
    if (comma < 0) continue;
    const second = line.indexOf(',', comma + 1);
    const start = toBigInt(line.slice(0, comma));
    starts.push(start);
    spans.push(toBigInt(line.slice(comma + 1, second)) - start + 1n);
  }
  const random = seededRandom(seed);
  const out: string[] = [];
  const bytes = new Uint8Array(16);
  while (out.length < count) {
    const row = Math.floor(random() * starts.length);
    const span = spans[row] as bigint;
    let r = 0n;
    for (let i = 0; i < 4; i++) r = (r << 32n) | BigInt(Math.floor(random() * 2 ** 32));
    const hex = ((starts[row] as bigint) + (r % span)).toString(16).padStart(32, '0');
    for (let i = 0; i < 16; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    // IPv4-mapped addresses are answered as IPv4; keep the IPv6 sample IPv6.
    const mapped = bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
    if (!mapped && isPublic(6, bytes)) out.push(ipaddr.fromByteArray(Array.from(bytes)).toString());
  }
  return out;
}

function toBigInt(text: string): bigint {
  return ipaddr
    .parse(text)
    .toByteArray()
    .reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
}

/**
 * The HTTP benchmarks' address mix: five IPv4 addresses to one IPv6, `ipv6Count` × 6 in all, from
 * the samples of seeds `ipv4Seed` and `ipv6Seed`.
 *
 * @returns a function giving them in turn, starting again after the last.
 */
export function addressCycle(ipv6Count: number, ipv4Seed: number, ipv6Seed: number): () => string {
  const ipv4 = randomIpv4(ipv6Count * 5, ipv4Seed);
  const ipv6 = randomIpv6(ipv6Count, ipv6Seed);
  const all: string[] = [];
  for (let i = 0; i < ipv6.length; i++) all.push(...ipv4.slice(i * 5, i * 5 + 5), ipv6[i] as string);
  let next = 0;
  return () => all[next++ % all.length] as string;
}

/**
 * Free-plan client addresses (`CF-Connecting-IP`) in 11.0.0.0/8, or with `family` 6 in 2a0b::/16, one
 * /64 in each /48 (public, and far from anything the tests use), each given `requestsPerClient` times
 * before the next.
 */
export function clientCycle(requestsPerClient: number, family: 4 | 6 = 4): () => string {
  let request = 0;
  return () => {
    const n = Math.floor(request++ / requestsPerClient);
    if (family === 6) return `2a0b:${((n >> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}:1::1`;
    return `11.${(n >> 16) & 0xff}.${(n >> 8) & 0xff}.${n & 0xff}`;
  };
}
