/**
 * @module Where `data:update` may connect, checked at every hop of every download: https only (plain
 * http only to this machine, when the first URL was http to this machine: local mirrors and tests), and
 * never to an address of the special-purpose table (`src/ip/special-ranges.ts`: private, link-local where
 * cloud metadata services answer, unique-local, carrier-grade NAT, …), a 6to4 address embedding one
 * included. Loopback only when the first URL was loopback. A name is checked by the addresses it
 * resolves to, at the moment of connecting (the address checked is the address connected to).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { effectivePosition } from '../../src/geo/shard-ranges.ts';
import { parseIp } from '../../src/ip/address.ts';
import { specialRangeOf } from '../../src/ip/special-ranges.ts';

/** A URL as logs and messages may show it: origin and path, never the query (it may hold a token) or credentials. */
export function publicUrl(url: string | URL): string {
  const parsed = typeof url === 'string' ? (URL.canParse(url) ? new URL(url) : undefined) : url;
  return parsed ? `${parsed.origin}${parsed.pathname}` : '(not a URL)';
}

/** Host names of this machine that plain http may reach. */
const LOCAL_NAMES = new Set(['localhost']);

/** The host of a URL without the brackets of an IPv6 literal. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Whether a URL names this machine: `localhost`, 127.0.0.0/8 or ::1. */
export function isLoopbackUrl(url: URL): boolean {
  const host = hostOf(url);
  if (LOCAL_NAMES.has(host.toLowerCase())) return true;
  const address = parseIp(host);
  return address !== undefined && specialRangeOf(address)?.name === 'loopback';
}

/**
 * Why a download may not connect to `address` (IP text), or undefined when it may.
 *
 * @param loopback whether loopback is allowed (the first URL of the download was loopback).
 * @internal Exported for its tests; downloads check through {@link hopRefusal} and {@link checkedLookup}.
 */
export function addressRefusal(address: string, loopback: boolean): string | undefined {
  const parsed = parseIp(address);
  if (parsed === undefined) return `${address} is not an IP address`;
  // 6to4 (2002::/16) reaches the IPv4 address it embeds: that address is the one checked too.
  const embedded = effectivePosition(parsed);
  const candidates = [parsed, ...(parsed.version === 6 && embedded !== parsed ? [{ ...embedded, version: 4 as const, canonical: '' }] : [])];
  for (const candidate of candidates) {
    const range = specialRangeOf(candidate);
    if (range === undefined || (range.name === 'loopback' && loopback)) continue;
    return `${address} is in ${range.cidr} (${range.description}, ${range.rfc}), where no publisher's data is`;
  }
  return undefined;
}

/**
 * Why a download may not go to `url` (its first URL, or a redirect's target), or undefined when it may.
 * Checks the scheme and an address written in the URL; a name is checked when it resolves ({@link checkedLookup}).
 */
export function hopRefusal(url: URL, first: URL): string | undefined {
  const local = isLoopbackUrl(first);
  if (url.protocol === 'http:') {
    if (!(first.protocol === 'http:' && local && isLoopbackUrl(url)))
      return `${url.origin} is not https (plain http only to this machine, when the download starts there)`;
  } else if (url.protocol !== 'https:') {
    return `${url.protocol} is not https`;
  }
  if (url.username || url.password) return `${url.origin} carries credentials in the URL`;
  const host = hostOf(url);
  return parseIp(host) === undefined ? undefined : addressRefusal(host, local);
}

/** A connection refused by {@link checkedLookup}: the name resolved to an address no download may reach. */
export class RefusedDestination extends Error {
  override readonly name = 'RefusedDestination';
}

/**
 * A `lookup` for `http.request` that resolves as Node does and refuses a name any of whose addresses
 * {@link addressRefusal} refuses, so that a name cannot point a download at this network's services.
 */
export function checkedLookup(loopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const refused = addresses.map((entry) => addressRefusal(entry.address, loopback)).find((why) => why !== undefined);
      if (refused !== undefined) return callback(new RefusedDestination(`${hostname} resolves to ${refused}`), '', 4);
      const [firstAddress] = addresses;
      if (options.all) return callback(null, addresses);
      return callback(null, firstAddress?.address ?? '', firstAddress?.family ?? 4);
    });
  };
}
