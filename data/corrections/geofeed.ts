/**
 * @module Reads an RFC 8805 geofeed (`ip_prefix,alpha2code,region,city,postal_code`, UTF-8 CSV with `#`
 * comments) into checked entries for the corrections stage (docs/operations.md, "Corrections"). Strict
 * where RFC 8805 lets a consumer discard a line: a line the build cannot use stops the build, naming the
 * file, the line and the reason, so that no correction is dropped without the operator seeing it.
 */
import { parse } from 'csv-parse/sync';
import ipaddr from 'ipaddr.js';
import { parseIp } from '../../src/ip/address.ts';
import { rangeWithArticle, SPECIAL_RANGES } from '../../src/ip/special-ranges.ts';
import { countryCodes } from '../../src/reference/countries.ts';
import { parseNetwork } from '../mmdb/network.ts';
import type { Network } from '../mmdb/search-tree.ts';
import { SourceError } from '../sources/source.ts';

/** One line of a geofeed, checked: where it applies and what it says is there. */
export interface GeofeedEntry {
  /** The line of the file it is on, from 1. */
  readonly line: number;
  /** The prefix as a network of the search tree's space (IPv4 a.b.c.d/n at ::a.b.c.d/(96+n)). */
  readonly network: Network;
  /** The prefix in canonical text: `81.2.69.0/24`, `2001:db8::/32` (RFC 5952). */
  readonly prefix: string;
  /** ISO 3166-1 alpha-2, upper case; '' when the line states no location (empty fields, or `ZZ`: RFC 8805, section 2.1.2). */
  readonly countryCode: string;
  /** The ISO 3166-2 subdivision code without its country (`ENG` of `GB-ENG`), upper case; '' when none. */
  readonly regionCode: string;
  /** The city as written, '' when none. */
  readonly city: string;
  /** The postal code as written, '' when none. */
  readonly postalCode: string;
}

/** A geofeed read whole. */
export interface Geofeed {
  readonly entries: readonly GeofeedEntry[];
  /** Lines of text in the file, comments and blank lines included. */
  readonly lines: number;
}

/** The most faults one error message lists; it says how many more there are. */
const LISTED_FAULTS = 20;

/** An ISO 3166-2 code: the country's alpha-2, a hyphen, one to three letters or digits. */
const SUBDIVISION = /^([A-Z]{2})-([A-Z0-9]{1,3})$/;

/** The country codes a line may give (`src/reference/countries.ts`). */
const COUNTRIES: ReadonlySet<string> = new Set(countryCodes());

/** The special-purpose ranges in the tree's space, each with its family, for containment checks. */
const SPECIAL = SPECIAL_RANGES.map((range) => ({ range, network: parseNetwork(range.cidr), ipv4: !range.cidr.includes(':') }));

/** The regions of the tree's space that a prefix must not reach into, besides the special ranges. */
const IPV4_SPACE = parseNetwork('::/96');
const SIX_TO_FOUR = parseNetwork('2002::/16');

/**
 * Reads a geofeed. Accepted as RFC 8805 and RFC 4180 allow: a byte-order mark, CRLF or LF line ends,
 * blank lines, `#` comments (whole lines or after the fields), quoted fields, spaces around fields,
 * codes in any case, missing trailing fields, fields beyond the fifth (ignored, RFC 8805 section
 * 2.1.3), a single address for its /32 or /128, an IPv4-mapped IPv6 prefix (read as the IPv4 prefix it
 * maps). A region alone gives its country; `ZZ` or empty location fields state "no location".
 *
 * @param label how messages name the file, e.g. `--corrections ours.csv`.
 * @throws SourceError when the file is not UTF-8 or not CSV, or listing every line that is refused: a
 *   malformed prefix, host bits set, a prefix in a special-purpose range (`src/ip/special-ranges.ts`), in
 *   6to4 or over the IPv4 space of the tree, a country that is not ISO 3166-1 alpha-2 (the 250 codes of
 *   `countries-list`), a region that is not ISO 3166-2 or is of another country, a city without a
 *   country, a prefix given twice.
 */
