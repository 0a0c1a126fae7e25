/**
 * @module Reads an RFC 8805 geofeed (`ip_prefix,alpha2code,region,city,postal_code`, UTF-8 CSV with `#`
 * comments) into checked entries for the corrections stage (docs/operations.md, "Corrections"), whole or
 * as it streams in. Strict where RFC 8805 lets a consumer discard a line: a line the build cannot use
 * stops the build, naming the file (or the URL without its query) and the line, never quoting a fetched
 * line; reading stops after {@link MAX_REFUSED_LINES} refused lines. Each line is bounded in width, or to
 * the prefixes the operator allows a fetched feed (RFC 8805 section 3.2, RFC 9632).
 */
import { parse } from 'csv-parse/sync';
import ipaddr from 'ipaddr.js';
import { parseIp } from '../../src/ip/address.ts';
import { rangeWithArticle, SPECIAL_RANGES } from '../../src/ip/special-ranges.ts';
import { countryCodes } from '../../src/reference/countries.ts';
import { maskByte, networkContains, networkText, parseNetwork } from '../mmdb/network.ts';
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

/** Entries whose network bytes share one block of memory. */
const POOL_ENTRIES = 4096;

/**
 * Refused lines after which reading stops: a feed that bad is not read to its end (nor its faults kept).
 *
 * @internal Exported for its tests.
 */
export const MAX_REFUSED_LINES = 100;

/** The widest correction by family, as a prefix length: a wider line is refused unless the operator allows it ({@link GeofeedPolicy}). */
export const WIDEST_CORRECTION = { 4: 8, 6: 19 } as const;

/** What a geofeed may say, by where it comes from. */
export interface GeofeedPolicy {
  /** Fetched from a publisher (`data:update --geofeed`): its lines are never quoted in messages. */
  readonly fetched: boolean;
  /** The prefixes the operator lets a fetched feed speak for: every line must be inside one, whatever its width. */
  readonly allowed?: readonly Network[];
  /** A file of the operator's own whose lines may be wider than {@link WIDEST_CORRECTION} (`--allow-wide-corrections`). */
  readonly allowWide?: boolean;
}

/** A local file of the operator's, with the width limits. */
const LOCAL_FILE: GeofeedPolicy = { fetched: false };

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
 * @throws SourceError when the file is not UTF-8 or not CSV, or listing every line that is refused (up
 *   to {@link MAX_REFUSED_LINES}): a malformed prefix, host bits set, a prefix in a special-purpose range
 *   (`src/ip/special-ranges.ts`), in 6to4 or over the IPv4 space of the tree, wider than
 *   {@link WIDEST_CORRECTION} (unless `policy` allows it) or outside the prefixes `policy` allows, a
 *   country that is not ISO 3166-1 alpha-2 (the 250 codes of `countries-list`), a region that is not
 *   ISO 3166-2 or is of another country, a city without a country, a prefix given twice.
 */
export function parseGeofeed(content: Uint8Array, label: string, policy: GeofeedPolicy = LOCAL_FILE): Geofeed {
  const reader = new GeofeedReader(label, policy, true);
  reader.push(utf8Text(content, label));
  return reader.end();
}

/**
 * Reads a geofeed as it comes (a download), checking each line as {@link parseGeofeed} does without
 * keeping the entries: what it holds are the prefixes counted and the bytes, for the cache.
 *
 * @throws SourceError as {@link parseGeofeed}, as soon as the fault is read (the rest is not downloaded).
 */
export async function readGeofeed(
  body: AsyncIterable<Uint8Array>,
  label: string,
  policy: GeofeedPolicy,
): Promise<{ bytes: Buffer; prefixes: number; lines: number }> {
  const reader = new GeofeedReader(label, policy, false);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) {
    chunks.push(chunk);
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      utf8Text(Buffer.concat(chunks), label); // names the line
      throw new SourceError(`${label}: not UTF-8 (RFC 8805, section 2.1)`);
    }
    reader.push(text);
  }
  const bytes = Buffer.concat(chunks);
  try {
    reader.push(decoder.decode());
  } catch {
    utf8Text(bytes, label);
    throw new SourceError(`${label}: not UTF-8 (RFC 8805, section 2.1)`);
  }
  const { lines } = reader.end();
  return { bytes, prefixes: reader.prefixes, lines };
}

/** Reads a geofeed's text a batch of whole lines at a time, in order. */
class GeofeedReader {
  /** Text after the last line end read: the start of a line still coming. */
  private pending = '';
  /** 1 when {@link pending} holds an odd number of quotes (a quoted field still open). */
  private pendingQuotes = 0;
  /** Lines in the batches read so far. */
  private linesRead = 0;
  private readonly faults: string[] = [];
  private readonly entries: GeofeedEntry[] = [];
  private readonly seen = new Map<string, number>();
  /** Lines that set a prefix. */
  prefixes = 0;
  /** The block the kept entries' network bytes are in, and how much of it is used. */
  private pool = new Uint8Array(0);
  private pooled = 0;
  /** Each code, city and postal code of the kept entries, once. */
  private readonly strings = new Map<string, string>();
  private readonly quote: (text: string, what: string) => string;

