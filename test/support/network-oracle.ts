/**
 * @module The `network` a lookup should answer, from the native source databases alone (read with
 * mmdb-lib, in Node and workerd): the largest CIDR around the address within which every source's
 * record has the same part that the compiled record keeps. Blocks are split where a source's own
 * network is smaller than the block (mmdb-lib's prefix length), so only the sources' trees decide;
 * shares no code with the build or the Worker.
 */
import ipaddr from 'ipaddr.js';
import type { Reader } from 'mmdb-lib';

/** A native database, and the part of its records that a compiled record keeps, as a key: equal keys, equal part ('' where it has none). */
export interface NativeSource {
  readonly reader: Reader<never>;
  key(record: Record<string, unknown> | null): string;
}

/** A block of addresses: its first address's bits, its prefix length, and whether it is IPv4 (32 bits) or IPv6 (128). */
interface Block {
  readonly start: bigint;
  readonly prefixLength: number;
  readonly ipv4: boolean;
}

const MIXED = '\u0000mixed';

function text(value: bigint, ipv4: boolean): string {
  const length = ipv4 ? 4 : 16;
  const bytes = Array.from({ length }, (_, i) => Number((value >> BigInt(8 * (length - 1 - i))) & 0xffn));
  return ipv4 ? bytes.join('.') : (ipaddr.fromByteArray(bytes) as ipaddr.IPv6).toRFC5952String();
}

/** The key of every source at `block`, or {@link MIXED} where a source's records differ within it. */
function uniform(sources: readonly NativeSource[], block: Block): string {
  const bits = block.ipv4 ? 32 : 128;
  const keys: string[] = [];
  for (const source of sources) {
    const [record, prefixLength] = source.reader.getWithPrefixLength(text(block.start, block.ipv4));
    if (prefixLength > block.prefixLength) {
      // The source draws a boundary inside the block: its halves must agree.
      const half = 1n << BigInt(bits - block.prefixLength - 1);
      const left = uniform(sources, { ...block, prefixLength: block.prefixLength + 1 });
      if (left === MIXED) return MIXED;
      const right = uniform(sources, { start: block.start + half, prefixLength: block.prefixLength + 1, ipv4: block.ipv4 });
      return left === right ? left : MIXED;
    }
    keys.push(source.key(record as Record<string, unknown> | null));
  }
  return JSON.stringify(keys);
}

/**
 * The network the service should answer for `address` (canonical text; IPv4 as a dotted quad), as CIDR
 * text (`81.2.69.0/24`, `2001:db8::/32`).
 */
export function expectedNetwork(address: string, sources: readonly NativeSource[]): string {
  const given = ipaddr.parse(address);
  // An IPv4-mapped address is answered as the IPv4 address it maps.
  const parsed = given instanceof ipaddr.IPv6 && given.isIPv4MappedAddress() ? given.toIPv4Address() : given;
  const ipv4 = parsed.kind() === 'ipv4';
  const bits = ipv4 ? 32 : 128;
  const value = parsed.toByteArray().reduce((sum, byte) => (sum << 8n) | BigInt(byte), 0n);
  const blockAt = (prefixLength: number): Block => {
    const mask = prefixLength === 0 ? 0n : ((1n << BigInt(prefixLength)) - 1n) << BigInt(bits - prefixLength);
    return { start: value & mask, prefixLength, ipv4 };
  };
  const own = uniform(sources, blockAt(bits));
  let prefixLength = bits;
  while (prefixLength > 0 && uniform(sources, blockAt(prefixLength - 1)) === own) prefixLength--;
  return `${text(blockAt(prefixLength).start, ipv4)}/${prefixLength}`;
}

type Names = { names?: Record<string, string> };
/** The parts of a GeoIP2 City record that the compiled location and record keep. */
interface CityRecord {
  continent?: { code?: string };
  country?: { iso_code?: string };
  registered_country?: { iso_code?: string };
  subdivisions?: Array<Names & { iso_code?: string }>;
  city?: Names;
  postal?: { code?: string };
  location?: { latitude?: number; longitude?: number; time_zone?: string; accuracy_radius?: number };
}

/** What a compiled record keeps of a GeoIP2 City record (`src/geo/schema.ts`): the country (where used, else registered), continent, first subdivision, city, postal code, position to four decimals, zone and accuracy radius. */
export function cityKey(raw: Record<string, unknown> | null): string {
  if (raw === null) return '';
  const city = raw as CityRecord;
  const round4 = (degrees: number | undefined) => (degrees === undefined ? null : Math.round(degrees * 10_000));
  return JSON.stringify([
    city.country?.iso_code ?? city.registered_country?.iso_code ?? null,
    city.continent?.code ?? null,
    city.subdivisions?.[0]?.iso_code ?? null,
    city.subdivisions?.[0]?.names ?? null,
    city.city?.names ?? null,
    city.postal?.code ?? null,
    round4(city.location?.latitude),
    round4(city.location?.longitude),
    city.location?.time_zone ?? null,
    city.location?.accuracy_radius ?? null,
  ]);
}

/** What a compiled record keeps of a GeoLite2 ASN record: the number and organisation. */
export function asnKey(raw: Record<string, unknown> | null): string {
  return raw === null ? '' : JSON.stringify([raw.autonomous_system_number ?? null, raw.autonomous_system_organization ?? null]);
}

/**
 * The flags a GeoIP2 Anonymous-IP record sets, as docs/api.md maps its fields: `vpn`, `tor`, `hosting`,
 * and `proxy` for a public or residential proxy, or for `is_anonymous` alone.
 */
export function anonymousFlags(raw: Record<string, unknown> | null): { vpn: boolean; tor: boolean; hosting: boolean; proxy: boolean } {
  const set = (field: string) => raw?.[field] === true;
  const vpn = set('is_anonymous_vpn');
  const tor = set('is_tor_exit_node');
  const hosting = set('is_hosting_provider');
  const listed = set('is_public_proxy') || set('is_residential_proxy');
  return { vpn, tor, hosting, proxy: listed || (set('is_anonymous') && !vpn && !tor && !hosting) };
}

/** What a compiled record keeps of a GeoIP2 Anonymous-IP record: its flags. */
export function anonymousKey(raw: Record<string, unknown> | null): string {
  const flags = anonymousFlags(raw);
  return Object.values(flags).some(Boolean) ? JSON.stringify(flags) : '';
}
