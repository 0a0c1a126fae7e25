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
 * Parses `text` into the shared {@link address} and finds its record.
 *
 * @throws ProblemError `IP_ADDRESS_INVALID`, `IP_ADDRESS_RESERVED`, `IP_ADDRESS_NOT_FOUND`, `DATA_UNAVAILABLE`.
 */
function find(database: GeoDatabase, text: string): Answers {
  try {
    parsePublicAddress(text, address);
  } catch (error) {
    if (error instanceof IpAddressError) {
      throw new ProblemError(error.kind === 'invalid' ? 'IP_ADDRESS_INVALID' : 'IP_ADDRESS_RESERVED', error.message, {
        extensions: error.range ? { range: error.range.cidr, rfc: error.range.rfc } : {},
      });
    }
    throw error;
  }
  const offset = address.version === 4 ? database.offsetOfIpv4(address.ipv4) : database.offsetOf(address.bytes, false);
  if (offset < 0) {
    throw new ProblemError('IP_ADDRESS_NOT_FOUND', `${address.canonical} is a public address that the geolocation data does not cover.`);
  }
  return answersOf(database).select(offset);
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
type Shape = 'json' | 'bulk-json' | 'xml';

/** A record's text from the cached parts of the answer for `text`, in the frame of `shape`. */
function assemble(database: GeoDatabase, text: string, shape: Shape): string {
  const { location, network, isProxy } = find(database, text);
  const { country } = location;
  const format = shape === 'xml' ? 'xml' : 'json';
  const frame = FRAME[format];
  const point = format === 'xml' ? location.pointXml : location.pointJson;
  const place = shape === 'xml' ? location.placeXml : shape === 'bulk-json' ? location.placeBulkJson : location.placeJson;
  return (
    frame.start[address.version] +
    address.canonical +
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
 * assembled from cached parts.
 *
 * @throws ProblemError as {@link lookupAddress}.
 */
export function lookupJson(database: GeoDatabase, text: string): string {
  return assemble(database, text, 'json');
}

/**
 * The bulk record of one address as JSON text: {@link lookupJson} without `regionCode`, which the
 * bulk shape of spec 2.1 leaves out.
 *
 * @throws ProblemError as {@link lookupAddress}.
 */
export function lookupBulkJson(database: GeoDatabase, text: string): string {
  return assemble(database, text, 'bulk-json');
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
