/**
 * @module Looks addresses up: parse, refuse special-purpose ranges, search the database, assemble.
 * Knows nothing of HTTP; failures are {@link ProblemError}s.
 */
import { ProblemError } from '../errors/problem.ts';
import type { GeoDatabase } from '../geo/database.ts';
import { IpAddressError } from '../ip/address.ts';
import { parseAndCheckPublic } from '../ip/special-ranges.ts';
import { type IpInfo, type IpInfoFacts, infoFacts, ipInfo } from './ip-info.ts';

/** Finished records kept per data offset; bounded so that memory stays flat whatever is asked. */
export const RECORD_CACHE_SIZE = 20_000;

const caches = new WeakMap<GeoDatabase, Map<number, IpInfoFacts>>();

function cacheOf(database: GeoDatabase): Map<number, IpInfoFacts> {
  let cache = caches.get(database);
  if (!cache) {
    cache = new Map();
    caches.set(database, cache);
  }
  return cache;
}

/**
 * The IP info record of one address.
 *
 * @param text the address as the client wrote it (any valid IPv4 or IPv6 form).
 * @throws ProblemError `IP_ADDRESS_INVALID`, `IP_ADDRESS_RESERVED` (detail names the range and RFC),
 *   `IP_ADDRESS_NOT_FOUND`, or `DATA_UNAVAILABLE`.
 */
export function lookupAddress(database: GeoDatabase, text: string): IpInfo {
  let parsed: ReturnType<typeof parseAndCheckPublic>;
  try {
    parsed = parseAndCheckPublic(text);
  } catch (error) {
    if (error instanceof IpAddressError) {
      throw new ProblemError(error.kind === 'invalid' ? 'IP_ADDRESS_INVALID' : 'IP_ADDRESS_RESERVED', error.message, {
        extensions: error.range ? { range: error.range.cidr, rfc: error.range.rfc } : {},
      });
    }
    throw error;
  }
  const offset = database.offsetOf(parsed.bytes, parsed.version === 4);
  if (offset < 0) {
    throw new ProblemError('IP_ADDRESS_NOT_FOUND', `${parsed.canonical} is a public address that the geolocation data does not cover.`);
  }
  const cache = cacheOf(database);
  let facts = cache.get(offset);
  if (facts === undefined) {
    facts = infoFacts(database.factsAt(offset));
    if (cache.size >= RECORD_CACHE_SIZE) cache.delete(cache.keys().next().value as number);
    cache.set(offset, facts);
  }
  return ipInfo(parsed.version, parsed.canonical, facts);
}
