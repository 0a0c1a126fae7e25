/** @module The one lookup pipeline: address texts → a found record or a tagged failure each, for every route; speaks no HTTP. */
import type { GeoDatabase } from '../geo/database.ts';
import type { LanguageIndex } from '../geo/languages.ts';
import { type IpAddress, parseIp } from '../ip/address.ts';
import { type SpecialRange, specialRangeOf } from '../ip/special-ranges.ts';
import { type RecordEntry, type Records, recordsOf } from './records.ts';

/**
 * Why an address has no answer:
 *
 * - `invalid`: the text is not an IPv4 or IPv6 address;
 * - `reserved`: a special-purpose address (`range` names the block and its RFC);
 * - `not-found`: a public address that the data does not cover;
 * - `no-location`: the data knows the address but not where it is (only where a position is needed).
 */
export type LookupFailure =
  | { readonly kind: 'invalid' }
  | { readonly kind: 'reserved'; readonly address: string; readonly range: SpecialRange }
  | { readonly kind: 'not-found'; readonly address: string }
  | { readonly kind: 'no-location'; readonly address: string };

/** An address and its record. */
export interface Found {
  readonly kind: 'found';
  readonly address: IpAddress;
  readonly record: RecordEntry;
}

/** What the pipeline answers for one address. */
export type Outcome = Found | LookupFailure;

/** What to ask of a lookup. */
export interface LookupOptions {
  /**
   * True when only an address with a position will do (distance): one at latitude 0 and longitude 0,
   * the data's "unknown", is then a `no-location` failure.
   */
  readonly positions?: boolean;
}

/**
 * Looks every text up: `outcomes[i]` answers `texts[i]`.
 *
 * @throws DataUnavailableError when the database itself fails (which fails every address).
 * @example lookupAll(database, ['81.2.69.142', '10.0.0.1']) // [{ kind: 'found', … }, { kind: 'reserved', … }]
 */
export function lookupAll(database: GeoDatabase, texts: readonly string[], options: LookupOptions = {}): Outcome[] {
  const records = recordsOf(database);
  const outcomes: Outcome[] = new Array(texts.length);
  const publicAt: number[] = []; // where the public addresses are in `texts`
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
  const offsets = database.offsetsOf(addresses);
  for (let k = 0; k < addresses.length; k++) {
    outcomes[publicAt[k] as number] = located(records, addresses[k] as IpAddress, offsets[k] as number, options);
  }
  return outcomes;
}

/** The outcome of a public address whose data offset is `offset` (-1: none). */
function located(records: Records, address: IpAddress, offset: number, options: LookupOptions): Outcome {
  if (offset < 0) return { kind: 'not-found', address: address.canonical };
  const record = records.recordAt(offset);
  if (options.positions && record.location.location.latitude === 0 && record.location.location.longitude === 0) {
    return { kind: 'no-location', address: address.canonical };
  }
  return { kind: 'found', address, record };
}

const INVALID: LookupFailure = Object.freeze({ kind: 'invalid' });

/** Where a found address is: its canonical text, WGS84 degrees, and its city's and country's names in `language`. */
export interface Position {
  readonly ip: string;
  readonly latitude: number;
  readonly longitude: number;
  readonly city: string;
  readonly country: string;
}

/** The position of a found record (see {@link Position}). */
export function positionOf(found: Found, language: LanguageIndex): Position {
  const { location } = found.record;
  return {
    ip: found.address.canonical,
    latitude: location.location.latitude,
    longitude: location.location.longitude,
    city: location.placeName('city', language),
    country: location.country.countryName(language),
  };
}
