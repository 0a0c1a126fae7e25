/**
 * @module Looks addresses up: parse, refuse special-purpose ranges, search the database, answer. Knows
 * nothing of HTTP; failures are {@link ProblemError}s.
 *
 * The path of a lookup allocates nothing it can do without: the address is parsed into one reused
 * object, the tree is walked on a 32-bit number for IPv4, and the answer is assembled from the parts
 * of `answers.ts`, cached by data offset in `answer-cache.ts`. What is left per lookup is the answer
 * itself: the record object, or the JSON or XML text.
 */
import { ProblemError } from '../errors/problem.ts';
import type { GeoDatabase } from '../geo/database.ts';
import { IpAddressError } from '../ip/address.ts';
import { Answers } from './answer-cache.ts';
import { FRAME } from './answers.ts';
import type { IpInfo } from './ip-info.ts';
import { newPublicAddress, type PublicAddress, parsePublicAddress } from './parse.ts';

let answers: Answers | undefined;
// Lookups are synchronous, so one parsed address serves every lookup of the isolate.
const address: PublicAddress = newPublicAddress();

/** The answers of `database`, started afresh when another database has been loaded. */
function answersOf(database: GeoDatabase): Answers {
  if (answers?.database !== database) answers = new Answers(database);
  return answers;
}

/**
 * Parses `text` into the shared {@link address}.
 *
 * @throws ProblemError `IP_ADDRESS_INVALID`, `IP_ADDRESS_RESERVED`.
 */
function parse(text: string): PublicAddress {
  try {
    return parsePublicAddress(text, address);
  } catch (error) {
    if (error instanceof IpAddressError) {
      throw new ProblemError(error.kind === 'invalid' ? 'IP_ADDRESS_INVALID' : 'IP_ADDRESS_RESERVED', error.message, {
        extensions: error.range ? { range: error.range.cidr, rfc: error.range.rfc } : {},
      });
    }
    throw error;
  }
}

function notFound(canonical: string): ProblemError {
  return new ProblemError('IP_ADDRESS_NOT_FOUND', `${canonical} is a public address that the geolocation data does not cover.`);
}

/**
 * Parses `text` into the shared {@link address} and finds the data offset of its record.
 *
 * @throws ProblemError `IP_ADDRESS_INVALID`, `IP_ADDRESS_RESERVED`, `IP_ADDRESS_NOT_FOUND`, `DATA_UNAVAILABLE`.
 */
function recordOf(database: GeoDatabase, text: string): number {
  parse(text);
  const offset = address.version === 4 ? database.offsetOfIpv4(address.ipv4) : database.offsetOf(address.bytes, false);
  if (offset < 0) throw notFound(address.canonical);
  return offset;
}

/**
 * Parses `text` into the shared {@link address} and selects the parts of its record.
 *
 * @throws ProblemError as {@link recordOf}.
 */
function find(database: GeoDatabase, text: string): Answers {
  return answersOf(database).select(recordOf(database, text));
}

/**
 * The IP info record of one address. Its arrays are shared with other answers and frozen.
 *
 * @param text the address as the client wrote it (any valid IPv4 or IPv6 form).
 * @throws ProblemError `IP_ADDRESS_INVALID`, `IP_ADDRESS_RESERVED` (detail names the range and RFC),
 *   `IP_ADDRESS_NOT_FOUND`, or `DATA_UNAVAILABLE`.
 */
export function lookupAddress(database: GeoDatabase, text: string): IpInfo {
  const { location: place, network, isProxy } = find(database, text);
  const country = place.country;
  // Arrays are typed mutable in IpInfo for its users; these are frozen and shared.
  return {
    ipVersion: address.version,
    ipAddress: address.canonical,
    latitude: place.latitude,
    longitude: place.longitude,
    countryName: country.name,
    countryCode: place.countryCode,
    capital: country.capital,
    phoneCodes: country.phoneCodes as number[],
    timeZones: place.zones.timeZones as string[],
    zipCode: place.postalCode,
    cityName: place.cityName,
    regionName: place.regionName,
    regionCode: place.regionCode,
    continent: country.continentName,
    continentCode: country.continent,
    currencies: country.currencies as string[],
    languages: country.languages as string[],
    asn: network.asn,
    asnOrganization: network.organization,
    isProxy,
  };
}

/** Which text of a record {@link assemble} writes. */
type Shape = 'bulk-json' | 'xml';

