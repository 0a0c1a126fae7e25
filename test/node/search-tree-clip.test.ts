/**
 * @module `SearchTree.clip`, which makes a shard's tree: for any networks and any range (its ends
 * anywhere, not only on prefixes), the clipped tree holds exactly what the tree holds inside the range,
 * nothing outside it, and nothing in the IPv4-alias regions, which `finalize` aliases again. The oracle
 * is plain arithmetic on 128-bit bigints.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SearchTree } from '../../data/mmdb/search-tree.ts';

const MAX = (1n << 128n) - 1n;
const bytesOf = (value: bigint): Uint8Array => Uint8Array.from({ length: 16 }, (_, i) => Number((value >> BigInt(8 * (15 - i))) & 0xffn));
const MAPPED = { first: 0xffffn << 32n, last: (0xffffn << 32n) | 0xffffffffn };
const SIX_TO_FOUR = { first: 0x2002n << 112n, last: (0x2003n << 112n) - 1n };
const within = (value: bigint, range: { first: bigint; last: bigint }) => range.first <= value && value <= range.last;

/** A network as its first address and prefix length, the address cut to the prefix. */
const network = fc
  .tuple(
    fc.oneof(
      fc.bigInt({ min: 0n, max: MAX }),
      fc.bigInt({ min: 0n, max: 0xffffffffn }),
      fc.bigInt({ min: 0n, max: 0xffffffffn }).map((v) => MAPPED.first | v),
      fc.bigInt({ min: SIX_TO_FOUR.first, max: SIX_TO_FOUR.last }),
    ),
    fc.oneof(fc.integer({ min: 1, max: 128 }), fc.integer({ min: 96, max: 128 }), fc.integer({ min: 1, max: 20 })),
  )
  .map(([address, prefixLength]) => {
    const mask = prefixLength === 128 ? MAX : MAX ^ ((1n << BigInt(128 - prefixLength)) - 1n);
    return { first: address & mask, prefixLength, last: (address & mask) | (MAX ^ mask) };
  });

describe('SearchTree.clip', () => {
  it('keeps exactly the data inside the range, outside the IPv4-alias regions', () => {
    fc.assert(
      fc.property(
        fc.array(network, { minLength: 1, maxLength: 30 }),
        fc.tuple(fc.bigInt({ min: 0n, max: MAX }), fc.bigInt({ min: 0n, max: MAX })),
        fc.array(fc.bigInt({ min: 0n, max: MAX }), { maxLength: 20 }),
        (networks, [a, b], extra) => {
          const range = a <= b ? { first: a, last: b } : { first: b, last: a };
          const tree = new SearchTree();
          // The oracle: the last network inserted over an address holds it.
          for (const [id, n] of networks.entries()) tree.insert({ bytes: bytesOf(n.first), prefixLength: n.prefixLength }, id);
          const expected = (address: bigint) => {
            if (!within(address, range) || within(address, MAPPED) || within(address, SIX_TO_FOUR)) return undefined;
            const holder = networks.findLastIndex((n) => within(address, n));
            return holder < 0 ? undefined : holder;
          };
          const clipped = tree.clip(bytesOf(range.first), bytesOf(range.last));
          const probes = [
            range.first,
            range.last,
            range.first - 1n,
            range.last + 1n,
            ...networks.flatMap((n) => [n.first, n.last, n.first - 1n, n.last + 1n]),
            ...extra,
          ];
          for (const address of probes.filter((p) => p >= 0n && p <= MAX)) {
            expect(clipped.get(bytesOf(address)), `${address.toString(16)} of ${range.first.toString(16)}..${range.last.toString(16)}`).toBe(expected(address));
            // The tree clipped is left as it was.
            expect(tree.get(bytesOf(address))).toBe(
              networks.findLastIndex((n) => within(address, n)) < 0 ? undefined : networks.findLastIndex((n) => within(address, n)),
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('clips a finalized tree, its alias regions skipped, and the clipped tree aliases IPv4 again', () => {
    const tree = new SearchTree();
    tree.insert({ bytes: bytesOf(0x51020000n), prefixLength: 112 }, 1); // ::81.2.0.0/16
    tree.insert({ bytes: bytesOf(0x20010db8n << 96n), prefixLength: 32 }, 2); // 2001:db8::/32
    tree.finalize({ aliasIpv4: true, rootDepth: 0 });
    const clipped = tree.clip(bytesOf(0x51028000n), bytesOf(MAX));
    expect(clipped.get(bytesOf(0x51028000n))).toBe(1);
    expect(clipped.get(bytesOf(0x51027fffn))).toBeUndefined();
    expect(clipped.get(bytesOf(0x20010db8n << 96n))).toBe(2);
    // The alias regions hold nothing until the clipped tree is finalized.
    expect(clipped.get(bytesOf(MAPPED.first | 0x51028000n))).toBeUndefined();
    expect(clipped.get(bytesOf(SIX_TO_FOUR.first | (0x51028000n << 80n)))).toBeUndefined();
    clipped.finalize({ aliasIpv4: true, rootDepth: 0 });
    expect(clipped.get(bytesOf(MAPPED.first | 0x51028000n))).toBe(1);
    expect(clipped.get(bytesOf(SIX_TO_FOUR.first | (0x51028000n << 80n)))).toBe(1);
    expect(clipped.get(bytesOf(SIX_TO_FOUR.first | (0x51027fffn << 80n)))).toBeUndefined();
  });
});
