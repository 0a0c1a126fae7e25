/**
 * @module Reads an RFC 8805 geofeed (`ip_prefix,alpha2code,region,city,postal_code`, UTF-8 CSV with `#`
 * comments) into checked entries for the corrections stage (docs/operations.md, "Corrections"), whole or
 * as it streams in. Strict where RFC 8805 lets a consumer discard a line: a line the build cannot use
 * stops the build, naming the file (or the URL without its query) and the line, never quoting a fetched
 * line; reading stops after {@link MAX_REFUSED_LINES} refused lines. Each line is bounded in width, or to
 * the prefixes the operator allows a fetched feed (RFC 8805 section 3.2, RFC 9632); a fetched feed
 * without them is bounded in all ({@link FETCHED_FEED_CEILING}). Entries are kept compact (`geofeed-entries.ts`).
 */
import { parse } from 'csv-parse/sync';
import { countryCodes } from '../../src/reference/countries.ts';
import { networkContains, networkText } from '../mmdb/network.ts';
import type { Network } from '../mmdb/search-tree.ts';
import { asPrefix, type Coverage } from '../sources/flag-lists/coverage.ts';
import { GEOFEED_PREFIXES, readPrefix } from '../sources/prefix.ts';
import { SourceError } from '../sources/source.ts';
import { GeofeedEntries, type GeofeedEntry, type GivenTwice } from './geofeed-entries.ts';

/** A geofeed read whole. */
export interface Geofeed {
  readonly entries: GeofeedEntries;
  /** Lines of text in the file, comments and blank lines included. */
  readonly lines: number;
}

/** The text handed to the CSV parser at a time, in UTF-16 code units (whole lines are cut out of it). */
const BATCH_CHARACTERS = 1 << 20;

/** The most faults one error message lists; it says how many more there are. */
const LISTED_FAULTS = 20;

/**
 * Refused lines after which reading stops: a feed that bad is not read to its end (nor its faults kept).
 *
 * @internal Exported for its tests.
 */
export const MAX_REFUSED_LINES = 100;

/** The widest correction by family, as a prefix length: a wider line is refused unless the operator allows it ({@link GeofeedPolicy}). */
export const WIDEST_CORRECTION = { 4: 8, 6: 19 } as const;

/**
 * The most a fetched feed without the prefixes it may correct (`URL#prefixes=…`) may cover in all, each
 * address counted once, as prefix lengths: IPv4 addresses as many as a /10 holds, IPv6 /64s as many as a
 * /19 holds (its widest line). A network's feed speaks for its own addresses; one that holds more is
 * given its prefixes, and many narrow lines cannot add up to a share of the Internet.
 *
 * @internal Exported for its tests.
 */
export const FETCHED_FEED_CEILING = { 4: 10, 6: 19 } as const;

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
 *   ISO 3166-2 or is of another country, a city without a country, a prefix given twice; or, for a
 *   fetched feed without allowed prefixes, when its lines cover more than {@link FETCHED_FEED_CEILING}.
 */
export function parseGeofeed(content: Uint8Array, label: string, policy: GeofeedPolicy = LOCAL_FILE): Geofeed {
  const reader = new GeofeedReader(label, policy, true);
  const text = utf8Text(content, label);
  // A batch of about a mebibyte at a time: the CSV parser's buffers stay that small.
  for (let at = 0; at < text.length; at += BATCH_CHARACTERS) reader.push(text.slice(at, at + BATCH_CHARACTERS));
  return reader.end();
}

