/**
 * @module The operator's corrections (docs/operations.md, "Corrections"): RFC 8805 geofeeds, given by
 * path (`--corrections`) or fetched by `data:update --geofeed`, whose lines take precedence over the
 * location source for the addresses of their prefixes. Of lines that overlap, the longer prefix wins,
 * and of lines with the same prefix, the later file's; a prefix inside a source network splits it.
 */
import { basename } from 'node:path';
import type { StoredLocation } from '../../src/geo/schema.ts';
import { isIpv4Network, parseNetwork } from '../mmdb/network.ts';
import { type Network, SearchTree } from '../mmdb/search-tree.ts';
import { readSourceFile } from '../sources/source.ts';
import { parseGeofeed } from './geofeed.ts';
import type { GeofeedEntries } from './geofeed-entries.ts';
import type { Located, Precision, SourcePlaces } from './places.ts';

/** A corrections file as the manifest records it. */
export interface CorrectionsInfo {
  /**
   * The file's name, or the URL a geofeed was fetched from, its origin and path only (its query may
   * hold a token): what the status and the home page show.
   */
  readonly name: string;
  /** `file`: given by path; `url`: a published geofeed that `data:update --geofeed` fetched. */
  readonly origin: 'file' | 'url';
  /** Where the build read it. */
  readonly path: string;
  /** Size in bytes. */
  readonly bytes: number;
  /** Hex SHA-256 of the file's content. */
  readonly sha256: string;
  /** Lines of text, comments and blank lines included. */
  readonly lines: number;
  /** Lines that set a prefix. */
  readonly prefixes: number;
  /** When `data:update` fetched a geofeed with this content, RFC 3339 (geofeeds only). */
  readonly fetchedAt?: string;
}

/** A corrections file, read and checked. */
export interface CorrectionsFile {
  readonly info: CorrectionsInfo;
  readonly entries: GeofeedEntries;
}

/** Where a geofeed that `data:update` fetched came from. */
export interface FetchedGeofeed {
  /** Its origin and path, never its query (`data/update/destination.ts`, `publicUrl`). */
  readonly url: string;
  /** RFC 3339. */
  readonly fetchedAt: string;
  /** The prefixes the operator lets it correct (`--geofeed URL#prefixes=…`), as CIDR text; absent when not limited so. */
  readonly allowed?: readonly string[];
}

/**
 * Reads a corrections file (an RFC 8805 geofeed).
 *
 * @param fetched for a geofeed that `data:update` fetched: its URL (which names it), date and allowed prefixes.
 * @param allowWide for a file of the operator's own: lines wider than the widest correction are accepted.
 * @throws SourceError when the file is missing, empty, or refused by {@link parseGeofeed}.
 */
export function correctionsFile(path: string, fetched?: FetchedGeofeed, allowWide = false): CorrectionsFile {
  const label = fetched ? `--geofeed ${fetched.url}` : `--corrections ${path}`;
  const { content, file } = readSourceFile(path, label);
  const policy = fetched
    ? { fetched: true, ...(fetched.allowed ? { allowed: fetched.allowed.map((prefix) => parseNetwork(prefix)) } : {}) }
    : { fetched: false, allowWide };
  const { entries, lines } = parseGeofeed(content, label, policy);
  const info: CorrectionsInfo = {
    name: fetched ? fetched.url : basename(path),
    origin: fetched ? 'url' : 'file',
    path,
    bytes: file.bytes,
    sha256: file.sha256,
    lines,
    prefixes: entries.length,
    ...(fetched ? { fetchedAt: fetched.fetchedAt } : {}),
  };
  return { info, entries };
}

/** What the corrections did to a build: the figures the manifest keeps and the build log says. */
export interface CorrectionsCounts {
  /** Lines that set a prefix, in every file. */
  readonly prefixes: number;
  /** Of them, those that answer at least one address: the others are overridden whole, by longer prefixes or a later file. */
  readonly applied: number;
  /** IPv4 addresses that a correction answers. */
  readonly ipv4Addresses: number;
  /** IPv6 addresses that a correction answers, as decimal text (up to 2¹²⁸). */
  readonly ipv6Addresses: string;
  /** Of the lines applied, how many take their coordinates from their city, region or country, and how many have none. */
  readonly coordinates: Readonly<Record<Precision, number>>;
}

/** {@link applyCorrections}'s figures, and what an operator should check (lines overridden, places the source does not know). */
export interface CorrectionsReport {
  readonly counts: CorrectionsCounts;
  readonly notes: readonly string[];
}

/** The most lines a note names; it says how many more there are. */
const NAMED_LINES = 5;

