/**
 * @module The whole-file check of a build before it is published: every node of the search tree and
 * every record it leads to is read with the Worker's own reader (`src/geo/database.ts`), so a file that
 * the Worker would find damaged on some lookup is never published. The Worker itself checks the bytes it
 * loads against the SHA-256 recorded at publishing, which makes this check hold for what it serves.
 */
import { GeoDatabase } from '../../src/geo/database.ts';
import { LANGUAGES } from '../../src/geo/languages.ts';
import type { RecordParts } from '../../src/geo/record-parts.ts';
import type { StoredShard } from '../../src/geo/schema.ts';
import { MmdbFormatError } from '../../src/mmdb/decoder.ts';
import { PublishError } from './record.ts';

/**
 * Reads every network and every distinct record of a compiled database.
 *
 * @returns the numbers of networks and distinct records read, and the shard its metadata says it is
 *   (`src/geo/schema.ts`; undefined for a whole database).
 * @throws PublishError naming the fault when the bytes are not a compiled database or any read fails.
 */
export function verifyDatabase(bytes: Uint8Array, label: string): { networks: number; records: number; shard: StoredShard | undefined } {
  let database: GeoDatabase;
  try {
    database = new GeoDatabase(bytes);
  } catch {
    throw new PublishError(`${label} is not a compiled service database`);
  }
  const seen = new Set<number>();
  const parts: RecordParts = { location: -1, network: -1, accuracyRadius: 0, flags: 0, provider: -1 };
  let networks = 0;
  try {
    database.reader.walk((_bytes, _prefixLength, offset) => {
      networks++;
      if (seen.has(offset)) return;
      seen.add(offset);
      // Every part an answer reads: the record's map, its location with its names in every language, its network, its provider's name.
      database.partsAt(offset, parts);
      if (parts.location >= 0) {
        const { regionNamesOffset, cityNamesOffset } = database.locationAt(parts.location);
        for (const language of LANGUAGES.keys()) {
          database.nameAt(regionNamesOffset, language);
          database.nameAt(cityNamesOffset, language);
        }
      }
      if (parts.network >= 0) database.networkAt(parts.network);
      if (parts.provider >= 0) database.providerAt(parts.provider);
    });
  } catch (error) {
    if (error instanceof MmdbFormatError || database.damage !== undefined) {
      throw new PublishError(`${label} is damaged: ${database.damage ?? (error as Error).message}`);
    }
    throw error;
  }
  if (database.damage !== undefined) throw new PublishError(`${label} is damaged: ${database.damage}`);
  const shard = database.reader.metadata.map.shard as StoredShard | undefined;
  return { networks, records: seen.size, shard };
}
