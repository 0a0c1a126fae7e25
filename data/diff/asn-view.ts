/**
 * @module A build's ASN object as `data:diff` compares it: verified whole and decoded as `data:publish`
 * verifies it (`data/publish/asn-check.ts`, with the layout's own reader), then kept as every ASN's
 * totals, countries and merged ranges (IPv4 addresses, IPv6 /64 networks), beside a table of every
 * prefix for lookups of single addresses (`prefix-table.ts`).
 */
import type { AsnCountry, AsnPage } from '../../src/geo/asn-layout.ts';
import { dottedQuad, type IpAddress, parseIp } from '../../src/ip/address.ts';
import { verifyAsnObject } from '../publish/asn-check.ts';
import type { PublicationAsn } from '../publish/asn-object.ts';
import { PrefixTable } from './prefix-table.ts';

/** One ASN of an object. */
export interface AsnHolding {
  readonly organization: string;
  /** IPv4 addresses and IPv6 /64 networks it holds, as the object gives them. */
  readonly addresses: { readonly ipv4: number; readonly ipv6: number };
  readonly prefixes: { readonly ipv4: number; readonly ipv6: number };
  /** Where the build places its addresses, largest first (`code` null: in no country). */
  readonly countries: readonly AsnCountry[];
  /** Its ranges, merged where they touch, in address order, as inclusive pairs: IPv4 addresses; IPv6 /64 networks (an address's first 64 bits). */
  readonly ipv4: readonly number[];
  readonly ipv6: readonly bigint[];
}

/** What an object holds in all: ASNs, their prefixes of each family, and the IPv4 addresses and IPv6 /64s they hold (summed over ASNs). */
export interface AsnTotals {
  readonly asns: number;
  readonly prefixes: { readonly ipv4: number; readonly ipv6: number };
  readonly addresses: { readonly ipv4: number; readonly ipv6: number };
}

/** A build's ASN object, read. */
export interface AsnView {
  readonly asns: ReadonlyMap<number, AsnHolding>;
  readonly totals: AsnTotals;
  /** Every prefix of every ASN, for lookups of single addresses. */
  readonly table: PrefixTable;
}

/** Appends the inclusive IPv4 range `first`..`last` to `ranges` (pairs in address order), merged with the last when they touch. */
function extendIpv4(ranges: number[], first: number, last: number): void {
  const end = ranges.length - 1;
  if (end > 0 && first <= (ranges[end] as number) + 1) ranges[end] = Math.max(ranges[end] as number, last);
  else ranges.push(first, last);
}

/** {@link extendIpv4} for /64 networks. */
function extendIpv6(ranges: bigint[], first: bigint, last: bigint): void {
  const end = ranges.length - 1;
  if (end > 0 && first <= (ranges[end] as bigint) + 1n) {
    if (last > (ranges[end] as bigint)) ranges[end] = last;
  } else {
    ranges.push(first, last);
  }
}

/** The IPv4 value and length (of 32) of an IPv4 prefix's text as the layout decodes it (`1.2.3.0/24`). */
function ipv4PrefixOf(text: string): { value: number; length: number } {
  const slash = text.indexOf('/');
  return { value: dottedQuad(text.slice(0, slash)), length: Number(text.slice(slash + 1)) };
}

/** The words and length of an IPv6 prefix's text; one in ::ffff:0:0/96 stays IPv6 (`parseIp` folds addresses there to IPv4). */
function ipv6PrefixOf(text: string): { w0: number; w1: number; w2: number; w3: number; length: number } {
  const slash = text.indexOf('/');
  const address = parseIp(text.slice(0, slash)) as IpAddress;
  const { w0, w1, w2, w3 } = address;
  return { w0, w1, w2: address.version === 4 ? 0xffff : w2, w3, length: Number(text.slice(slash + 1)) };
}

/**
 * Reads an ASN object whole, verifying it as `data:publish` does: its size, its index against
 * `indexSha256`, every block against the index's digest of it, every page record decoded.
 *
 * @throws PublishError naming the piece at fault (`verifyAsnObject`).
 */
export function readAsnView(object: PublicationAsn<Uint8Array>, label: string): AsnView {
  const asns = new Map<number, AsnHolding & { ipv4: number[]; ipv6: bigint[] }>();
  const table = new PrefixTable();
  const totals = { asns: 0, prefixes: { ipv4: 0, ipv6: 0 }, addresses: { ipv4: 0, ipv6: 0 } };
  verifyAsnObject(object, label, (page: AsnPage) => {
    let holding = asns.get(page.asn);
    if (holding === undefined) {
      const { organization, addresses, prefixTotals, countries } = page;
      holding = { organization, addresses, prefixes: prefixTotals, countries, ipv4: [], ipv6: [] };
      asns.set(page.asn, holding);
      totals.asns++;
      totals.prefixes.ipv4 += prefixTotals.ipv4;
      totals.prefixes.ipv6 += prefixTotals.ipv6;
      totals.addresses.ipv4 += addresses.ipv4;
      totals.addresses.ipv6 += addresses.ipv6;
    }
    for (const text of page.ipv4) {
      const { value, length } = ipv4PrefixOf(text);
      table.add(0, 0, 0, value, length + 96, page.asn);
      extendIpv4(holding.ipv4, value, value + 2 ** (32 - length) - 1);
    }
    for (const text of page.ipv6) {
      const { w0, w1, w2, w3, length } = ipv6PrefixOf(text);
      table.add(w0, w1, w2, w3, length, page.asn);
      const first = (BigInt(w0) << 32n) | BigInt(w1);
      extendIpv6(holding.ipv6, first, length >= 64 ? first : first + (1n << BigInt(64 - length)) - 1n);
    }
  });
  return { asns, totals, table: table.sorted() };
}
