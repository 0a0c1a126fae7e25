/**
 * @module Reading what `data:update` downloads: one file out of a gzipped tar archive (MaxMind's
 * `.tar.gz`, npm's `.tgz`), and the metadata of a MaxMind DB, each failure said as an {@link UpdateError}.
 * An archive holds only files and folders under relative paths: one with a link, an absolute path or
 * a `..` is refused whole, since its entries' names become paths of the download cache. Messages name
 * an entry by its place in the archive, never by the path or link target it gives.
 */
import { createHash } from 'node:crypto';
import { isAbsolute, win32 } from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import { MmdbFormatError } from '../../src/mmdb/decoder.ts';
import { type MmdbMetadata, readMetadata } from '../../src/mmdb/metadata.ts';
import { UpdateError } from './download.ts';

/** SHA-256 of bytes, lower-case hex. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The most bytes the files taken out of one archive may hold: a gzip bomb stops here. Several times
 * the largest source read from an archive (GeoIP2 City's database, the ASN package's CSV files).
 */
const UNPACKED_MAX_BYTES = 1024 * 1_048_576;

/** Entry types of a regular file (`OldFile`: the typeflag of old tar writers). */
const FILE_TYPES: ReadonlySet<string> = new Set(['File', 'OldFile', 'ContiguousFile']);

/** Why an archive may not hold `entry`, or undefined for a file or folder at a relative path inside it. */
function refusal(entry: ReadEntry): string | undefined {
  if (entry.type === 'Link' || entry.type === 'SymbolicLink') return `is a ${entry.type === 'Link' ? 'hard' : 'symbolic'} link`;
  if (!FILE_TYPES.has(entry.type) && entry.type !== 'Directory') return `is a ${entry.type}, neither a file nor a folder`;
  if (isAbsolute(entry.path) || win32.isAbsolute(entry.path)) return 'has an absolute path';
  if (entry.path.split(/[\\/]/).includes('..')) return 'has a path that climbs out with ..';
  return undefined;
}

/**
 * The files of a gzipped tar archive whose paths `wanted` accepts, by path.
 *
 * @throws UpdateError when the archive is not gzip, not tar, or ends early; when any entry is a link,
 *   a device or a FIFO, or has an absolute path or a `..` segment (the archive is refused whole); or
 *   when the files taken hold more than {@link UNPACKED_MAX_BYTES}.
 */
export async function filesOf(archive: Buffer, wanted: (path: string) => boolean, what: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  let refused: UpdateError | undefined;
  let unpacked = 0;
  let entries = 0;
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry) => {
        entries++;
        const why = refusal(entry);
        if (why !== undefined) refused ??= new UpdateError(`${what} is refused: its entry ${entries} (counting from 1) ${why}`);
        if (why !== undefined || !FILE_TYPES.has(entry.type) || !wanted(entry.path)) {
          entry.resume();
          return;
        }
        const chunks: Buffer[] = [];
        entry.on('data', (chunk: Buffer) => {
          unpacked += chunk.length;
          if (unpacked > UNPACKED_MAX_BYTES) {
            refused ??= new UpdateError(`${what} is refused: its files hold more than ${UNPACKED_MAX_BYTES} bytes unpacked`);
            parser.abort(refused);
            return;
          }
          chunks.push(chunk);
        });
        entry.on('end', () => files.set(entry.path, Buffer.concat(chunks)));
      },
    });
    parser.on('error', (error: Error) => reject(new UpdateError(`${what} is not a complete .tar.gz archive: ${error.message}`)));
    parser.on('abort', (error: Error) =>
      reject(error instanceof UpdateError ? error : new UpdateError(`${what} is not a complete .tar.gz archive: ${error.message}`)),
    );
    parser.on('end', () => resolve());
    parser.end(archive);
  });
  if (refused) throw refused;
  return files;
}

/** The one file of an archive whose path ends with `/name` (or is `name`). */
export async function fileOf(archive: Buffer, name: string, what: string): Promise<Buffer> {
  const files = await filesOf(archive, (path) => path === name || path.endsWith(`/${name}`), what);
  const file = files.values().next().value;
  if (file === undefined) throw new UpdateError(`${what} holds no ${name}`);
  return file;
}

/**
 * The metadata of a MaxMind DB, checked to be of the expected type.
 *
 * @throws UpdateError when the bytes are no MaxMind DB or one of another type (not named: it is the file's text).
 */
export function mmdbMetadata(bytes: Uint8Array, type: RegExp, what: string): MmdbMetadata {
  let metadata: MmdbMetadata;
  try {
    metadata = readMetadata(bytes);
  } catch (error) {
    if (error instanceof MmdbFormatError) throw new UpdateError(`${what} is not a MaxMind DB: ${error.message}`);
    throw error;
  }
  if (!type.test(metadata.databaseType)) throw new UpdateError(`${what} is a database of another type than ${type}`);
  return metadata;
}