/**
 * Applies the corrections to the overlay: works out which line answers each address (the longer
 * prefix, then the later file), and hands each piece of address space to `apply` with the location that
 * line sets (undefined where it states no location), in address order.
 *
 * @param apply sets `network` (a network of the tree's space, which may be part of a line's prefix)
 *   to `location` in the overlay with `accuracyRadius` (km, {@link Located.accuracyRadius}), replacing
 *   the source's location and radius there.
 */
export function applyCorrections(
  files: readonly CorrectionsFile[],
  places: SourcePlaces,
  apply: (network: Network, location: StoredLocation | undefined, accuracyRadius: number) => void,
): CorrectionsReport {
  // Every line of every file by one index, in file order then line order.
  const starts: number[] = [];
  let total = 0;
  for (const file of files) {
    starts.push(total);
    total += file.entries.length;
  }
  const fileOf = (index: number) => {
    let order = files.length - 1;
    while ((starts[order] as number) > index) order--;
    return { file: files[order] as CorrectionsFile, at: index - (starts[order] as number) };
  };
  // Shorter prefixes first and earlier files first, so that each insert replaces what it overrides.
  const lengthOf = (index: number) => {
    const { file, at } = fileOf(index);
    return file.entries.prefixLengthAt(at);
  };
  const precedence = Uint32Array.from({ length: total }, (_, index) => index).sort((a, b) => lengthOf(a) - lengthOf(b) || a - b);
  const winners = new SearchTree();
  for (const index of precedence) {
    const { file, at } = fileOf(index);
    winners.insert(file.entries.networkAt(at), index);
  }

  const located = new Map<number, Located>();
  let ipv4Addresses = 0;
  let ipv6Addresses = 0n;
  winners.forEachSlot((index, prefixLength, start) => {
    if (index === undefined) return;
    let line = located.get(index);
    if (line === undefined) {
      const { file, at } = fileOf(index);
      line = places.locate(file.entries.at(at));
      located.set(index, line);
    }
    apply({ bytes: start.slice(), prefixLength }, line.location, line.accuracyRadius);
    if (isIpv4Network({ bytes: start, prefixLength })) ipv4Addresses += 2 ** (128 - prefixLength);
    else ipv6Addresses += 1n << BigInt(128 - prefixLength);
  });

  const where = (index: number) => {
    const { file, at } = fileOf(index);
    const entry = file.entries.at(at);
    return `${file.info.name} line ${entry.line} (${entry.prefix})`;
  };
  const overridden: number[] = [];
  for (let index = 0; index < total; index++) if (!located.has(index)) overridden.push(index);
  const unknownCities = [...located].filter(([, line]) => line.cityKnown === false).map(([index]) => index);
  const unknownRegions = [...located].filter(([, line]) => line.regionKnown === false).map(([index]) => index);
  const notes = [
    note(overridden, where, 'overridden whole by longer prefixes or by a later file with the same prefix'),
    note(unknownCities, where, 'a city the location source does not know: named in English only, with its region’s or country’s coordinates'),
    note(unknownRegions, where, 'a region the location source does not know: answered with its code and no name'),
  ].filter((text) => text !== '');
  const coordinates: Record<Precision, number> = { city: 0, region: 0, country: 0, none: 0 };
  for (const line of located.values()) if (line.location !== undefined) coordinates[line.precision]++;
  return {
    counts: { prefixes: total, applied: located.size, ipv4Addresses, ipv6Addresses: String(ipv6Addresses), coordinates },
    notes,
  };
}

/** One note naming the first lines of `indices`, or '' for none. */
function note(indices: readonly number[], where: (index: number) => string, what: string): string {
  if (indices.length === 0) return '';
  const named = indices.slice(0, NAMED_LINES).map(where).join(', ');
  const more = indices.length > NAMED_LINES ? ` and ${indices.length - NAMED_LINES} more` : '';
  return `${indices.length === 1 ? '1 line' : `${indices.length} lines`}, ${what}: ${named}${more}`;
}

/**
 * The corrections' figures in words, for the build log: how many lines apply and how many addresses
 * they answer (IPv6 in /64 networks once it is that large).
 *
 * @example describeCorrections({ prefixes: 3, applied: 3, ipv4Addresses: 512, ipv6Addresses: '1208925819614629174706176', … })
 *   // '3 of 3 correction lines apply, to 512 IPv4 addresses and 65536 IPv6 /64 networks'
 */
export function describeCorrections(counts: CorrectionsCounts): string {
  const ipv6 = BigInt(counts.ipv6Addresses);
  const slash64 = 1n << 64n;
  const ipv6Text = ipv6 >= slash64 && ipv6 % slash64 === 0n ? `${ipv6 / slash64} IPv6 /64 networks` : `${ipv6} IPv6 addresses`;
  return `${counts.applied} of ${counts.prefixes} correction lines apply, to ${counts.ipv4Addresses} IPv4 addresses and ${ipv6Text}`;
}
