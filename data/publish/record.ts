/**
 * @module How publishing, rolling back and expiring change the current record of a deployment's bucket
 * (`src/geo/published.ts`: its versions and when each was current), and the bucket operations that
 * carry them out. Pure over a {@link VersionBucket}, so the same steps run against wrangler's local or
 * remote R2 (`wrangler-bucket.ts`) and against an R2 binding (the tests and benchmarks, in workerd or
 * Miniflare).
 */
import { DEFAULT_BUDGET_BYTES } from '../../src/geo/budget.ts';
import {
  CURRENT_RECORD_KEY,
  type CurrentPeriod,
  type CurrentRecord,
  CurrentRecordSchema,
  type PublishedVersion,
  shardObjectKey,
} from '../../src/geo/published.ts';
import { checkBudget } from '../budget.ts';
import { asnEntry, asnObjectRefusal, lacksAsnObject, type PublicationAsn, withAsnObject } from './asn-object.ts';

/** Days after which a version that stopped being current is deleted (GeoLite2 EULA, section 6c: within 30 days). */
export const RETENTION_DAYS = 30;
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

/** A build to publish: its version string and its files (one, or one per shard in address order), and its ASN object. */
export interface Publication<Body> {
  readonly version: string;
  readonly shards: readonly PublicationShard<Body>[];
  /** Absent for a build made before builds had one. */
  readonly asn?: PublicationAsn<Body> | undefined;
}

/** One file of a build to publish: the positions it answers (RFC 5952 text), its size, SHA-256 and the body to upload. */
export interface PublicationShard<Body> {
  readonly first: string;
  readonly last: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly body: Body;
}

/**
 * A build of one file (the whole address space) as a {@link Publication}: what tests and benchmarks
 * publish from bytes they hold.
 */
