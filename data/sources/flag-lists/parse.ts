/**
 * @module What every published list of networks is held to, whatever its format: its entries are IPv4
 * addresses in four-part decimal or IPv6 addresses, each with an optional prefix length; no entry spans
 * more than a /8 of IPv4 or a /16 of IPv6 (no operator's list holds such a block, so one is a damaged
 * list); no IPv6 entry reaches into ::/96, where the tree keeps IPv4. An entry inside the tree's other
 * IPv4 aliases (::ffff:0:0/96, 2002::/16), answered as the IPv4 address it embeds, is dropped and said.
 * Messages name the line or JSON path, never quoting what a publisher wrote. JSON envelopes are checked with zod.
 */
import type { z } from 'zod';
import type { Network } from '../../mmdb/search-tree.ts';
import { LIST_ENTRIES, readPrefix } from '../prefix.ts';
import { SourceError } from '../source.ts';

/** What a format reader finds in one of a publisher's files. */
interface ParsedFile {
  readonly networks: readonly Network[];
  /** The entries dropped for lying in an IPv4 alias, each said as `line 3: ::ffff:1.2.3.0/120 is in ::ffff:0:0/96 (IPv4-mapped)`. */
  readonly dropped: readonly string[];
  /** The publisher's own version of the file (AWS's `syncToken`, Azure's `changeNumber`…), when it states one. */
  readonly version?: string;
  /** When the publisher made the file, RFC 3339 UTC, when it states it. */
  readonly builtAt?: string;
}

/**
 * Reads one file of a publisher.
 *
 * @param label names the file in errors (`aws ip-ranges.json (data/cache/lists/aws/ip-ranges.json)`).
 * @param name the file's own name, which may carry its date (Azure's `ServiceTags_Public_20261116.json`).
 * @throws SourceError naming the line or JSON path of the first entry that is not a network.
 */
export type FormatReader = (content: Buffer, label: string, name: string) => ParsedFile;

/** The widest entry accepted, by address family: prefix lengths shorter than these are refused. */
const WIDEST = { 4: 8, 6: 16 } as const;

/** An entry as read: its network, or that it is dropped (in an IPv4 alias), or why it is refused. */
type Entry = { readonly network: Network } | { readonly dropped: string } | { readonly refused: string };

/**
 * Parses one entry: `a.b.c.d`, `a.b.c.d/n`, an IPv6 address or an IPv6 CIDR (an address alone is a /32
 * or a /128), into the search tree's space, as every list is read (`../prefix.ts`, {@link LIST_ENTRIES}).
 *
 * @param family the family the entry must be of, when the format says (AWS's `ip_prefix` is IPv4).
 * @returns the network; or, for an entry in an IPv4 alias, why it is dropped; or why it is refused.
 */
function parsePrefix(entry: string, family?: 4 | 6): Entry {
  if (family !== undefined && (entry.includes(':') ? 6 : 4) !== family) return { refused: `the entry is not an IPv${family} network` };
  const read = readPrefix(entry, LIST_ENTRIES, 'the entry');
  if (!('network' in read)) return read;
  const length = read.network.prefixLength - (read.family === 4 ? 96 : 0);
  if (length < WIDEST[read.family]) return { refused: `the entry spans more than a /${WIDEST[read.family]}, which no list of one operator holds` };
  return { network: read.network };
}

/**
 * Parses the entries of a line-based file, the entry of each line being what `entryOf` takes of it
 * (the line, or its first comma-separated field); blank lines and `#` comments are skipped.
 *
 * @throws SourceError naming the line of the first entry that is not a network.
 */
export function networksOfLines(content: Buffer, label: string, entryOf: (line: string) => string): Pick<ParsedFile, 'networks' | 'dropped'> {
  const networks: Network[] = [];
  const dropped: string[] = [];
  const lines = content.toString('utf8').split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const entry = parsePrefix(entryOf(line).trim());
    if ('refused' in entry) throw new SourceError(`${label} line ${index + 1}: ${entry.refused}`);
    if ('dropped' in entry) dropped.push(`line ${index + 1}: ${entry.dropped}`);
    else networks.push(entry.network);
  }
  return { networks, dropped };
}

/**
 * Parses a JSON file and checks it against `schema`.
 *
 * @throws SourceError when the file is not JSON, or naming the path of the first value that does not fit.
 */
export function parseJson<T>(content: Buffer, label: string, schema: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(content.toString('utf8'));
  } catch {
    // The parser's message quotes the text around the fault: what a publisher wrote is not repeated.
    throw new SourceError(`${label} is not JSON`);
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new SourceError(`${label}: ${issue ? `${jsonPath(issue.path)}: ${issue.message}` : 'not of the expected shape'}`);
  }
  return result.data;
}

/**
 * Parses the prefixes of a JSON file, each named by its path for errors.
 *
 * @throws SourceError naming the path of the first prefix that is not a network (of `family`, when given).
 */
export function networksOfJson(
  entries: Iterable<{ path: readonly PropertyKey[]; prefix: string; family?: 4 | 6 }>,
  label: string,
): Pick<ParsedFile, 'networks' | 'dropped'> {
  const networks: Network[] = [];
  const dropped: string[] = [];
  for (const { path, prefix, family } of entries) {
    const entry = parsePrefix(prefix, family);
    if ('refused' in entry) throw new SourceError(`${label}: ${jsonPath(path)}: ${entry.refused}`);
    if ('dropped' in entry) dropped.push(`${jsonPath(path)}: ${entry.dropped}`);
    else networks.push(entry.network);
  }
  return { networks, dropped };
}

/** `prefixes[3].ip_prefix`, as a reader of the file would find the value. */
function jsonPath(path: readonly PropertyKey[]): string {
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`)).join('') || '(the whole file)';
}

/**
 * A publisher's timestamp without a zone (`2026-11-17T10:01:02.123456`, Google's and Oracle's, which are
 * UTC) or with `Z`, as RFC 3339 UTC with milliseconds.
 *
 * @returns undefined when the text is not such a timestamp.
 */
export function utcTimestamp(text: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z?$/.exec(text);
  if (!match) return undefined;
  const time = Date.parse(`${match[1]}T${match[2]}${(match[3] ?? '.000').slice(0, 4).padEnd(4, '0')}Z`);
  return Number.isFinite(time) ? new Date(time).toISOString() : undefined;
}