  /** @param keep whether the entries are kept (the build), or only counted (a download's check). */
  constructor(
    private readonly label: string,
    private readonly policy: GeofeedPolicy,
    private readonly keep: boolean,
  ) {
    this.quote = policy.fetched ? (_text, what) => what : (text) => JSON.stringify(text);
  }

  /**
   * Reads the whole lines of `text` (after what was pushed before) up to the last line end outside
   * quotes; the rest waits for more (a quoted field that runs over a line end is read whole, and refused).
   */
  push(text: string): void {
    let quotes = this.pendingQuotes;
    let cut = -1;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 0x22) quotes ^= 1;
      else if (code === 0x0a && quotes === 0) cut = i;
    }
    this.pendingQuotes = quotes;
    if (cut < 0) {
      this.pending += text;
      return;
    }
    const batch = this.pending + text.slice(0, cut + 1);
    this.pending = text.slice(cut + 1);
    this.batch(batch);
  }

  /** Reads what is left. @throws SourceError listing the refused lines, if any. */
  end(): Geofeed {
    if (this.pending !== '') this.batch(this.pending);
    this.pending = '';
    if (this.faults.length > 0) this.refuse();
    return { entries: this.entries, lines: this.linesRead };
  }

  private batch(text: string): void {
    try {
      parse(text, {
        comment: '#',
        relax_column_count: true,
        skip_empty_lines: true,
        trim: true,
        record_delimiter: ['\r\n', '\n', '\r'],
        // Each record is checked as it is read and not kept by the parser.
        on_record: (record, context) => {
          this.line(record, this.linesRead + context.lines);
          return null;
        },
      });
    } catch (error) {
      if (error instanceof SourceError) throw error;
      const line = (error as { lines?: number }).lines;
      const why = this.policy.fetched ? '' : `: ${(error as Error).message}`;
      throw new SourceError(`${this.label}${line ? ` line ${this.linesRead + line}` : ''}: not CSV (RFC 4180)${why}`);
    }
    this.linesRead += lineCount(text);
  }

  private line(record: readonly string[], line: number): void {
    const entry = entryOf(record, line, this.policy, this.quote);
    const first = typeof entry === 'string' ? undefined : this.seen.get(entry.prefix);
    if (typeof entry === 'string') this.faults.push(`line ${line}: ${entry}`);
    else if (first !== undefined)
      this.faults.push(`line ${line}: ${entry.prefix} again, already given on line ${first} (RFC 8805, section 2.1.3: one line per prefix)`);
    else {
      this.seen.set(entry.prefix, line);
      this.prefixes++;
      if (this.keep) this.entries.push(this.compact(entry));
    }
    if (this.faults.length >= MAX_REFUSED_LINES) this.refuse(line);
  }

  /**
   * The entry as kept, in less memory (the largest feed accepted holds near a million lines): its
   * network's bytes in a shared block, its codes, city and postal code each held once.
   */
  private compact(entry: GeofeedEntry): GeofeedEntry {
    if (this.pooled === this.pool.length) {
      this.pool = new Uint8Array(POOL_ENTRIES * 16);
      this.pooled = 0;
    }
    const bytes = this.pool.subarray(this.pooled, this.pooled + 16);
    bytes.set(entry.network.bytes);
    this.pooled += 16;
    const held = (text: string) => {
      const known = this.strings.get(text);
      if (known !== undefined) return known;
      this.strings.set(text, text);
      return text;
    };
    return {
      ...entry,
      network: { bytes, prefixLength: entry.network.prefixLength },
      countryCode: held(entry.countryCode),
      regionCode: held(entry.regionCode),
      city: held(entry.city),
      postalCode: held(entry.postalCode),
    };
  }

  /** @throws SourceError listing the first faults; `stoppedAt` when reading stops there. */
  private refuse(stoppedAt?: number): never {
    const { faults } = this;
    const listed = faults.slice(0, LISTED_FAULTS).map((fault) => `\n  ${fault}`);
    const more = faults.length > LISTED_FAULTS ? `\n  and ${faults.length - LISTED_FAULTS} more` : '';
    const stopped = stoppedAt === undefined ? '' : ` (reading stopped at line ${stoppedAt}, after ${MAX_REFUSED_LINES} refused lines)`;
    throw new SourceError(`${this.label}: ${faults.length === 1 ? 'a line is' : `${faults.length} lines are`} refused${stopped}:${listed.join('')}${more}`);
  }
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

/**
 * The entry of one CSV record, or why it is refused.
 *
 * @param quote how a message shows a field: as written for a file of the operator's, by what it is
 *   (`the prefix`) for a fetched feed, whose text is not repeated.
 */
