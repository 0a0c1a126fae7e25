/**
 * @module MaxMind's own GeoIP2 / GeoLite2 databases in their native schema, as an operator with a
 * MaxMind licence downloads them: City or Country (locations), ASN (routing), Anonymous-IP (privacy and
 * hosting flags).
 */
import { basename } from 'node:path';
import { LANGUAGES } from '../../src/geo/languages.ts';
import type { StoredLocation, StoredNames, StoredNetwork } from '../../src/geo/schema.ts';
import type { MmdbReader } from '../../src/mmdb/reader.ts';
import {
  compact,
  type FlagSource,
  type LocationSource,
  type NetworkFlag,
  type NetworkFlags,
  type NetworkSource,
  openMmdb,
  type PlaceNames,
  readSourceFile,
  type SourceInfo,
  scaledDegrees,
  walkChecked,
} from './source.ts';

type Names = { names?: Readonly<Record<string, string>> };
/** The parts of a GeoIP2 City / Country record that the service uses. */
interface NativeCity {
  continent?: Names & { code?: string };
  country?: Names & { iso_code?: string; is_in_european_union?: boolean };
  registered_country?: Names & { iso_code?: string; is_in_european_union?: boolean };
  subdivisions?: Array<Names & { iso_code?: string }>;
  city?: Names;
  postal?: { code?: string };
  location?: { latitude?: number; longitude?: number; time_zone?: string; accuracy_radius?: number };
}

const LICENCE = 'MaxMind GeoIP2 / GeoLite2 licence of the operator who supplied the file';
const ATTRIBUTION = 'This product includes GeoLite2 or GeoIP2 data created by MaxMind, available from https://www.maxmind.com.';

/** The build date of a MaxMind DB (its `build_epoch`), RFC 3339. */
export function buildDate(reader: MmdbReader): string {
  return new Date(reader.metadata.buildEpoch * 1000).toISOString();
}

function describe(reader: MmdbReader, path: string, file: SourceInfo['files'][number], provides: SourceInfo['provides']): SourceInfo {
  const date = buildDate(reader);
  return {
    name: basename(path),
    provides,
    origin: 'file',
    version: `${reader.metadata.databaseType} ${date.slice(0, 10)}`,
    builtAt: date,
    licence: LICENCE,
    attribution: ATTRIBUTION,
    files: [file],
  };
}

/** The names of `names` in {@link LANGUAGES} order, '' where absent. */
function namesOf(place: Names | undefined): StoredNames {
  return LANGUAGES.map((language) => place?.names?.[language] ?? '');
}

/** The names array of a city or subdivision, or undefined when the source names it in English only (or not at all). */
function localizedNames(place: Names | undefined): StoredNames | undefined {
  const names = place?.names;
  if (names === undefined || !LANGUAGES.some((language) => language !== 'en' && names[language])) return undefined;
  return namesOf(place);
}

/**
 * Visits every network of a GeoIP2 / GeoLite2 City or Country database with its location in the
 * compact schema. The country is the one where the address is used (`country`), falling back to where
 * it is registered (`registered_country`) when MaxMind gives no other; the region is the first
 * subdivision, with its own ISO 3166-2 code; the continent is the record's own (`continent.code`,
 * GeoNames': Russia in Europe); the accuracy radius is the record's `location.accuracy_radius` (km);
 * names are kept in the eight languages of {@link LANGUAGES}, and the country's membership of the EU
 * (`is_in_european_union`) with its names.
 *
 * @throws SourceError when the database is corrupt.
 */
export function forEachNativeLocation(
  reader: MmdbReader,
  label: string,
  visit: (network: { bytes: Uint8Array; prefixLength: number }, location: StoredLocation, places: PlaceNames, accuracyRadius: number | undefined) => void,
): void {
  const cache = new Map<number, { location: StoredLocation; places: PlaceNames; radius: number | undefined }>();
  // One array per distinct name set (by its entries), so that equal names share one copy in memory.
  const arrays = new Map<string, StoredNames>();
  const shared = (names: StoredNames | undefined): StoredNames | undefined => {
    if (names === undefined) return undefined;
    const key = names.join('\u0000');
    const known = arrays.get(key);
    if (known !== undefined) return known;
    arrays.set(key, names);
    return names;
  };
  const places = new Map<string, PlaceNames>();
  walkChecked(reader, label, (network, offset) => {
    let entry = cache.get(offset);
    if (entry === undefined) {
      const raw = reader.decode(offset) as NativeCity;
      const country = raw.country?.iso_code ? raw.country : raw.registered_country;
      const subdivision = raw.subdivisions?.[0];
      const location = compact<StoredLocation>({
        country_code: country?.iso_code,
        region: subdivision?.names?.en,
        region_code: subdivision?.iso_code,
        city: raw.city?.names?.en,
        postal_code: raw.postal?.code,
        latitude: scaledDegrees(raw.location?.latitude, 90),
        longitude: scaledDegrees(raw.location?.longitude, 180),
        time_zone: raw.location?.time_zone,
        continent_code: raw.continent?.code,
        region_names: shared(localizedNames(subdivision)),
        city_names: shared(localizedNames(raw.city)),
      });
      // Country and continent names are the same wherever their code is: kept once per pair of codes.
      const key = `${country?.iso_code ?? ''}|${raw.continent?.code ?? ''}`;
      let place = places.get(key);
      if (place === undefined) {
        const named: { -readonly [K in keyof PlaceNames]: PlaceNames[K] } = {};
        if (country?.iso_code && country.names) {
          named.country = { code: country.iso_code, names: namesOf(country), inEuropeanUnion: country.is_in_european_union === true };
        }
        if (raw.continent?.code && raw.continent.names) named.continent = { code: raw.continent.code, names: namesOf(raw.continent) };
        place = named;
        places.set(key, place);
      }
      entry = { location, places: place, radius: radius(raw.location?.accuracy_radius) };
      cache.set(offset, entry);
    }
    visit(network, entry.location, entry.places, entry.radius);
  });
}