/**
 * Reads a geofeed as it comes (a download), checking each line as {@link parseGeofeed} does, keeping
 * of its entries only their networks (for prefixes given twice and the feed's coverage), and the bytes, for the cache.
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
  /** The lines refused, in line order. */
  private readonly faults: { readonly line: number; readonly why: string }[] = [];
  private readonly entries = new GeofeedEntries();
  private readonly quote: (text: string, what: string) => string;

  /** @param keep whether the entries' places are kept (the build), or only their networks (a download's check). */
  constructor(
    private readonly label: string,
    private readonly policy: GeofeedPolicy,
    private readonly keep: boolean,
  ) {
    this.quote = policy.fetched ? (_text, what) => what : (text) => JSON.stringify(text);
  }

  /** Lines that set a prefix. */
  get prefixes(): number {
    return this.entries.length;
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

  /**
   * Reads what is left, then holds the feed whole to its bounds: one line per prefix, and a fetched feed
   * without allowed prefixes to {@link FETCHED_FEED_CEILING}.
   *
   * @throws SourceError listing the refused lines, if any; or saying what the feed covers, over the ceiling.
   */
  end(): Geofeed {
    if (this.pending !== '') this.batch(this.pending);
    this.pending = '';
    const twice = this.entries.givenTwice();
    if (this.faults.length > 0 || twice.length > 0) this.refuse(twice);
    if (this.policy.fetched && this.policy.allowed === undefined) this.holdToCeiling(this.entries.coverage());
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
    if (typeof entry === 'string') this.faults.push({ line, why: entry });
    else this.entries.add(entry.network, line, this.keep ? entry : undefined);
    if (this.faults.length >= MAX_REFUSED_LINES) this.refuse([], line);
  }

  /**
   * @param twice the entries whose prefix an earlier line gave, in line order.
   * @throws SourceError listing the first faults in line order; `stoppedAt` when reading stops there.
   */
  private refuse(twice: readonly GivenTwice[], stoppedAt?: number): never {
    const { faults, entries } = this;
    const count = faults.length + twice.length;
    const listed: string[] = [];
    for (let f = 0, t = 0; listed.length < LISTED_FAULTS && f + t < count; ) {
      const fault = faults[f];
      const again = twice[t];
      if (fault !== undefined && (again === undefined || fault.line < again.line)) {
        listed.push(`\n  line ${fault.line}: ${fault.why}`);
        f++;
      } else if (again !== undefined) {
        const prefix = entries.prefixAt(again.index);
        listed.push(`\n  line ${again.line}: ${prefix} again, already given on line ${again.first} (RFC 8805, section 2.1.3: one line per prefix)`);
        t++;
      }
    }
    const more = count > LISTED_FAULTS ? `\n  and ${count - LISTED_FAULTS} more` : '';
    const stopped = stoppedAt === undefined ? '' : ` (reading stopped at line ${stoppedAt}, after ${MAX_REFUSED_LINES} refused lines)`;
    throw new SourceError(`${this.label}: ${count === 1 ? 'a line is' : `${count} lines are`} refused${stopped}:${listed.join('')}${more}`);
  }

  /** @throws SourceError when `coverage` is over {@link FETCHED_FEED_CEILING} in either family. */
  private holdToCeiling(coverage: Coverage): void {
    const most = { ipv4: 2 ** (32 - FETCHED_FEED_CEILING[4]), ipv6: 2 ** (64 - FETCHED_FEED_CEILING[6]) };
    for (const family of ['ipv4', 'ipv6'] as const) {
      if (coverage[family] <= most[family]) continue;
      const [bits, unit] = family === 'ipv4' ? ([4, 'IPv4 addresses'] as const) : ([6, 'IPv6 /64s'] as const);
      throw new SourceError(
        `${this.label}: its lines cover ${coverage[family]} ${unit} (${asPrefix(coverage[family], bits)}), over the ceiling of ${asPrefix(most[family], bits)} ` +
          'for a published feed without the prefixes it may correct: list them (a feed URL#prefixes=…)',
      );
    }
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
 * for IPv6), as a network of the tree's space and its canonical text, or why it is refused: read as
 * every input's prefixes are (`data/sources/prefix.ts`, {@link GEOFEED_PREFIXES}), then held to `policy`.
 */
function prefixOf(text: string, policy: GeofeedPolicy, quote: (text: string, what: string) => string): { network: Network; text: string } | string {
  const read = readPrefix(text, GEOFEED_PREFIXES, quote(text, 'the prefix'));
  if ('refused' in read) return read.refused;
  if ('dropped' in read) return read.dropped;
  return boundRefusal(read.network, read.text, read.family, policy) ?? read;
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
