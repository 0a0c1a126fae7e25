/**
 * @module The builds `data:diff` compares: one on disk (its manifest, or a database file with its
 * manifest beside it, or the folder that holds them), or the version a deployment's bucket serves,
 * fetched into a temporary folder. Every file is checked against its recorded SHA-256 before it is read;
 * the ASN object, when the build has one, piece by piece as `data:publish` checks it (`asn-view.ts`).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { GeoDatabase } from '../../src/geo/database.ts';
import { CURRENT_RECORD_KEY, CurrentRecordSchema } from '../../src/geo/published.ts';
import { parseRanges, type ShardRange } from '../../src/geo/shard-ranges.ts';
import type { PublicationAsn } from '../publish/asn-object.ts';
import { readBuildFile } from '../publish/build-file.ts';
import { PublishError } from '../publish/record.ts';
import { type AsnView, readAsnView } from './asn-view.ts';
import { FactsReader } from './facts.ts';

/** A build could not be read for a diff: missing, damaged, or not a compiled database. */
export class DiffError extends Error {
  override readonly name = 'DiffError';
}

/** A build opened for comparison: its files in address order, each with the range it answers. */
export interface ComparedBuild {
  /** How tables name it: `data/out`, `ipgeo-data-de (remote)`. */
  readonly label: string;
  readonly version: string;
  readonly shards: readonly { readonly range: ShardRange; readonly facts: FactsReader }[];
  /** Its ASN object, read and verified; undefined for a version published before builds had one. */
  readonly asn: AsnView | undefined;
}

/** The bucket operations reading a deployment's current build needs (`data/publish/wrangler-bucket.ts` has them). */
export interface ReadableBucket {
  readonly name: string;
  getText(key: string): Promise<string | null>;
  /** Writes the object `key` into `file`. @throws when it is missing or cannot be read. */
  getFile(key: string, file: string): Promise<void>;
}

function opened(bytes: Uint8Array, label: string): FactsReader {
  try {
    return new FactsReader(new GeoDatabase(bytes));
  } catch (error) {
    throw new DiffError(`${label} is not a compiled service database: ${(error as Error).message}`);
  }
}

/** The ASN object `object`, verified whole. @throws DiffError when it is damaged. */
function asnOf(object: PublicationAsn<Uint8Array> | undefined, label: string): AsnView | undefined {
  if (object === undefined) return undefined;
  try {
    return readAsnView(object, label);
  } catch (error) {
    if (error instanceof PublishError) throw new DiffError(error.message);
    throw error;
  }
}

function rangesOf(ends: readonly { first: string; last: string }[], label: string): ShardRange[] {
  const ranges = parseRanges(ends);
  if ('error' in ranges) throw new DiffError(`${label}: its files do not cover the address space once: ${ranges.error}`);
  return ranges;
}

/**
 * The build at `path`: a manifest, a database file with its manifest beside it, or a folder holding
 * `ipgeo.manifest.json`.
 *
 * @throws DiffError when the manifest or a file is missing, or a file is not the one it describes.
 */
export function buildOnDisk(path: string): ComparedBuild {
  const manifest = existsSync(path) && statSync(path).isDirectory() ? join(path, 'ipgeo.manifest.json') : path;
  let build: ReturnType<typeof readBuildFile>;
  try {
    build = readBuildFile(manifest);
  } catch (error) {
    if (error instanceof PublishError) throw new DiffError(error.message);
    throw error;
  }
  const folder = manifest === path ? dirname(path) : path;
  const inside = relative(process.cwd(), folder);
  const label = inside === '' ? '.' : inside.startsWith('..') ? folder : inside;
  const ranges = rangesOf(build.shards, label);
  return {
    label,
    version: build.version,
    shards: build.shards.map((shard, index) => ({ range: ranges[index] as ShardRange, facts: opened(shard.body, shard.file) })),
    asn: asnOf(build.asn, build.asn?.file ?? ''),
  };
}

/** The object `key` of a bucket, fetched into `file` and checked against its SHA-256. @throws DiffError when it is not that one. */
async function fetched(bucket: ReadableBucket, key: string, file: string, sha256: string): Promise<Buffer> {
  await bucket.getFile(key, file);
  const bytes = readFileSync(file);
  const found = createHash('sha256').update(bytes).digest('hex');
  if (found !== sha256) throw new DiffError(`${bucket.name}: ${key} has SHA-256 ${found}, not the ${sha256} its record gives`);
  return bytes;
}

/**
 * The version a bucket serves, its files (and its ASN object, when the version has one) fetched into
 * `dir` and checked against the SHA-256 its record gives; null when nothing is published there.
 *
 * @param read the bucket's record as just read, when the caller has read it (else it is read here).
 * @throws DiffError when the record is not one, or an object is missing or not what the record says.
 */
export async function currentBuild(bucket: ReadableBucket, dir: string, read?: string | null): Promise<ComparedBuild | null> {
  const text = read === undefined ? await bucket.getText(CURRENT_RECORD_KEY) : read;
  if (text === null) return null;
  const parsed = CurrentRecordSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new DiffError(`${bucket.name}: ${CURRENT_RECORD_KEY} is not a current record`);
  const { current } = parsed.data;
  const ranges = rangesOf(current.shards, `${bucket.name} version ${current.version}`);
  const shards = [];
  for (const [index, shard] of current.shards.entries()) {
    const bytes = await fetched(bucket, shard.key, join(dir, shard.key), shard.sha256);
    shards.push({ range: ranges[index] as ShardRange, facts: opened(bytes, `${bucket.name} ${shard.key}`) });
  }
  let asn: AsnView | undefined;
  if (current.asn !== undefined) {
    const { key, ...entry } = current.asn;
    const body = await fetched(bucket, key, join(dir, key), entry.sha256);
    if (body.byteLength !== entry.bytes) throw new DiffError(`${bucket.name}: ${key} is ${body.byteLength} bytes, not the ${entry.bytes} its record gives`);
    asn = asnOf({ ...entry, body }, `${bucket.name} ${key}`);
  }
  return { label: bucket.name, version: current.version, shards, asn };
}