function entryOf(record: readonly string[], line: number, policy: GeofeedPolicy, quote: (text: string, what: string) => string): GeofeedEntry | string {
  const [prefixText = '', alpha2 = '', regionText = '', city = '', postalCode = ''] = record;
  if (record.slice(0, 5).some((field) => /[\r\n]/.test(field))) return 'a quoted field runs over more than one line';
  if (prefixText === '') return 'no IP prefix (the first field is required: RFC 8805, section 2.1.1.1)';
  const prefix = prefixOf(prefixText, policy, quote);
  if (typeof prefix === 'string') return prefix;
  let countryCode = alpha2.toUpperCase();
  if (countryCode === 'ZZ') countryCode = '';
  if (countryCode !== '' && !COUNTRIES.has(countryCode)) {
    const hint = countryCode === 'UK' ? ': the United Kingdom is GB' : '';
    return `${quote(alpha2, 'the country code')} is not an ISO 3166-1 alpha-2 country code${hint}`;
  }
  let regionCode = '';
  if (regionText !== '') {
    const match = SUBDIVISION.exec(regionText.toUpperCase());
    if (match === null)
      return `${quote(regionText, 'the region')} is not an ISO 3166-2 subdivision code (a country code, a hyphen and up to three letters or digits, e.g. GB-ENG)`;
    const [, regionCountry = '', code = ''] = match;
    // A fetched line's region is not repeated: its country is said only as the line's own.
    const region = policy.fetched ? 'the region is of another country' : `region ${regionText} is of ${regionCountry}`;
    if (countryCode === '') {
      if (!COUNTRIES.has(regionCountry))
        return policy.fetched ? "the region's country is not an ISO 3166-1 alpha-2 code" : `${region}, which is not an ISO 3166-1 alpha-2 country code`;
      countryCode = regionCountry;
    } else if (regionCountry !== countryCode) {
      return `${region}, not of the line's country ${countryCode}`;
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
function prefixOf(text: string, policy: GeofeedPolicy, quote: (text: string, what: string) => string): { network: Network; text: string } | string {
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const address = parseIp(addressText);
  if (address === undefined) return `${quote(text, 'the prefix')} is not an IP address or prefix`;
  const written = addressText.includes(':') ? 128 : 32;
  const lengthText = slash < 0 ? String(written) : text.slice(slash + 1);
  let length = /^\d{1,3}$/.test(lengthText) ? Number(lengthText) : Number.NaN;
  if (!(length <= written)) return `${quote(text, 'the prefix')} has no valid prefix length (0 to ${written})`;
  if (address.version === 4 && written === 128) {
    // parseIp reads ::ffff:a.b.c.d as IPv4 a.b.c.d: the prefix is the IPv4 one it maps.
    if (length < 96) return `${quote(text, 'the prefix')} reaches beyond the IPv4-mapped block ::ffff:0:0/96: write the IPv4 prefixes it means`;
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
  if (masked.some((byte, i) => byte !== bytes[i])) return `${quote(text, 'the prefix')} has host bits set: the network is ${canonical}`;
  const network: Network = { bytes: masked, prefixLength: treeLength };
  const special = SPECIAL.filter(({ ipv4 }) => ipv4 === (address.version === 4)).find((candidate) => networkContains(candidate.network, network));
  if (special !== undefined) {
    const { cidr, rfc } = special.range;
    return `${canonical} is in ${cidr}, ${rangeWithArticle(special.range)} (${rfc}): the service answers no address there`;
  }
  if (address.version === 6) {
    if (networkContains(network, IPV4_SPACE)) return `${canonical} covers ::/96, where the database keeps IPv4 addresses: give IPv4 and IPv6 prefixes apart`;
    if (networkContains(SIX_TO_FOUR, network))
      return `${canonical} is in 6to4 2002::/16, whose addresses are answered as the IPv4 address they embed: correct that IPv4 prefix`;
  }
  const bound = boundRefusal(network, canonical, address.version === 4 ? 4 : 6, policy);
  return bound ?? { network, text: canonical };
}

/** Why a line's network is beyond what `policy` lets it correct, or undefined when it is not. */
function boundRefusal(network: Network, canonical: string, family: 4 | 6, policy: GeofeedPolicy): string | undefined {
  if (policy.allowed !== undefined) {
    if (policy.allowed.some((allowed) => networkContains(allowed, network))) return undefined;
    return `${canonical} is outside the prefixes this feed may correct (${policy.allowed.map((allowed) => networkText(allowed)).join(', ')}; RFC 8805, section 3.2)`;
  }
  const widest = WIDEST_CORRECTION[family];
  const length = family === 4 ? network.prefixLength - 96 : network.prefixLength;
  if (length >= widest || policy.allowWide) return undefined;
  return policy.fetched
    ? `${canonical} is wider than a /${widest}, the widest line of a published feed without the prefixes it may correct (a feed URL#prefixes=…)`
    : `${canonical} is wider than a /${widest}, the widest correction unless data:build or data:update is given --allow-wide-corrections`;
}