/**
 * A GeoIP2 / GeoLite2 City or Country database given by path (`--maxmind-city`); see
 * {@link forEachNativeLocation}.
 *
 * @throws SourceError when the file is missing, corrupt or not a City/Country database.
 */
export function maxmindCity(path: string): LocationSource {
  const label = `--maxmind-city ${path}`;
  const { content, file } = readSourceFile(path, label);
  const reader = openMmdb(content, label, /(City|Country)/);
  return {
    info: describe(reader, path, file, 'location'),
    forEach(visit) {
      forEachNativeLocation(reader, label, visit);
    },
  };
}

/**
 * A GeoLite2 / GeoIP2 ASN database.
 *
 * @throws SourceError when the file is missing, corrupt or not an ASN database.
 */
export function maxmindAsn(path: string): NetworkSource {
  const label = `--maxmind-asn ${path}`;
  const { content, file } = readSourceFile(path, label);
  const reader = openMmdb(content, label, /ASN/);
  return {
    info: describe(reader, path, file, 'network'),
    forEach(visit) {
      const cache = new Map<number, StoredNetwork>();
      walkChecked(reader, label, (network, offset) => {
        let facts = cache.get(offset);
        if (facts === undefined) {
          const raw = reader.decode(offset) as { autonomous_system_number?: number; autonomous_system_organization?: string };
          facts = compact<StoredNetwork>({ asn: raw.autonomous_system_number, organization: raw.autonomous_system_organization });
          cache.set(offset, facts);
        }
        visit(network, facts);
      });
    },
  };
}

/**
 * The flag each field of a GeoIP2 Anonymous-IP record sets (docs/api.md): a VPN provider's network, a Tor
 * exit node, a hosting provider's network, a public proxy, a residential proxy (both `proxy`).
 */
const ANONYMOUS_IP_FLAGS = [
  ['is_anonymous_vpn', 'vpn'],
  ['is_tor_exit_node', 'tor'],
  ['is_hosting_provider', 'hosting'],
  ['is_public_proxy', 'proxy'],
  ['is_residential_proxy', 'proxy'],
] as const satisfies readonly (readonly [string, NetworkFlag])[];

/**
 * The flags of an Anonymous-IP record: each from its own field ({@link ANONYMOUS_IP_FLAGS}). MaxMind sets
 * `is_anonymous` with any of them (with `is_hosting_provider` too); alone, it says the network is
 * anonymous without saying how, and sets `proxy`, so that isProxy stays true for it as before.
 */
function anonymousIpFlags(raw: Readonly<Record<string, unknown>>): NetworkFlag[] {
  const flags = [...new Set(ANONYMOUS_IP_FLAGS.filter(([field]) => raw[field] === true).map(([, flag]) => flag))];
  if (flags.length === 0 && raw.is_anonymous === true) flags.push('proxy');
  return flags;
}

/**
 * A GeoIP2 Anonymous-IP database: every network with a flag set ({@link anonymousIpFlags}). It names
 * no hosting provider.
 *
 * @throws SourceError when the file is missing, corrupt or not an Anonymous-IP database.
 */
export function maxmindAnonymousIp(path: string): FlagSource {
  const label = `--maxmind-anonymous-ip ${path}`;
  const { content, file } = readSourceFile(path, label);
  const reader = openMmdb(content, label, /Anonymous-IP/);
  return {
    info: describe(reader, path, file, 'proxy'),
    sets: ['vpn', 'tor', 'hosting', 'proxy'],
    forEach(visit) {
      const cache = new Map<number, NetworkFlags>();
      walkChecked(reader, label, (network, offset) => {
        let flags = cache.get(offset);
        if (flags === undefined) {
          flags = { flags: anonymousIpFlags(reader.decode(offset) as Record<string, unknown>) };
          cache.set(offset, flags);
        }
        if (flags.flags.length > 0) visit(network, flags);
      });
    },
  };
}

/** A source's accuracy radius as stored: whole kilometres from 1 to 65,535 (uint16), else none. */
function radius(value: number | undefined): number | undefined {
  return value !== undefined && Number.isInteger(value) && value > 0 && value <= 0xffff ? value : undefined;
}