export function parseGeofeed(content: Uint8Array, label: string): Geofeed {
  const text = utf8Text(content, label);
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(text, {
      comment: '#',
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      info: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new SourceError(`${label}${line ? ` line ${line}` : ''}: not CSV (RFC 4180): ${(error as Error).message}`);
  }
  const faults: string[] = [];
  const entries: GeofeedEntry[] = [];
  const seen = new Map<string, number>();
  for (const { record, info } of rows) {
    const line = info.lines;
    const entry = entryOf(record, line);
    if (typeof entry === 'string') {
      faults.push(`line ${line}: ${entry}`);
      continue;
    }
    const first = seen.get(entry.prefix);
    if (first !== undefined) {
      faults.push(`line ${line}: ${entry.prefix} again, already given on line ${first} (RFC 8805, section 2.1.3: one line per prefix)`);
      continue;
    }
    seen.set(entry.prefix, line);
    entries.push(entry);
  }
  if (faults.length > 0) {
    const listed = faults.slice(0, LISTED_FAULTS).map((fault) => `\n  ${fault}`);
    const more = faults.length > LISTED_FAULTS ? `\n  and ${faults.length - LISTED_FAULTS} more` : '';
    throw new SourceError(`${label}: ${faults.length === 1 ? 'a line is' : `${faults.length} lines are`} refused:${listed.join('')}${more}`);
  }
  return { entries, lines: lineCount(text) };
}

/** The file as text. @throws SourceError naming the first line that is not UTF-8 (RFC 8805, section 2.1). */
function utf8Text(content: Uint8Array, label: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let start = 0;
    for (let line = 1; ; line++) {
      const end = content.indexOf(0x0a, start);
      try {
        decoder.decode(content.subarray(start, end < 0 ? content.length : end));
      } catch {
        throw new SourceError(`${label} line ${line}: not UTF-8 (RFC 8805, section 2.1)`);
      }
      if (end < 0) throw new SourceError(`${label}: not UTF-8 (RFC 8805, section 2.1)`);
      start = end + 1;
    }
  }
}

/** Lines of text: the line ends, and one more for a last line without an end. */
function lineCount(text: string): number {
  const ends = text.match(/\r\n|\n|\r/g)?.length ?? 0;
  return ends + (text.length > 0 && !/[\r\n]$/.test(text) ? 1 : 0);
}

/** The entry of one CSV record, or why it is refused. */
function entryOf(record: readonly string[], line: number): GeofeedEntry | string {
  const [prefixText = '', alpha2 = '', regionText = '', city = '', postalCode = ''] = record;
  if (record.slice(0, 5).some((field) => /[\r\n]/.test(field))) return 'a quoted field runs over more than one line';
  if (prefixText === '') return 'no IP prefix (the first field is required: RFC 8805, section 2.1.1.1)';
  const prefix = prefixOf(prefixText);
  if (typeof prefix === 'string') return prefix;
  let countryCode = alpha2.toUpperCase();
  if (countryCode === 'ZZ') countryCode = '';
  if (countryCode !== '' && !COUNTRIES.has(countryCode)) {
    const hint = countryCode === 'UK' ? ': the United Kingdom is GB' : '';
    return `${JSON.stringify(alpha2)} is not an ISO 3166-1 alpha-2 country code${hint}`;
  }
  let regionCode = '';
  if (regionText !== '') {
    const match = SUBDIVISION.exec(regionText.toUpperCase());
    if (match === null)
      return `${JSON.stringify(regionText)} is not an ISO 3166-2 subdivision code (a country code, a hyphen and up to three letters or digits, e.g. GB-ENG)`;
    const [, regionCountry = '', code = ''] = match;
    if (countryCode === '') {
      if (!COUNTRIES.has(regionCountry)) return `region ${regionText} is of ${regionCountry}, which is not an ISO 3166-1 alpha-2 country code`;
      countryCode = regionCountry;
    } else if (regionCountry !== countryCode) {
      return `region ${regionText} is of ${regionCountry}, not of the line's country ${countryCode}`;
    }
    regionCode = code;
  }
  if (countryCode === '' && (city !== '' || postalCode !== '')) return `names ${city !== '' ? 'a city' : 'a postal code'} but no country: give the alpha2code`;
  return { line, network: prefix.network, prefix: prefix.text, countryCode, regionCode, city: city.normalize('NFC'), postalCode };
}

