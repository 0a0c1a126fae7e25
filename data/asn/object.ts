/**
 * @module The ASN object of a build (`ipgeo.asn`, layout in `src/geo/asn-layout.ts`): every ASN of the routing
 * sources with its organisation, its prefixes in pages, its addresses, and the countries the build's
 * location data places them in, written as verified blocks behind an index. Refused, with the ASN
 * named, when an ASN breaks the layout's bounds (a name too long, too many countries).
 */
import { createHash } from 'node:crypto';
import { ASN_LAYOUT } from '../../src/geo/asn-layout.ts';
import { SourceError } from '../sources/source.ts';
import { type CountryCount, type CountryKey, countAsnCountries, type ForEachCountry } from './countries.ts';
import { type AsnRanges, ipv4Addresses, ipv4Prefixes, ipv6Networks, ipv6Prefixes, type Prefix } from './ranges.ts';

/** The ASN object as the manifest describes it (`data/output.ts`), and as `data:publish` publishes it. */
export interface AsnObjectInfo {
  /** Its file name in the build's folder. */
  file: string;
  bytes: number;
  /** SHA-256 of the whole file, lower-case hex. */
  sha256: string;
  /** The index's length (the file's first bytes) and SHA-256: what a Worker verifies it against. */
  indexBytes: number;
  indexSha256: string;
  /** The size of every block, and how many follow the index. */
  blockBytes: number;
  blocks: number;
  /** ASNs, and their prefixes of each family. */
  asns: number;
  prefixes: { ipv4: number; ipv6: number };
}

/** The file name of a build's ASN object. */
export const ASN_FILE = 'ipgeo.asn';

/**
 * Builds the ASN object of the ASNs `asns` (what an `AsnRangeCollector` collected from the routing
 * sources), placing their addresses by `forEachCountry`.
 *
 * @param log receives one line per stage, with timings.
 * @throws SourceError naming the ASN that breaks a bound of the layout.
 */
