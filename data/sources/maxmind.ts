/**
 * @module MaxMind's own GeoIP2 / GeoLite2 databases in their native schema, as an operator with a
 * MaxMind licence downloads them: City or Country (locations), ASN (routing), Anonymous-IP (proxies).
 */
import { basename } from 'node:path';
import { LANGUAGES } from '../../src/geo/languages.ts';
import type { StoredLocation, StoredNames, StoredNetwork } from '../../src/geo/schema.ts';
import type { MmdbReader } from '../../src/mmdb/reader.ts';
import {
  compact,
  type LocationSource,
  type NetworkSource,
  openMmdb,
  type PlaceNames,
  type ProxySource,
  readSourceFile,
  type SourceInfo,
  scaledDegrees,
  walkChecked,
} from './source.ts';

type Names = { names?: Readonly<Record<string, string>> };
/** The parts of a GeoIP2 City / Country record that the service uses. */
interface NativeCity {
  continent?: Names & { code?: string };
  country?: Names & { iso_code?: string };
  registered_country?: Names & { iso_code?: string };
  subdivisions?: Array<Names & { iso_code?: string }>;
  city?: Names;
  postal?: { code?: string };
  location?: { latitude?: number; longitude?: number; time_zone?: string };
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
 * GeoNames': Russia in Europe); names are kept in the eight languages of {@link LANGUAGES}.
 *
 * @throws SourceError when the database is corrupt.
 */
export function forEachNativeLocation(
  reader: MmdbReader,
  label: string,
  visit: (network: { bytes: Uint8Array; prefixLength: number }, location: StoredLocation, places: PlaceNames) => void,
): void {
  const cache = new Map<number, { location: StoredLocation; places: PlaceNames }>();
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
        if (country?.iso_code && country.names) named.country = { code: country.iso_code, names: namesOf(country) };
        if (raw.continent?.code && raw.continent.names) named.continent = { code: raw.continent.code, names: namesOf(raw.continent) };
        place = named;
        places.set(key, place);
      }
      entry = { location, places: place };
      cache.set(offset, entry);
    }
    visit(network, entry.location, entry.places);
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

/** The Anonymous-IP flags that make `isProxy` true; a hosting provider alone does not. */
const PROXY_FLAGS = ['is_anonymous', 'is_anonymous_vpn', 'is_public_proxy', 'is_tor_exit_node', 'is_residential_proxy'] as const;

/**
 * A GeoIP2 Anonymous-IP database: every network with one of {@link PROXY_FLAGS} set.
 *
 * @throws SourceError when the file is missing, corrupt or not an Anonymous-IP database.
 */
export function maxmindAnonymousIp(path: string): ProxySource {
  const label = `--maxmind-anonymous-ip ${path}`;
  const { content, file } = readSourceFile(path, label);
  const reader = openMmdb(content, label, /Anonymous-IP/);
  return {
    info: describe(reader, path, file, 'proxy'),
    forEach(visit) {
      const cache = new Map<number, boolean>();
      walkChecked(reader, label, (network, offset) => {
        let proxy = cache.get(offset);
        if (proxy === undefined) {
          const raw = reader.decode(offset) as Record<string, unknown>;
          proxy = PROXY_FLAGS.some((flag) => raw[flag] === true);
          cache.set(offset, proxy);
        }
        if (proxy) visit(network);
      });
    },
  };
}
