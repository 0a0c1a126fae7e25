/**
 * @module How much address space a list covers, each address counted once however many entries hold
 * it: IPv4 in addresses, IPv6 in /64 networks (the unit an IPv6 network is assigned in). What a list's
 * ceiling (`lists.ts`) and its change from the cached version (`data/update/flag-lists.ts`) are measured in.
 */
import { isIpv4Network, networkContains } from '../../mmdb/network.ts';
import type { Network } from '../../mmdb/search-tree.ts';

/** The space a list covers. */
export interface Coverage {
  /** IPv4 addresses. */
  readonly ipv4: number;
  /** IPv6 /64 networks (fractions for networks longer than a /64). */
  readonly ipv6: number;
}

/** Orders networks by first address, a wider one before those it holds. */
function byAddress(a: Network, b: Network): number {
  for (let i = 0; i < 16; i++) {
    const d = (a.bytes[i] as number) - (b.bytes[i] as number);
    if (d !== 0) return d;
  }
  return a.prefixLength - b.prefixLength;
}

/** The space the networks cover together (CIDR networks nest or are apart, so those held by another are skipped). */
export function coverageOf(networks: readonly Network[]): Coverage {
  let ipv4 = 0;
  let ipv6 = 0;
  let outer: Network | undefined;
  for (const network of [...networks].sort(byAddress)) {
    if (outer !== undefined && networkContains(outer, network)) continue;
    outer = network;
    if (isIpv4Network(network)) ipv4 += 2 ** (128 - network.prefixLength);
    else ipv6 += 2 ** (64 - network.prefixLength);
  }
  return { ipv4, ipv6 };
}

/** A count of addresses as the prefix length of a network that size, for messages: `a /14's worth`. */
export function asPrefix(size: number, family: 4 | 6): string {
  const bits = family === 4 ? 32 : 64;
  const length = bits - Math.log2(size);
  return `a /${Number(length.toFixed(1))}'s worth`;
}