export function wholeFilePublication<Body>(version: string, file: { bytes: number; sha256: string; body: Body }): Publication<Body> {
  return { version, shards: [{ first: '::', last: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', ...file }] };
}

/** A publishing step that cannot be done, said in words for the operator. */
export class PublishError extends Error {
  override readonly name = 'PublishError';
}

/**
 * The bucket's current record, or null when nothing has been published there yet.
 *
 * @throws PublishError when the object is not JSON, or not a current record (`src/geo/published.ts`).
 */
export async function readRecord(bucket: Pick<VersionBucket<unknown>, 'name' | 'getText'>): Promise<CurrentRecord | null> {
  const text = await bucket.getText(CURRENT_RECORD_KEY);
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PublishError(`${bucket.name}: ${CURRENT_RECORD_KEY} is not JSON`);
  }
  const parsed = CurrentRecordSchema.safeParse(value);
  if (!parsed.success) throw new PublishError(`${bucket.name}: ${CURRENT_RECORD_KEY} is not a current record (${parsed.error.issues[0]?.message})`);
  return parsed.data;
}

/** What publishing a build into a bucket does: nothing (it is current there), make current a version already uploaded, or upload it. */
export type PublicationStep = 'current' | 'reuse' | 'upload';

/**
 * What publishing `build` into a bucket whose record is `record` does.
 *
 * @throws PublishError when the bucket holds the same version string with other files, or with another
 *   ASN object than the build's (`asnObjectRefusal`).
 */
export function publicationStep(record: CurrentRecord | null, build: Pick<Publication<unknown>, 'version' | 'shards' | 'asn'>): PublicationStep {
  const entry = record?.versions.find((v) => v.version === build.version);
  const digests = (shards: readonly { sha256: string }[]) => shards.map((shard) => shard.sha256).join(', ');
  if (entry && digests(entry.shards) !== digests(build.shards)) {
    throw new PublishError(`version ${build.version} is already published with SHA-256 ${digests(entry.shards)}, not ${digests(build.shards)}`);
  }
  const asnRefusal = asnObjectRefusal(record, build.version, build.asn);
  if (asnRefusal) throw new PublishError(asnRefusal);
  if (record?.current.version === build.version) return 'current';
  return entry ? 'reuse' : 'upload';
}

/**
 * The record's history ({@link CurrentPeriod}s, oldest first, the current one last), copied. A record
 * written before the history was kept says only when each version was uploaded and last retired: each
 * is taken as current from its upload to its retirement, and those uploaded after the current one as
 * taken back by a rollback to it (the only way an older version became current again).
 */
function historyOf(record: CurrentRecord): CurrentPeriod[] {
  if (record.history) return record.history.map((period) => ({ ...period }));
  const { current } = record;
  const byUpload = [...record.versions].sort((a, b) => (a.publishedAt < b.publishedAt ? -1 : a.publishedAt > b.publishedAt ? 1 : 0));
  const later = byUpload.filter((v) => v.publishedAt > current.publishedAt);
  const period = (v: PublishedVersion, until: string | null, rolledBackAt: string | null): CurrentPeriod => ({
    version: v.version,
    by: 'publish',
    from: v.publishedAt,
    until,
    rolledBackAt,
  });
  const history = byUpload
    .filter((v) => v.publishedAt <= current.publishedAt && v.version !== current.version)
    .map((v) => period(v, v.retiredAt ?? v.publishedAt, null));
  if (later.length === 0) return [...history, period(current, null, null)];
  // Replaced by the first later upload; current again since the rollback that retired the last of them.
  const rollbackAt = later.map((v) => v.retiredAt ?? v.publishedAt).sort()[later.length - 1] ?? current.publishedAt;
  history.push(period(current, later[0]?.publishedAt ?? rollbackAt, null));
  for (const v of later) history.push(period(v, v.retiredAt ?? v.publishedAt, rollbackAt));
  history.push({ version: current.version, by: 'rollback', from: rollbackAt, until: null, rolledBackAt: null });
  return history;
}

/**
 * `record` with `entry` (one of its versions) current from `at`, its history ended by a period `by`.
 * The version that was current is retired at `at`.
 */
function makeCurrent(record: CurrentRecord | null, entry: PublishedVersion, history: CurrentPeriod[], by: CurrentPeriod['by'], at: string): CurrentRecord {
  const versions = (record?.versions ?? []).map((v) => ({ ...v, retiredAt: v.version === record?.current.version ? at : v.retiredAt }));
  const current = { ...entry, retiredAt: null };
  const index = versions.findIndex((v) => v.version === entry.version);
  if (index >= 0) versions[index] = current;
  else versions.push(current);
  const last = history.at(-1);
  if (last && last.until === null) last.until = at;
  history.push({ version: entry.version, by, from: at, until: null, rolledBackAt: null });
  return { v: 1, current, versions, history };
}

/**
 * Makes `next` current in `record` (a publish): the version that was current is retired now; a version
 * already in the bucket (the same version string and files) becomes current again. A version that is
 * current already leaves the record as it is.
 *
 * @throws PublishError when the bucket holds the same version string with other files.
 */
function withCurrent(record: CurrentRecord | null, next: Publication<unknown>, now: Date): CurrentRecord {
  const step = publicationStep(record, next);
  if (record && step === 'current') return record;
  const at = now.toISOString();
  return makeCurrent(
    record,
    record?.versions.find((v) => v.version === next.version) ?? versionEntry(next, at),
    record ? historyOf(record) : [],
    'publish',
    at,
  );
}

/**
 * The record's entry of a build published at `at`: its shards by key (without their bodies), and for
 * a build of one file the same at the top, which Workers deployed before shards read.
 */
function versionEntry(build: Publication<unknown>, at: string): PublishedVersion {
  const count = build.shards.length;
  const shards = build.shards.map(({ first, last, bytes, sha256 }, index) => ({
    key: shardObjectKey(build.version, index, count),
    first,
    last,
    bytes,
    sha256,
  }));
  const single = count === 1 ? shards[0] : undefined;
  return {
    version: build.version,
    ...(single ? { key: single.key, bytes: single.bytes, sha256: single.sha256 } : {}),
    shards,
    ...(build.asn ? { asn: asnEntry(build.version, build.asn) } : {}),
    publishedAt: at,
    retiredAt: null,
  };
}

/**
 * Says why a bucket whose current version has `currentCount` shards cannot switch to one of
 * `nextCount` by publishing or rolling back: its Workers serve `currentCount` shards.
 *
 * @returns the refusal with its remedy, or undefined when the counts are equal.
 */
export function shardCountRefusal(
  bucketName: string,
  currentVersion: PublishedVersion,
  nextVersion: string,
  nextCount: number,
  deployment = '<deployment>',
): string | undefined {
  const currentCount = currentVersion.shards.length;
  if (currentCount === nextCount) return undefined;
  const shards = (n: number) => (n === 1 ? 'one file' : `${n} shards`);
  return (
    `${bucketName}: version ${nextVersion} is ${shards(nextCount)}, its current version ${currentVersion.version} ${shards(currentCount)}, ` +
    `and the deployed Workers serve ${shards(currentCount)}. A build of another number of shards goes out with a redeploy, ` +
    `which deploys the Workers for it and then publishes it: npm run deploy -- --env ${deployment} (docs/sharding.md).`
  );
}

/**
 * The record after a rollback: the version that was current before the current one's publish becomes
 * current again, and that publish is taken back for good (a rollback never returns to a version rolled
 * back from). Repeated, it walks further back through the publishes not taken back, skipping versions
 * no longer in the bucket.
 *
 * @throws PublishError when no earlier version is left in the bucket.
 */
function rolledBack(record: CurrentRecord, now: Date): CurrentRecord {
  const at = now.toISOString();
  const history = historyOf(record);
  const live = history.filter((period) => period.by === 'publish' && period.rolledBackAt === null);
  const inBucket = new Map(record.versions.map((v) => [v.version, v]));
  let back = live.length - 2;
  while (back >= 0 && (!inBucket.has(live[back]?.version ?? '') || live[back]?.version === record.current.version)) back--;
  const target = inBucket.get(live[back]?.version ?? '');
  if (back < 0 || target === undefined) throw new PublishError(`no version that was current before ${record.current.version} is left to roll back to`);
  for (const period of live.slice(back + 1)) period.rolledBackAt = at;
  return makeCurrent(record, target, history, 'rollback', at);
}

/** `record` without the versions that stopped being current more than {@link RETENTION_DAYS} ago (and their periods), and those. */
export function withoutExpired(record: CurrentRecord, now: Date): { record: CurrentRecord; expired: PublishedVersion[] } {
  const limit = now.getTime() - RETENTION_DAYS * DAY_MS;
  const expired = record.versions.filter((v) => v.retiredAt !== null && Date.parse(v.retiredAt) < limit);
  if (expired.length === 0) return { record, expired };
  const gone = new Set(expired.map((v) => v.version));
  const versions = record.versions.filter((v) => !gone.has(v.version));
  const history = record.history?.filter((period) => !gone.has(period.version));
  return { record: { ...record, versions, ...(history ? { history } : {}) }, expired };
}

/** How {@link publishTo} and {@link rollBack} may change the bucket. */
export interface SwitchOptions {
  /**
   * Make current a version of another number of shards than the current one. Only a deploy sets it
   * (`npm run deploy`), once the Workers for the new number are deployed; otherwise that is refused.
   */
  readonly newShardCount?: boolean;
  /** The deployment (wrangler environment) the bucket belongs to, for the remedy a refusal names. */
  readonly deployment?: string;
}

/**
 * Publishes a build into one bucket: uploads every object of the version (`ipgeo-{version}.mmdb`, or
 * one per shard, and `ipgeo-{version}.asn`; none when that version is there already), then writes the
 * current record naming them once, then deletes expired versions. Every object is written before the
 * record that names it, so a Worker never reads a record whose objects are missing, and the set becomes
 * current at once. A version that is current already is neither uploaded nor written again (expired
 * versions still go), unless it has no ASN object and the build has one: that is uploaded and added to
 * its entry. A version's ASN object, once published, is never written again.
 *
 * @param read the bucket's record as just read, when the caller has read it (else it is read here).
 * @param options `newShardCount` for a deploy that has deployed the Workers of the build's number of shards.
 * @returns the record as it is now.
 * @throws PublishError when the build's number of shards differs from the current version's and
 *   `options.newShardCount` is not set ({@link shardCountRefusal}), or the bucket holds the version
 *   with other files or another ASN object ({@link publicationStep}), before anything is uploaded.
 */
export async function publishTo<Body>(
  bucket: VersionBucket<Body>,
  build: Publication<Body>,
  now: Date,
  log: (line: string) => void,
  read?: CurrentRecord | null,
  options: SwitchOptions = {},
): Promise<CurrentRecord> {
  const before = read === undefined ? await readRecord(bucket) : read;
  const step = publicationStep(before, build);
  // A version published before builds had an ASN object gets the build's, without another switch.
  const addsAsn = lacksAsnObject(before, build.version, build.asn);
  if (before && step === 'current' && !addsAsn) {
    log(`${bucket.name}: version ${build.version} is current already; nothing uploaded, the record unchanged`);
    return expire(bucket, before, now, log);
  }
  const refusal =
    before && !options.newShardCount ? shardCountRefusal(bucket.name, before.current, build.version, build.shards.length, options.deployment) : undefined;
  if (refusal) throw new PublishError(refusal);
  const count = build.shards.length;
  for (const [index, shard] of build.shards.entries()) {
    const key = shardObjectKey(build.version, index, count);
    if (step !== 'upload') {
      log(`${bucket.name}: ${key} is there already; not uploaded again`);
      continue;
    }
    log(`${bucket.name}: uploading ${key} (${(shard.bytes / 1048576).toFixed(1)} MiB)`);
    await bucket.putObject(key, shard.body);
  }
  if (build.asn && (step === 'upload' || addsAsn)) {
    const { key } = asnEntry(build.version, build.asn);
    log(`${bucket.name}: uploading ${key} (${(build.asn.bytes / 1048576).toFixed(1)} MiB)`);
    await bucket.putObject(key, build.asn.body);
  }
  const next = withCurrent(before, build, now);
  return commit(bucket, before, addsAsn && build.asn ? withAsnObject(next, build.version, build.asn) : next, now, log);
}

/**
 * Rolls one bucket back (see {@link rolledBack}), refusing a version whose load would not fit the
 * isolate budget (`budget.ts`).
 *
 * @throws PublishError when nothing is published or nothing is left to roll back to; BudgetError.
 */
export async function rollBack(
  bucket: VersionBucket<unknown>,
  now: Date,
  log: (line: string) => void,
  budgetBytes = DEFAULT_BUDGET_BYTES,
  options: SwitchOptions = {},
): Promise<CurrentRecord> {
  const before = await readRecord(bucket);
  if (before === null) throw new PublishError(`${bucket.name}: nothing is published there`);
  const next = rolledBack(before, now);
  const refusal = options.newShardCount
    ? undefined
    : shardCountRefusal(bucket.name, before.current, next.current.version, next.current.shards.length, options.deployment);
  if (refusal) throw new PublishError(refusal.replace('A build of another number of shards goes out', 'Rolling back to it goes'));
  for (const [index, shard] of next.current.shards.entries()) {
    const what = next.current.shards.length === 1 ? `version ${next.current.version}` : `version ${next.current.version}, shard ${index}`;
    log(`${bucket.name}: ${checkBudget(what, shard.bytes, budgetBytes)}`);
  }
  return commit(bucket, before, next, now, log);
}

/** Writes `next` as the bucket's record (without expired versions), then deletes the expired objects. */
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
  return deleteExpired(bucket, record, expired, log);
}

/**
 * Deletes the versions of a bucket that stopped being current more than {@link RETENTION_DAYS} ago,
 * publishing nothing: what a publish stopped by the diff gate still does (GeoLite2 EULA, 6c).
 */
export async function expireVersions(bucket: VersionBucket<unknown>, now: Date, log: (line: string) => void): Promise<void> {
  const record = await readRecord(bucket);
  if (record) await expire(bucket, record, now, log);
}

/** Deletes the versions of `record` that expired, writing the record without them first; `record` when none did. */
async function expire(bucket: VersionBucket<unknown>, before: CurrentRecord, now: Date, log: (line: string) => void): Promise<CurrentRecord> {
  const { record, expired } = withoutExpired(before, now);
  if (expired.length === 0) return before;
  await bucket.putText(CURRENT_RECORD_KEY, `${JSON.stringify(record, null, 2)}\n`);
  return deleteExpired(bucket, record, expired, log);
}

async function deleteExpired(bucket: VersionBucket<unknown>, record: CurrentRecord, expired: readonly PublishedVersion[], log: (line: string) => void) {
  for (const version of expired) {
    for (const { key } of [...version.shards, ...(version.asn ? [version.asn] : [])]) {
      log(`${bucket.name}: deleting ${key}, not current since ${version.retiredAt} (over ${RETENTION_DAYS} days)`);
      await bucket.delete(key);
    }
  }
  return record;
}

/**
 * The version string of a build: the manifest's own when it has one, else (manifests of one file
 * written before versions were kept) the UTC date of its build and eight hex digits of its SHA-256 (`2026-09-18.3f2a9c1d`).
 */
export function versionOf(manifest: { version?: string; builtAt: string; output?: { sha256: string } }): string {
  if (manifest.version) return manifest.version;
  if (!manifest.output) throw new PublishError('the manifest names no version and no file');
  return `${manifest.builtAt.slice(0, 10)}.${manifest.output.sha256.slice(0, 8)}`;
}
