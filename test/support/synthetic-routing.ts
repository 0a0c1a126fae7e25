/**
 * @module Small GeoLite2-ASN-shaped routing sources for the diff gate's tests: 1.0.0.0 to 64.255.255.255
 * in 16,384 /16s and 2a00::/12 in 4,096 /24s, each held by one of 512 private-use ASNs (RFC 6996), and
 * the next "release", in which chosen shares of the networks change hands, new ASNs appear, two ASNs
 * disappear (their networks go to the next ASN) and some are renamed, as routing changes between two
 * refreshes; or in which one ASN takes a whole /8. Each network's holder is a function of its index, so a
 * test knows what changed without reading a build.
 */
import { writeFileSync } from 'node:fs';
import { parseNetwork } from '../../data/mmdb/network.ts';
import { MmdbWriter } from './mmdb-writer.ts';

/** IPv4 /16s (from 1.0.0.0) and IPv6 /24s (from 2a00::) routed. */
export const ROUTED = { ipv4: 64 * 256, ipv6: 4096 } as const;

/** The ASNs of the base release: 64512 to 65023, of the private-use range 64512 to 65534. */
const FIRST_ASN = 64_512;
const ASNS = 512;

/** What the next release changes. */
export interface RoutingChanges {
  /** The share of networks (0 to 1) that go to the next ASN. */
  readonly moved: number;
  /** The share of networks taken by {@link NEW_ASNS} ASNs that were not there. */
  readonly appeared: number;
  /** ASNs of the base that hold nothing now: their networks go to the next ASN. */
  readonly disappeared: readonly number[];
  /** The share of ASNs renamed. */
  readonly renamed: number;
  /** One ASN that takes every /16 of the /8 starting at `firstOctet`. */
  readonly hijack?: { readonly asn: number; readonly firstOctet: number };
}

/** The ASNs that appear in a release with `appeared`. */
export const NEW_ASNS = [65_100, 65_101, 65_102] as const;

/** Routing changes about as large as a refresh brings: half a percent of networks moved, a few ASNs in and out, 2% renamed. */
export const REROUTED: RoutingChanges = { moved: 0.005, appeared: 0.001, disappeared: [64_520, 64_777], renamed: 0.02 };

/** The base routing with AS64600 taking 40.0.0.0/8, which 16 other ASNs hold in the base: what a hijack in the source looks like. */
export const HIJACKED: RoutingChanges = { moved: 0, appeared: 0, disappeared: [], renamed: 0, hijack: { asn: 64_600, firstOctet: 40 } };

/** A fixed number in [0, 1) for an index and a purpose. */
function fate(index: number, salt: number): number {
  return ((Math.imul(index + 1 + salt * 7919, 2654435761) >>> 0) % 100_000) / 100_000;
}

/** The ASN after `asn` in the base's ring of ASNs. */
const nextAsn = (asn: number) => FIRST_ASN + ((asn - FIRST_ASN + 1) % ASNS);

/** The ASN holding network `index` of a family in the base, or in the next release with `changes`. */
export function holderOf(family: 'ipv4' | 'ipv6', index: number, changes?: RoutingChanges): number {
  let asn = FIRST_ASN + ((index * (family === 'ipv4' ? 37 : 11)) % ASNS);
  if (changes === undefined) return asn;
  if (changes.hijack && family === 'ipv4' && index >> 8 === changes.hijack.firstOctet - 1) return changes.hijack.asn;
  const salt = family === 'ipv4' ? 0 : 1;
  if (fate(index, salt) < changes.appeared) return NEW_ASNS[index % NEW_ASNS.length] as number;
  if (fate(index, salt + 2) < changes.moved) asn = nextAsn(asn);
  while (changes.disappeared.includes(asn)) asn = nextAsn(asn);
  return asn;
}

/** The organisation of `asn` in the base, or in the next release with `changes`. */
export function organizationOf(asn: number, changes?: RoutingChanges): string {
  const renamed = changes !== undefined && fate(asn, 5) < changes.renamed;
  return renamed ? `Synthetic Networks ${asn} (renamed)` : `Synthetic Networks ${asn}`;
}

/** The network of `index` in a family: 1.0.0.0/16 onwards, or 2a00::/24 onwards. */
function routedNetwork(family: 'ipv4' | 'ipv6', index: number): string {
  return family === 'ipv4' ? `${1 + (index >> 8)}.${index & 255}.0.0/16` : `2a0${(index >> 8).toString(16)}:${(index & 255).toString(16)}00::/24`;
}

/** Writes the base routing, or the next release with `changes`, as a GeoLite2-ASN database to `path`. */
export function writeRouting(path: string, changes?: RoutingChanges): void {
  const writer = new MmdbWriter({ ipVersion: 6, databaseType: 'GeoLite2-ASN', languages: ['en'], buildEpoch: Date.UTC(2026, 8, changes ? 18 : 15) / 1000 });
  for (const family of ['ipv4', 'ipv6'] as const) {
    for (let index = 0; index < ROUTED[family]; index++) {
      const asn = holderOf(family, index, changes);
      writer.insert(parseNetwork(routedNetwork(family, index)), {
        autonomous_system_number: asn,
        autonomous_system_organization: organizationOf(asn, changes),
      });
    }
  }
  writeFileSync(path, writer.build());
}