export function buildAsnObject(
  asns: readonly AsnRanges[],
  forEachCountry: ForEachCountry,
  log: (line: string) => void = () => {},
): { bytes: Uint8Array; info: AsnObjectInfo } {
  const started = Date.now();
  const countries = countAsnCountries(asns, forEachCountry);
  log(`ASN object: addresses placed by country (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  const blocks = new BlockWriter();
  const totals = { ipv4: 0, ipv6: 0 };
  asns.forEach((entry, i) => {
    const page = pageParts(entry, countries[i] ?? new Map());
    totals.ipv4 += page.ipv4.length;
    totals.ipv6 += page.ipv6.length;
    for (const record of records(entry, page)) blocks.add(record, entry.asn);
  });
  const { index, data } = blocks.finish(asns.length);
  log(`ASN object: written (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  const bytes = new Uint8Array(index.byteLength + data.byteLength);
  bytes.set(index);
  bytes.set(data, index.byteLength);
  const sha256 = (part: Uint8Array) => createHash('sha256').update(part).digest('hex');
  return {
    bytes,
    info: {
      file: ASN_FILE,
      bytes: bytes.byteLength,
      sha256: sha256(bytes),
      indexBytes: index.byteLength,
      indexSha256: sha256(index),
      blockBytes: ASN_LAYOUT.blockBytes,
      blocks: data.byteLength / ASN_LAYOUT.blockBytes,
      asns: asns.length,
      prefixes: totals,
    },
  };
}

/** What every page of an ASN repeats, and its prefixes of each family. */
interface AsnParts {
  readonly organization: Uint8Array;
  readonly addresses: { readonly ipv4: number; readonly ipv6: number };
  readonly countries: readonly (readonly [CountryKey, CountryCount])[];
  readonly ipv4: Prefix[];
  readonly ipv6: Prefix[];
}

function pageParts(entry: AsnRanges, counts: ReadonlyMap<CountryKey, CountryCount>): AsnParts {
  const organization = new TextEncoder().encode(entry.organization);
  if (organization.byteLength > ASN_LAYOUT.maxOrganizationBytes) {
    throw new SourceError(`AS${entry.asn}: its organisation name is ${organization.byteLength} bytes, over ${ASN_LAYOUT.maxOrganizationBytes}`);
  }
  // Largest first by IPv4 addresses, then IPv6 /64s; equals by code, the addresses placed in no country last.
  const countries = [...counts]
    .filter(([, count]) => count.ipv4 > 0 || count.ipv6 > 0n)
    .sort(
      ([a, x], [b, y]) => y.ipv4 - x.ipv4 || (y.ipv6 > x.ipv6 ? 1 : y.ipv6 < x.ipv6 ? -1 : 0) || (a === '' ? 1 : b === '' ? -1 : a < b ? -1 : a > b ? 1 : 0),
    );
  if (countries.length > ASN_LAYOUT.maxCountries) {
    throw new SourceError(`AS${entry.asn}: its addresses are in ${countries.length} countries, over ${ASN_LAYOUT.maxCountries}`);
  }
  for (const [code] of countries) {
    if (code !== '' && !/^[\x21-\x7e]{2}$/.test(code)) throw new SourceError(`AS${entry.asn}: the location data places it in country ${JSON.stringify(code)}`);
  }
  const addresses = { ipv4: ipv4Addresses(entry.ipv4), ipv6: ipv6Networks(entry.ipv6) };
  return { organization, addresses, countries, ipv4: ipv4Prefixes(entry.ipv4), ipv6: ipv6Prefixes(entry.ipv6) };
}

/** The page records of an ASN: its prefixes, IPv4 first, {@link ASN_LAYOUT.pagePrefixes} a page. */
function* records(entry: AsnRanges, parts: AsnParts): Generator<Uint8Array> {
  const all = [...parts.ipv4, ...parts.ipv6];
  const pages = Math.max(1, Math.ceil(all.length / ASN_LAYOUT.pagePrefixes));
  if (pages > 0xffff) throw new SourceError(`AS${entry.asn}: ${all.length} prefixes make more than ${0xffff} pages`);
  for (let page = 0; page < pages; page++) {
    const here = all.slice(page * ASN_LAYOUT.pagePrefixes, (page + 1) * ASN_LAYOUT.pagePrefixes);
    const prefixBytes = here.reduce((sum, prefix) => sum + 1 + prefix.bytes.byteLength, 0);
    const size = ASN_LAYOUT.recordHeaderBytes + parts.organization.byteLength + parts.countries.length * ASN_LAYOUT.countryBytes + prefixBytes;
    const record = new Uint8Array(size);
    const view = new DataView(record.buffer);
    view.setUint32(0, entry.asn);
    view.setUint16(4, page);
    view.setUint16(6, pages);
    view.setUint16(8, size);
    view.setUint16(10, parts.organization.byteLength);
    view.setFloat64(12, parts.addresses.ipv4);
    view.setFloat64(20, parts.addresses.ipv6);
    view.setUint32(28, parts.ipv4.length);
    view.setUint32(32, parts.ipv6.length);
    view.setUint16(36, parts.countries.length);
    view.setUint16(38, here.filter((prefix) => prefix.ipv4).length);
    view.setUint16(40, here.filter((prefix) => !prefix.ipv4).length);
    let at = ASN_LAYOUT.recordHeaderBytes;
    record.set(parts.organization, at);
    at += parts.organization.byteLength;
    for (const [code, count] of parts.countries) {
      if (code !== '') record.set([code.charCodeAt(0), code.charCodeAt(1)], at);
      view.setFloat64(at + 2, count.ipv4);
      view.setFloat64(at + 10, Number(count.ipv6));
      at += ASN_LAYOUT.countryBytes;
    }
    for (const prefix of here) {
      record[at] = prefix.length;
      record.set(prefix.bytes, at + 1);
      at += 1 + prefix.bytes.byteLength;
    }
    yield record;
  }
}

/** Records packed into blocks in the order given, a record never across two; and the index of the blocks. */
class BlockWriter {
  private readonly blocks: Uint8Array[] = [];
  private readonly firsts: { asn: number; page: number }[] = [];
  private used: number = ASN_LAYOUT.blockBytes;

  add(record: Uint8Array, asn: number): void {
    const { blockBytes } = ASN_LAYOUT;
    // The bounds on names, countries and pages keep the largest record well within a block.
    if (record.byteLength > blockBytes) throw new SourceError(`AS${asn}: a page record of ${record.byteLength} bytes does not fit a block of ${blockBytes}`);
    if (this.used + record.byteLength > blockBytes) {
      this.blocks.push(new Uint8Array(blockBytes));
      this.firsts.push({ asn, page: new DataView(record.buffer).getUint16(4) });
      this.used = 0;
    }
    (this.blocks.at(-1) as Uint8Array).set(record, this.used);
    this.used += record.byteLength;
  }

  finish(asns: number): { index: Uint8Array; data: Uint8Array } {
    const { headerBytes, entryBytes, blockBytes } = ASN_LAYOUT;
    const index = new Uint8Array(headerBytes + entryBytes * this.blocks.length);
    if (index.byteLength > ASN_LAYOUT.maxIndexBytes)
      throw new SourceError(`the ASN index would be ${index.byteLength} bytes, over ${ASN_LAYOUT.maxIndexBytes}`);
    const view = new DataView(index.buffer);
    index.set(new TextEncoder().encode(ASN_LAYOUT.magic));
    view.setUint16(8, ASN_LAYOUT.format);
    view.setUint32(12, blockBytes);
    view.setUint32(16, this.blocks.length);
    view.setUint32(20, ASN_LAYOUT.pagePrefixes);
    view.setUint32(24, asns);
    const data = new Uint8Array(blockBytes * this.blocks.length);
    this.blocks.forEach((block, k) => {
      const at = headerBytes + k * entryBytes;
      const first = this.firsts[k] as { asn: number; page: number };
      view.setUint32(at, first.asn);
      view.setUint32(at + 4, first.page);
      index.set(createHash('sha256').update(block).digest(), at + 8);
      data.set(block, k * blockBytes);
    });
    return { index, data };
  }
}