/** A record's text from the cached parts of the answer for `text`, in the frame of `shape`. */
function assemble(database: GeoDatabase, text: string, shape: Shape): string {
  const selected = find(database, text);
  return render(selected, address.version, address.canonical, shape);
}

/** The text of the answer `selected` (as {@link Answers.select} left it) for an address, in the frame of `shape`. */
function render({ location, network, isProxy }: Answers, version: 4 | 6, canonical: string, shape: Shape): string {
  const { country } = location;
  const format = shape === 'xml' ? 'xml' : 'json';
  const frame = FRAME[format];
  const point = format === 'xml' ? location.pointXml : location.pointJson;
  const place = format === 'xml' ? location.placeXml : location.placeBulkJson;
  return (
    frame.start[version] +
    canonical +
    frame.afterAddress +
    point +
    country.head[format] +
    location.zones[format] +
    place +
    country.tail[format] +
    network[format] +
    frame.end[isProxy ? 'true' : 'false']
  );
}

/**
 * The IP info record of one address as JSON text: `JSON.stringify(lookupAddress(database, text))`,
 * assembled from the address and the record's two cached texts ({@link Answers.selectJson}).
 *
 * @throws ProblemError as {@link lookupAddress}.
 */
export function lookupJson(database: GeoDatabase, text: string): string {
  const { locationJson, networkJson, isProxy } = answersOf(database).selectJson(recordOf(database, text));
  const frame = FRAME.json;
  return frame.start[address.version] + address.canonical + frame.afterAddress + locationJson + networkJson + frame.end[isProxy ? 'true' : 'false'];
}

/** Scratch space of {@link lookupBulkJsons}, grown as needed: IPv4 addresses, their indexes, nodes, offsets. */
let batch = { ipv4: new Uint32Array(64), index: new Int32Array(64), nodes: new Int32Array(64), offsets: new Int32Array(64) };

/**
 * The bulk records of many addresses as JSON texts: `results[i]` is {@link lookupJson} of `texts[i]`
 * without `regionCode`, which the bulk shape of spec 2.1 leaves out, or the ProblemError that a single
 * lookup of it would throw (`IP_ADDRESS_INVALID`, `IP_ADDRESS_RESERVED`, `IP_ADDRESS_NOT_FOUND`).
 * The tree walks of the IPv4 addresses advance together (`GeoDatabase#offsetsOfIpv4`), so that their
 * memory reads overlap.
 *
 * @throws ProblemError `DATA_UNAVAILABLE` when the database itself fails (that fails every address).
 */
export function lookupBulkJsons(database: GeoDatabase, texts: readonly string[]): (string | ProblemError)[] {
  const count = texts.length;
  if (batch.ipv4.length < count) {
    const size = 2 ** Math.ceil(Math.log2(count));
    batch = { ipv4: new Uint32Array(size), index: new Int32Array(size), nodes: new Int32Array(size), offsets: new Int32Array(size) };
  }
  const results: (string | ProblemError)[] = new Array(count);
  const versions: (4 | 6)[] = new Array(count);
  const canonicals: string[] = new Array(count);
  const offsets: number[] = new Array(count);
  let ipv4Count = 0;
  for (let i = 0; i < count; i++) {
    try {
      parse(texts[i] as string);
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      results[i] = error;
      continue;
    }
    versions[i] = address.version;
    canonicals[i] = address.canonical;
    if (address.version === 4) {
      batch.ipv4[ipv4Count] = address.ipv4;
      batch.index[ipv4Count++] = i;
    } else {
      offsets[i] = database.offsetOf(address.bytes, false);
    }
  }
  database.offsetsOfIpv4(batch.ipv4, ipv4Count, batch.nodes, batch.offsets);
  for (let k = 0; k < ipv4Count; k++) offsets[batch.index[k] as number] = batch.offsets[k] as number;
  const selector = answersOf(database);
  for (let i = 0; i < count; i++) {
    if (results[i] !== undefined) continue;
    const offset = offsets[i] as number;
    const canonical = canonicals[i] as string;
    results[i] = offset < 0 ? notFound(canonical) : render(selector.select(offset), versions[i] as 4 | 6, canonical, 'bulk-json');
  }
  return results;
}

/**
 * The IP info record of one address as the XML of spec 2.1: `toXml('response', record)`, assembled
 * from cached parts.
 *
 * @throws ProblemError as {@link lookupAddress}.
 */
export function lookupXml(database: GeoDatabase, text: string): string {
  return assemble(database, text, 'xml');
}
