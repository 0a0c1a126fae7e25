/**
 * @module The one lookup pipeline: address texts → a found record or a tagged failure each, for every
 * route (single, bulk, distance; JSON and XML). Speaks no HTTP: the routes map failures to problems.
 */
import type { GeoDatabase } from '../geo/database.ts';
import type { LanguageIndex } from '../geo/languages.ts';
import { type IpAddress, parseIp } from '../ip/address.ts';
import { type SpecialRange, specialRangeOf } from '../ip/special-ranges.ts';
import { type RecordEntry, recordsOf } from './records.ts';

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

/** An address and its record, in the database that holds it. */
export interface Found {
  readonly kind: 'found';
  readonly address: IpAddress;
  readonly record: RecordEntry;
  readonly database: GeoDatabase;
}

/** What the pipeline answers for one address. */
export type Outcome = Found | LookupFailure;

/**
 * Looks every text up: `outcomes[i]` answers `texts[i]`. The tree walks of the IPv4 addresses advance
 * together (`MmdbReader#offsetsOfIpv4`), so that a bulk request's memory reads overlap.
 *
 * @param options.positions true when only an address with a position will do (distance): one at
 *   latitude 0 and longitude 0, the data's "unknown", is then a `no-location` failure.
 * @throws DataUnavailableError when the database itself fails (which fails every address).
 */
export function lookupAll(database: GeoDatabase, texts: readonly string[], options: { readonly positions?: boolean } = {}): Outcome[] {
  const count = texts.length;
  const addresses: (IpAddress | undefined)[] = new Array(count);
  const offsets = new Int32Array(count);
  const outcomes: Outcome[] = new Array(count);
  const ipv4 = new Uint32Array(count);
  const ipv4Index = new Int32Array(count);
  let ipv4Count = 0;
  for (let i = 0; i < count; i++) {
    const address = parseIp(texts[i] as string);
    const range = address && specialRangeOf(address);
    if (address === undefined) outcomes[i] = INVALID;
    else if (range !== undefined) outcomes[i] = { kind: 'reserved', address: address.canonical, range };
    else if (address.version === 6) offsets[i] = database.offsetOfIpv6(address.w0, address.w1, address.w2, address.w3);
    else {
      ipv4[ipv4Count] = address.w3;
      ipv4Index[ipv4Count++] = i;
    }
    addresses[i] = address;
  }
  if (ipv4Count === 1) offsets[ipv4Index[0] as number] = database.offsetOfIpv4(ipv4[0] as number);
  else if (ipv4Count > 1) {
    const found = new Int32Array(ipv4Count);
    database.offsetsOfIpv4(ipv4, ipv4Count, new Int32Array(ipv4Count), found);
    for (let k = 0; k < ipv4Count; k++) offsets[ipv4Index[k] as number] = found[k] as number;
  }
  const records = recordsOf(database);
  for (let i = 0; i < count; i++) {
    if (outcomes[i] !== undefined) continue;
    const address = addresses[i] as IpAddress;
    const offset = offsets[i] as number;
    if (offset < 0) {
      outcomes[i] = { kind: 'not-found', address: address.canonical };
      continue;
    }
    const record = records.recordAt(offset);
    const { latitude, longitude } = record.location.location;
    outcomes[i] =
      options.positions && latitude === 0 && longitude === 0
        ? { kind: 'no-location', address: address.canonical }
        : { kind: 'found', address, record, database };
  }
  return outcomes;
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
    city: location.cityName(language),
    country: location.country.countryName(language),
  };
}
