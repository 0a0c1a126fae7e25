/**
 * @module The app's view of a sharded database (`docs/sharding.md`): the current version, its shards'
 * files and the ranges it routes addresses by, read from the bucket's current record at most once a
 * minute. Every answer is from one version: a new one is adopted once every shard Worker was asked to
 * load it (beside the old one where both fit), and a request told that its version is gone reads the
 * record itself. Holds settled values only; no request awaits another's promise.
 */

import { CHECK_INTERVAL_MS, type DataBucket, readRecord, reasonOf } from './bucket.ts';
import { type Deployment, logDataEvent } from './data-events.ts';
import type { DatabaseIdentity } from './identity.ts';
import type { BackgroundContext } from './loading.ts';
import type { ShardFile } from './shard-files.ts';
import { parseRanges, type ShardRange } from './shard-ranges.ts';
import { unavailable } from './unavailable.ts';

/** The bindings the set reads: the bucket, and the deployment's names for its log. */
export interface ShardSetEnv extends DataBucket, Deployment {}

/** A version of a sharded database, as the app answers from it. */
export interface ShardedVersion {
  readonly version: string;
  /** Its shards in address order, as the record lists them. */
  readonly shards: readonly ShardFile[];
  /** The shards' ranges, parsed, for routing (`shard-ranges.ts`). */
  readonly ranges: readonly ShardRange[];
}

/** A minute's check not done after this long was abandoned (its request cancelled): another may start. */
const CHECK_ABANDONED_MS = 2 * CHECK_INTERVAL_MS;

/** One app isolate's current version of the sharded database. */
export class ShardSet {
  private current: ShardedVersion | undefined;
  /** The identity of the current version, once composed from its shards' (`src/lookup/data-status.ts`). */
  private identity: { readonly version: string; readonly value: DatabaseIdentity } | undefined;
  private checkedAt = 0;
  private checkingSince: number | undefined;

  /** @param now the clock, ms since the epoch (tests pass their own). */
  constructor(private readonly now: () => number = () => Date.now()) {}

  /**
   * The version to answer from: the one held, or the current record's on an isolate's first request
   * (each such request reads the record itself). When the minute's check is due, it starts in
   * `ctx.waitUntil`: a new version is adopted after `prepare` (every shard asked to load it) settles.
   *
   * @param count the deployment's number of shard Workers.
   * @throws DataUnavailableError (as a rejected promise) when the record cannot be read, or names a
   *   version of another number of shards.
   */
  get(
    env: ShardSetEnv,
    ctx: BackgroundContext,
    count: number,
    prepare: (version: ShardedVersion) => Promise<unknown>,
  ): ShardedVersion | Promise<ShardedVersion> {
    const current = this.current;
    if (current === undefined) return this.read(env, count).then((read) => this.adopt(read, undefined));
    const now = this.now();
    if (now - this.checkedAt >= CHECK_INTERVAL_MS && (this.checkingSince === undefined || now - this.checkingSince >= CHECK_ABANDONED_MS)) {
      this.checkedAt = now;
      ctx.waitUntil(this.check(env, count, prepare, current));
    }
    return current;
  }

  /**
   * The current version after a shard answered that `asked` is gone: the record read by this request,
   * adopted (without preparing: the shards load it as they are asked).
   *
   * @throws DataUnavailableError when the record cannot be read or is of another number of shards.
   */
  async moved(env: ShardSetEnv, count: number, asked: string): Promise<ShardedVersion> {
    const read = await this.read(env, count);
    return this.adopt(read, asked);
  }

  /** The version answering now, if any (the `X-Database-Version` header). */
  get version(): string | undefined {
    return this.current?.version;
  }

  /** The identity composed for `version`, if it is the current one and was composed. */
  identityOf(version: string): DatabaseIdentity | undefined {
    return this.identity?.version === version ? this.identity.value : undefined;
  }

  /** Keeps the identity composed for `version`, when that is still the current one. */
  keepIdentity(version: string, value: DatabaseIdentity): void {
    if (this.current?.version === version) this.identity = { version, value };
  }

  /** Forgets everything (tests start from a cold isolate). */
  reset(): void {
    this.current = undefined;
    this.identity = undefined;
    this.checkedAt = 0;
    this.checkingSince = undefined;
  }

  /** Makes `read` current unless, meanwhile, another request adopted a version other than `replacing`. */
  private adopt(read: ShardedVersion, replacing: string | undefined): ShardedVersion {
    if (this.current === undefined || this.current.version === replacing) {
      this.current = read;
      this.checkedAt = this.now();
    }
    return read;
  }

  private async check(env: ShardSetEnv, count: number, prepare: (version: ShardedVersion) => Promise<unknown>, seen: ShardedVersion): Promise<void> {
    const started = this.now();
    this.checkingSince = started;
    try {
      const read = await this.read(env, count);
      if (read.version === seen.version) return;
      // Asked first, the shards hold the new version (beside the old where both fit) when requests come for it.
      await prepare(read).catch(() => undefined);
      this.adopt(read, seen.version);
    } catch (error) {
      logDataEvent({ event: 'refusal', why: `staying on ${seen.version}: ${reasonOf(error)}` }, env, undefined);
    } finally {
      if (this.checkingSince === started) this.checkingSince = undefined;
    }
  }

  /** The current record's version, as the app routes by it. */
  private async read(env: ShardSetEnv, count: number): Promise<ShardedVersion> {
    let record: Awaited<ReturnType<typeof readRecord>>;
    try {
      record = await readRecord(env);
    } catch (error) {
      throw unavailable(reasonOf(error));
    }
    const { version } = record.current;
    const { shards } = record.current;
    if (shards.length !== count) {
      throw unavailable(
        `version ${version} has ${shards.length} shard(s); this deployment has ${count} shard Workers: redeploy it with that build (npm run deploy -- --env NAME)`,
      );
    }
    const ranges = parseRanges(shards);
    if ('error' in ranges) throw unavailable(`the shards of version ${version} do not cover the address space: ${ranges.error}`);
    return { version, shards, ranges };
  }
}
