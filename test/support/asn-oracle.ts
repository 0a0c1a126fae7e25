/**
 * @module What the routes by ASN should answer, from the routing source read directly: the
 * `@ip-location-db/asn` CSV files (csv-parse) or MaxMind's GeoLite2-ASN-Test source JSON, each ASN's
 * ranges merged and cut into CIDR prefixes with ipaddr.js's masks and text, its addresses counted; and
 * where a compiled database places them, by one mmdb-lib lookup per network met. Shares no code with
 * the service or the build (which cut ranges by bit counting, `data/asn/ranges.ts`).
 */
import { parse } from 'csv-parse/sync';
import ipaddr from 'ipaddr.js';
import type { Reader } from 'mmdb-lib';

/** What an ASN answer says of the whole ASN, but its countries. */
export interface ExpectedAsn {
  readonly organization: string;
  /** Every prefix of each family, CIDR text, in address order. */
  readonly ipv4: readonly string[];
  readonly ipv6: readonly string[];
  readonly addresses: { readonly ipv4: number; readonly ipv6: number };
  /** The merged ranges of each family (IPv4 as 32-bit values), for {@link expectedCountries}. */
  readonly ranges: { readonly ipv4: readonly Range[]; readonly ipv6: readonly Range[] };
}

type Range = readonly [bigint, bigint];

/** An address as an unsigned value of its family's width. */
function numberOf(text: string): bigint {
  return ipaddr
    .parse(text.trim())
    .toByteArray()
    .reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
}

/** The text of an address of `bits` bits (ipaddr.js's: dotted quad, RFC 5952). */
function textOf(value: bigint, bits: 32 | 128): string {
  const bytes: number[] = [];
  for (let shift = BigInt(bits - 8); shift >= 0n; shift -= 8n) bytes.push(Number((value >> shift) & 0xffn));
  return ipaddr.fromByteArray(bytes).toString();
}

/** The masks of every prefix length of a family, from ipaddr.js. */
const MASKS = {
  32: Array.from({ length: 33 }, (_, length) => numberOf(ipaddr.IPv4.subnetMaskFromPrefixLength(length).toString())),
  128: Array.from({ length: 129 }, (_, length) => numberOf(ipaddr.IPv6.subnetMaskFromPrefixLength(length).toString())),
} as const;

/** The CIDR prefixes of `first`..`last`: at each start, the shortest prefix whose network starts there and ends within. */
function prefixesOf(first: bigint, last: bigint, bits: 32 | 128): string[] {
  const all = (1n << BigInt(bits)) - 1n;
  const out: string[] = [];
  for (let start = first; start <= last; ) {
    for (let length = 0; length <= bits; length++) {
      const mask = MASKS[bits][length] as bigint;
      const end = start | (all ^ mask);
      if ((start & mask) === start && end <= last) {
        out.push(`${textOf(start, bits)}/${length}`);
        start = end + 1n;
        break;
      }
    }
  }
  return out;
}

function merged(ranges: Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: [bigint, bigint][] = [];
  for (const [first, last] of sorted) {
    const top = out.at(-1);
    if (top === undefined || first > top[1] + 1n) out.push([first, last]);
    else if (last > top[1]) top[1] = last;
  }
  return out;
}

/** The ranges of each ASN of a routing source, and its organisation names by how often they come. */
export class AsnSourceOracle {
  private readonly byAsn = new Map<number, { ipv4: Range[]; ipv6: Range[]; names: Map<string, number> }>();

  /**
   * From the `@ip-location-db/asn` files `asn-ipv4.csv` and `asn-ipv6.csv`. Lines are grouped by their
   * ASN (the third field, after two unquoted addresses) and parsed with csv-parse when an ASN is asked
   * for, so that a sample costs its own lines; a line of another shape is parsed at once.
   */
  static fromCsv(ipv4: Uint8Array, ipv6: Uint8Array): AsnSourceOracle {
    const oracle = new AsnSourceOracle();
    for (const [file, family] of [
      [ipv4, 'ipv4'],
      [ipv6, 'ipv6'],
    ] as const) {
      for (const line of new TextDecoder().decode(file).split('\n')) {
        if (line.trim() === '') continue;
        const asn = /^[^,"]*,[^,"]*,(\d+)(?:,|$)/.exec(line)?.[1];
        if (asn === undefined) oracle.addRow(parse(line, { relax_column_count: true })[0] as string[], family);
        else oracle.lines(Number(asn)).push([line, family]);
      }
    }
    return oracle;
  }

  /** Lines of the CSV files not parsed yet, by ASN. */
  private readonly pending = new Map<number, [string, 'ipv4' | 'ipv6'][]>();

  private lines(asn: number): [string, 'ipv4' | 'ipv6'][] {
    let lines = this.pending.get(asn);
    if (lines === undefined) {
      lines = [];
      this.pending.set(asn, lines);
    }
    return lines;
  }

  private addRow([first, last, asn, organization]: string[], family: 'ipv4' | 'ipv6'): void {
    this.add(Number(asn), family, [numberOf(first as string), numberOf(last as string)], (organization ?? '').trim());
  }

