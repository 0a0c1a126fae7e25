/**
 * @module MaxMind's own GeoIP2 / GeoLite2 databases in their native schema, as an operator with a
 * MaxMind licence downloads them: City or Country (locations), ASN (routing), Anonymous-IP (proxies).
 */
import { basename } from 'node:path';
import type { StoredLocation, StoredNetwork } from '../../src/geo/schema.ts';
import type { MmdbReader } from '../../src/mmdb/reader.ts';
import { openMmdb, walkChecked } from './ip-location-db.ts';
import type { RegionCoder } from './region-codes.ts';
import { compact, type LocationSource, type NetworkSource, type ProxySource, readSourceFile, type SourceInfo, scaledDegrees } from './source.ts';

type Names = { names?: { en?: string } };
/** The parts of a GeoIP2 City / Country record that the service uses. */
interface NativeCity {
  country?: { iso_code?: string };
  registered_country?: { iso_code?: string };
  subdivisions?: Array<Names & { iso_code?: string }>;
  city?: Names;
  postal?: { code?: string };
  location?: { latitude?: number; longitude?: number; time_zone?: string };
}

const LICENCE = 'MaxMind GeoIP2 / GeoLite2 licence of the operator who supplied the file';
const ATTRIBUTION = 'This product includes GeoLite2 or GeoIP2 data created by MaxMind, available from https://www.maxmind.com.';

function describe(reader: MmdbReader, path: string, file: SourceInfo['files'][number], provides: SourceInfo['provides']): SourceInfo {
  const date = new Date(reader.metadata.buildEpoch * 1000).toISOString();
  return {
    name: basename(path),
    provides,
    version: `${reader.metadata.databaseType} ${date.slice(0, 10)}`,
    dataDate: date,
    licence: LICENCE,
    attribution: ATTRIBUTION,
    files: [file],
  };
}

/**
 * A GeoIP2 / GeoLite2 City or Country database. The country is the one where the address is used
 * (`country`), falling back to where it is registered (`registered_country`) when MaxMind gives no
 * other. The subdivision's own ISO 3166-2 code is used; `regions` only fills it in when absent.
 *
 * @throws SourceError when the file is missing, corrupt or not a City/Country database.
 */
export function maxmindCity(path: string, regions: RegionCoder): LocationSource {
  const label = `--maxmind-city ${path}`;
  const { content, file } = readSourceFile(path, label);
  const reader = openMmdb(content, label, /(City|Country)/);
  return {
    info: describe(reader, path, file, 'location'),
    forEach(visit) {
      const cache = new Map<number, StoredLocation>();
      walkChecked(reader, label, (network, offset) => {
        let location = cache.get(offset);
        if (location === undefined) {
          const raw = reader.decode(offset) as NativeCity;
          const countryCode = raw.country?.iso_code ?? raw.registered_country?.iso_code ?? '';
          const subdivision = raw.subdivisions?.[0];
          const region = subdivision?.names?.en;
          location = compact<StoredLocation>({
            country_code: countryCode,
            region,
            region_code: subdivision?.iso_code ?? (region ? regions.code(countryCode, region) : undefined),
            city: raw.city?.names?.en,
            postal_code: raw.postal?.code,
            latitude: scaledDegrees(raw.location?.latitude, 90),
            longitude: scaledDegrees(raw.location?.longitude, 180),
            time_zone: raw.location?.time_zone,
          });
          cache.set(offset, location);
        }
        visit(network, location);
      });
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