/**
 * An IP prefix or single address (RFC 8805, section 2.1.1.1: RFC 4632 for IPv4, RFC 4291 section 2.3
 * for IPv6), as a network of the tree's space and its canonical text, or why it is refused.
 */
function prefixOf(text: string): { network: Network; text: string } | string {
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const address = parseIp(addressText);
  if (address === undefined) return `${JSON.stringify(text)} is not an IP address or prefix`;
  const written = addressText.includes(':') ? 128 : 32;
  const lengthText = slash < 0 ? String(written) : text.slice(slash + 1);
  let length = /^\d{1,3}$/.test(lengthText) ? Number(lengthText) : Number.NaN;
  if (!(length <= written)) return `${JSON.stringify(text)} has no valid prefix length (0 to ${written})`;
  if (address.version === 4 && written === 128) {
    // parseIp reads ::ffff:a.b.c.d as IPv4 a.b.c.d: the prefix is the IPv4 one it maps.
    if (length < 96) return `${JSON.stringify(text)} reaches beyond the IPv4-mapped block ::ffff:0:0/96: write the IPv4 prefixes it means`;
    length -= 96;
  }
  const treeLength = address.version === 4 ? 96 + length : length;
  const bytes = new Uint8Array(16);
  new DataView(bytes.buffer).setUint32(0, address.w0);
  new DataView(bytes.buffer).setUint32(4, address.w1);
  new DataView(bytes.buffer).setUint32(8, address.w2);
  new DataView(bytes.buffer).setUint32(12, address.w3);
  const masked = bytes.map((byte, i) => byte & maskByte(treeLength, i));
  const canonical = `${ipaddr.fromByteArray(address.version === 4 ? [...masked.subarray(12)] : [...masked]).toString()}/${length}`;
  if (masked.some((byte, i) => byte !== bytes[i])) return `${JSON.stringify(text)} has host bits set: the network is ${canonical}`;
  const network: Network = { bytes: masked, prefixLength: treeLength };
  const special = SPECIAL.filter(({ ipv4 }) => ipv4 === (address.version === 4)).find((candidate) => contains(candidate.network, network));
  if (special !== undefined) {
    const { cidr, rfc } = special.range;
    return `${canonical} is in ${cidr}, ${rangeWithArticle(special.range)} (${rfc}): the service answers no address there`;
  }
  if (address.version === 6) {
    if (contains(network, IPV4_SPACE)) return `${canonical} covers ::/96, where the database keeps IPv4 addresses: give IPv4 and IPv6 prefixes apart`;
    if (contains(SIX_TO_FOUR, network))
      return `${canonical} is in 6to4 2002::/16, whose addresses are answered as the IPv4 address they embed: correct that IPv4 prefix`;
  }
  return { network, text: canonical };
}

/** The bits of byte `index` that a prefix of `length` bits keeps. */
function maskByte(length: number, index: number): number {
  const bits = Math.min(8, Math.max(0, length - index * 8));
  return (0xff00 >> bits) & 0xff;
}

/** True when `outer` holds all of `inner`. */
function contains(outer: Network, inner: Network): boolean {
  if (outer.prefixLength > inner.prefixLength) return false;
  for (let i = 0; i < 16; i++) {
    const mask = maskByte(outer.prefixLength, i);
    if (((outer.bytes[i] as number) & mask) !== ((inner.bytes[i] as number) & mask)) return false;
  }
  return true;
}