  /** Parses the pending lines of `asn`. */
  private parsed(asn: number): void {
    const lines = this.pending.get(asn);
    if (lines === undefined) return;
    this.pending.delete(asn);
    for (const [line, family] of lines) this.addRow(parse(line, { relax_column_count: true })[0] as string[], family);
  }

  /** From a MaxMind source JSON (`GeoLite2-ASN-Test.json`): a list of `{ "<cidr>": { autonomous_system_number, … } }`. */
  static fromMaxMindJson(entries: readonly Record<string, { autonomous_system_number?: number; autonomous_system_organization?: string }>[]): AsnSourceOracle {
    const oracle = new AsnSourceOracle();
    for (const entry of entries) {
      for (const [cidr, facts] of Object.entries(entry)) {
        if (facts.autonomous_system_number === undefined) continue;
        const [address, length] = ipaddr.parseCIDR(cidr);
        const bits = address.kind() === 'ipv4' ? 32 : 128;
        const first = numberOf(address.toString());
        oracle.add(
          facts.autonomous_system_number,
          bits === 32 ? 'ipv4' : 'ipv6',
          [first, first | ((1n << BigInt(bits - length)) - 1n)],
          facts.autonomous_system_organization ?? '',
        );
      }
    }
    return oracle;
  }

  private add(asn: number, family: 'ipv4' | 'ipv6', range: Range, organization: string): void {
    let entry = this.byAsn.get(asn);
    if (entry === undefined) {
      entry = { ipv4: [], ipv6: [], names: new Map() };
      this.byAsn.set(asn, entry);
    }
    entry[family].push(range);
    entry.names.set(organization, (entry.names.get(organization) ?? 0) + 1);
  }

  /** Every ASN the source names, with how many ranges it gives it. */
  sizes(): Map<number, number> {
    const sizes = new Map([...this.byAsn].map(([asn, entry]) => [asn, entry.ipv4.length + entry.ipv6.length]));
    for (const [asn, lines] of this.pending) sizes.set(asn, (sizes.get(asn) ?? 0) + lines.length);
    return sizes;
  }

  /** What the answer for `asn` must say, or undefined when the source does not name it. */
  expected(asn: number): ExpectedAsn | undefined {
    this.parsed(asn);
    const entry = this.byAsn.get(asn);
    if (entry === undefined) return undefined;
    const ipv4 = merged(entry.ipv4);
    const ipv6 = merged(entry.ipv6);
    const networks64 = new Set<bigint>();
    let ipv6Count = 0n;
    for (const [first, last] of ipv6) {
      const from = first >> 64n;
      const to = last >> 64n;
      ipv6Count += to - from + 1n - (networks64.has(from) ? 1n : 0n);
      networks64.add(to);
    }
    // Names are unique per ASN in the default data; the most frequent is the answer's where they are not.
    const organization = [...entry.names].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
    return {
      organization,
      ipv4: ipv4.flatMap(([first, last]) => prefixesOf(first, last, 32)),
      ipv6: ipv6.flatMap(([first, last]) => prefixesOf(first, last, 128)),
      addresses: { ipv4: Number(ipv4.reduce((sum, [first, last]) => sum + last - first + 1n, 0n)), ipv6: Number(ipv6Count) },
      ranges: { ipv4, ipv6 },
    };
  }
}

/**
 * Where the compiled database `reader` places the addresses of `ranges`, by one mmdb-lib lookup per
 * network of the database met: per country code ('' for none), the IPv4 addresses and the IPv6 /64s
 * with an address there.
 */
export function expectedCountries(reader: Reader<never>, ranges: ExpectedAsn['ranges']): Map<string, { ipv4: number; ipv6: number }> {
  const counts = new Map<string, { ipv4: number; ipv6: bigint; last64: bigint }>();
  const countOf = (code: string) => {
    let count = counts.get(code);
    if (count === undefined) {
      count = { ipv4: 0, ipv6: 0n, last64: -1n };
      counts.set(code, count);
    }
    return count;
  };
  for (const [family, bits] of [
    ['ipv4', 32],
    ['ipv6', 128],
  ] as const) {
    for (const [first, last] of ranges[family]) {
      for (let at = first; at <= last; ) {
        const [record, length] = reader.getWithPrefixLength(textOf(at, bits)) as [{ location?: { country_code?: string } } | null, number];
        const end = at | ((1n << BigInt(bits - length)) - 1n);
        const to = end < last ? end : last;
        const count = countOf(record?.location?.country_code ?? '');
        if (family === 'ipv4') {
          count.ipv4 += Number(to - at + 1n);
        } else {
          const from64 = at >> 64n;
          count.ipv6 += (to >> 64n) - from64 + 1n - (from64 === count.last64 ? 1n : 0n);
          count.last64 = to >> 64n;
        }
        at = to + 1n;
      }
    }
  }
  return new Map([...counts].map(([code, { ipv4, ipv6 }]) => [code, { ipv4, ipv6: Number(ipv6) }]));
}
