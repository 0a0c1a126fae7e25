/**
 * @module How publishing, rolling back and expiring change the current record of a deployment's bucket
 * (`src/geo/published.ts`), and the bucket operations that carry them out. Pure over a
 * {@link VersionBucket}, so the same steps run against wrangler's local or remote R2 (`wrangler-bucket.ts`)
 * and against an R2 binding (the tests and benchmarks, in workerd or Miniflare).
 */
import { CURRENT_RECORD_KEY, type CurrentRecord, CurrentRecordSchema, type PublishedVersion, versionObjectKey } from '../../src/geo/published.ts';

/** Days after which a version that stopped being current is deleted (GeoLite2 EULA, section 6c: within 30 days). */
const RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;

/** The R2 operations publishing needs; `Body` is whatever the bucket uploads from (a path, bytes). */
export interface VersionBucket<Body> {
  /** Says where the bucket is, for messages: `ipgeo-data-de (remote)`. */
  readonly name: string;
  getText(key: string): Promise<string | null>;
  putText(key: string, text: string): Promise<void>;
  putObject(key: string, body: Body): Promise<void>;
  delete(key: string): Promise<void>;
}

/** A build to publish: its version string, size, SHA-256 and the body to upload. */
export interface Publication<Body> {
  readonly version: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly body: Body;
}

/** A publishing step that cannot be done, said in words for the operator. */
export class PublishError extends Error {
  override readonly name = 'PublishError';
}

/** The bucket's current record, or null when nothing has been published there yet. */
export async function readRecord(bucket: VersionBucket<unknown>): Promise<CurrentRecord | null> {
  const text = await bucket.getText(CURRENT_RECORD_KEY);
  if (text === null) return null;
  const parsed = CurrentRecordSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new PublishError(`${bucket.name}: ${CURRENT_RECORD_KEY} is not a current record (${parsed.error.issues[0]?.message})`);
  return parsed.data;
}

/**
 * Makes `version` current in `record`: the version that was current is retired now; a version already
 * in the bucket (the same version string and digest) becomes current again.
 *
 * @throws PublishError when the bucket holds the same version string with another digest.
 */
function withCurrent(record: CurrentRecord | null, next: Omit<PublishedVersion, 'key' | 'publishedAt' | 'retiredAt'>, now: Date): CurrentRecord {
  const at = now.toISOString();
  const versions = (record?.versions ?? []).map((entry) => ({ ...entry }));
  let entry = versions.find((v) => v.version === next.version);
  if (entry && entry.sha256 !== next.sha256) {
    throw new PublishError(`version ${next.version} is already published with SHA-256 ${entry.sha256}, not ${next.sha256}`);
  }
  for (const v of versions) if (v.retiredAt === null && v.version !== next.version) v.retiredAt = at;
  if (!entry) {
    // Named one by one: `next` may be a whole Publication, whose body must not end up in the record.
    entry = { version: next.version, key: versionObjectKey(next.version), bytes: next.bytes, sha256: next.sha256, publishedAt: at, retiredAt: null };
    versions.push(entry);
  }
  entry.retiredAt = null;
  return { v: 1, current: entry, versions };
}

/**
 * The record after a rollback: the newest version published before the current one becomes current.
 *
 * @throws PublishError when no earlier version is left in the bucket.
 */
function rolledBack(record: CurrentRecord, now: Date): CurrentRecord {
  const earlier = record.versions.filter((v) => v.publishedAt < record.current.publishedAt).sort((a, b) => (a.publishedAt < b.publishedAt ? 1 : -1))[0];
  if (!earlier) throw new PublishError(`no version published before ${record.current.version} is left to roll back to`);
  return withCurrent(record, earlier, now);
}

/** `record` without the versions that stopped being current more than {@link RETENTION_DAYS} ago, and those. */
function withoutExpired(record: CurrentRecord, now: Date): { record: CurrentRecord; expired: PublishedVersion[] } {
  const limit = now.getTime() - RETENTION_DAYS * DAY_MS;
  const expired = record.versions.filter((v) => v.retiredAt !== null && Date.parse(v.retiredAt) < limit);
  return { record: { ...record, versions: record.versions.filter((v) => !expired.includes(v)) }, expired };
}

/**
 * Publishes a build into one bucket: uploads `ipgeo-{version}.mmdb` (unless that version is there
 * already), then writes the current record naming it, then deletes expired versions. The object is
 * written before the record that names it, so a Worker never reads a record whose object is missing.
 *
 * @returns the record written.
 */
export async function publishTo<Body>(bucket: VersionBucket<Body>, build: Publication<Body>, now: Date, log: (line: string) => void): Promise<CurrentRecord> {
  const before = await readRecord(bucket);
  const next = withCurrent(before, build, now);
  const known = before?.versions.some((v) => v.version === build.version) ?? false;
  if (known) {
    log(`${bucket.name}: ${versionObjectKey(build.version)} is there already`);
  } else {
    log(`${bucket.name}: uploading ${versionObjectKey(build.version)} (${(build.bytes / 1048576).toFixed(1)} MiB)`);
    await bucket.putObject(versionObjectKey(build.version), build.body);
  }
  return commit(bucket, before, next, now, log);
}

/** Rolls one bucket back to the version published before the current one (see {@link rolledBack}). */
export async function rollBack(bucket: VersionBucket<unknown>, now: Date, log: (line: string) => void): Promise<CurrentRecord> {
  const before = await readRecord(bucket);
  if (before === null) throw new PublishError(`${bucket.name}: nothing is published there`);
  return commit(bucket, before, rolledBack(before, now), now, log);
}

async function commit(
  bucket: VersionBucket<unknown>,
  before: CurrentRecord | null,
  next: CurrentRecord,
  now: Date,
  log: (line: string) => void,
): Promise<CurrentRecord> {
  const { record, expired } = withoutExpired(next, now);
  await bucket.putText(CURRENT_RECORD_KEY, `${JSON.stringify(record, null, 2)}\n`);
  log(`${bucket.name}: current version ${record.current.version}${before ? ` (was ${before.current.version})` : ''}`);
  for (const version of expired) {
    log(`${bucket.name}: deleting ${version.key}, not current since ${version.retiredAt} (over ${RETENTION_DAYS} days)`);
    await bucket.delete(version.key);
  }
  return record;
}

/**
 * The version string of a build: the manifest's own when it has one, else the UTC date of its build
 * and eight hex digits of its SHA-256 (`2026-09-18.3f2a9c1d`).
 */
export function versionOf(manifest: { version?: string; builtAt: string; output: { sha256: string } }): string {
  return manifest.version ?? `${manifest.builtAt.slice(0, 10)}.${manifest.output.sha256.slice(0, 8)}`;
}
