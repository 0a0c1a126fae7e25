/**
 * @module The one lookup pipeline: address texts → a found record or a tagged failure each, for every
 * route; speaks no HTTP. Its two halves run apart where the database is sharded: the app parses
 * ({@link parseAll}), each shard Worker locates its addresses ({@link locateAll}, `shard-calls.ts`).
 */
import type { Utf8 } from '../format/utf8.ts';
import type { GeoDatabase } from '../geo/database.ts';
import type { LanguageIndex } from '../geo/languages.ts';
import { type IpAddress, parseIp } from '../ip/address.ts';
import { type SpecialRange, specialRangeOf } from '../ip/special-ranges.ts';
import { type EntryCaches, entryCachesOf, type RecordEntry } from './entry-caches.ts';

/**
 * Why an address has no answer:
 *
 * - `invalid`: the text is not an IPv4 or IPv6 address;
 * - `reserved`: a special-purpose address (`range` names the block and its RFC);
 * - `not-found`: a public address that the data does not cover;
 * - `no-location`: the data knows the address but not where it is (only where a position is needed);
 * - `unavailable`: the shard that holds the address cannot answer (a sharded database; the shard's
 *   reason is logged, never answered). A database that does not shard fails as a whole instead.
 */
export type LookupFailure =
  | { readonly kind: 'invalid' }
  | { readonly kind: 'reserved'; readonly address: string; readonly range: SpecialRange }
  | { readonly kind: 'not-found'; readonly address: string }
  | { readonly kind: 'no-location'; readonly address: string }
  | { readonly kind: 'unavailable'; readonly address: string };

/** An address and its record, in the database it was found in (which knows its network). */
export interface Found {
  readonly kind: 'found';
  readonly address: IpAddress;
  readonly record: RecordEntry;
  readonly database: GeoDatabase;
}

/**
 * An address whose record its shard Worker rendered (`shard-calls.ts`): in each format asked, exactly the
 * text that `render.ts` writes for a {@link Found} record.
 */
export interface Rendered {
  readonly kind: 'rendered';
  readonly json?: Utf8;
  readonly xml?: Utf8;
}

/** What a lookup answers for one address: in this isolate, a found record; from a shard, its record rendered. */
export type Outcome = Found | Rendered | LookupFailure;

/** What locating a public address answers. */
export type Located = Found | Extract<LookupFailure, { kind: 'not-found' | 'no-location' }>;

/** What to ask of a lookup. */
export interface LookupOptions {
  /**
   * True when only an address with a position will do (distance): one at latitude 0 and longitude 0,
   * the data's "unknown", is then a `no-location` failure.
   */
  readonly positions?: boolean;
}

/**
 * Looks every text up: `outcomes[i]` answers `texts[i]` ({@link parseAll}, then {@link locateAll}).
 *
 * @throws DataUnavailableError when the database itself fails (which fails every address).
 * @example lookupAll(database, ['81.2.69.142', '10.0.0.1']) // [{ kind: 'found', … }, { kind: 'reserved', … }]
 */
export function lookupAll(database: GeoDatabase, texts: readonly string[], options: LookupOptions = {}): (Found | LookupFailure)[] {
  const { outcomes, publicAt, addresses } = parseAll(texts);
  const located = locateAll(database, addresses, options);
  const answered = outcomes as (Found | LookupFailure)[];
  for (let k = 0; k < addresses.length; k++) answered[publicAt[k] as number] = located[k] as Located;
  return answered;
}

/** Texts parsed: the failures of those that are no public address, and the public addresses to locate. */
export interface Parsed {
  /** By text: its failure, or undefined where it is a public address. */
  readonly outcomes: (LookupFailure | undefined)[];
  /** Where each public address is in the texts. */
  readonly publicAt: number[];
  readonly addresses: IpAddress[];
}

/** Parses every text: invalid, reserved (a special-purpose range), or a public address to locate. */
export function parseAll(texts: readonly string[]): Parsed {
  const outcomes: (LookupFailure | undefined)[] = new Array(texts.length);
  const publicAt: number[] = [];
  const addresses: IpAddress[] = [];
  for (let i = 0; i < texts.length; i++) {
    const address = parseIp(texts[i] as string);
    const range = address && specialRangeOf(address);
    if (address === undefined) outcomes[i] = INVALID;
    else if (range !== undefined) outcomes[i] = { kind: 'reserved', address: address.canonical, range };
    else {
      publicAt.push(i);
      addresses.push(address);
    }
  }
  return { outcomes, publicAt, addresses };
}

/**
 * Locates public addresses in `database`: `located[k]` answers `addresses[k]`.
 *
 * @throws DataUnavailableError when the database itself fails.
 */
export function locateAll(database: GeoDatabase, addresses: readonly IpAddress[], options: LookupOptions = {}): Located[] {
  const caches = entryCachesOf(database);
  const offsets = database.offsetsOf(addresses);
  const located: Located[] = new Array(addresses.length);
  for (let k = 0; k < addresses.length; k++) located[k] = locatedAt(database, caches, addresses[k] as IpAddress, offsets[k] as number, options);
  return located;
}

/** The outcome of a public address whose data offset is `offset` (-1: none). */
function locatedAt(database: GeoDatabase, caches: EntryCaches, address: IpAddress, offset: number, options: LookupOptions): Located {
  if (offset < 0) return { kind: 'not-found', address: address.canonical };
  const record = caches.recordAt(offset);
  if (options.positions && record.location.location.latitude === 0 && record.location.location.longitude === 0) {
    return { kind: 'no-location', address: address.canonical };
  }
  return { kind: 'found', address, record, database };
}

const INVALID: LookupFailure = Object.freeze({ kind: 'invalid' });

/** Where a found address is on the earth (not its position in the address space, `geo/shard-ranges.ts`): its canonical text, WGS84 degrees, and its city's and country's names in `language`. */
export interface GeoPosition {
  readonly ip: string;
  readonly latitude: number;
  readonly longitude: number;
  readonly city: string;
  readonly country: string;
}

/** The position of a found record (see {@link GeoPosition}). */
export function positionOf(found: Found, language: LanguageIndex): GeoPosition {
  const { location } = found.record;
  return {
    ip: found.address.canonical,
    latitude: location.location.latitude,
    longitude: location.location.longitude,
    city: location.placeName('city', language),
    country: location.country.countryName(language),
  };
}
