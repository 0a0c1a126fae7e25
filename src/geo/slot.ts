/**
 * @module One isolate's database file, loaded (`stored.ts`), verified, kept, and switched to a newly
 * published version without a restart: the whole database in an app that does not shard, following
 * the current record (`load.ts`); one shard in a shard Worker, loading the versions the app asks for
 * (`src/shard.ts`). Bytes answer only once their size and SHA-256 are the published ones; no request
 * awaits a promise or stream another created; a new version loads beside the answering one when both
 * fit the isolate budget, else after its release (docs/decisions/0004-release-then-load-switching.md,
 * `docs/sharding.md`).
 */
import { DEFAULT_BUDGET_BYTES, sideBySideFit } from './budget.ts';
import { type DataSource, type Deployment, logDataEvent, type RequestPlace } from './data-events.ts';
import { DataUnavailableError, GeoDatabase, RETRY_AFTER_SECONDS, unavailable } from './database.ts';
import type { DatabaseIdentity } from './identity.ts';
import type { PublishedVersion } from './published.ts';
import { type ShardPlace, shardFile, WHOLE } from './shard-files.ts';
import {
  type DataBucket,
  fail,
  failureEvent,
  fillCache,
  identify,
  openCache,
  type PublishedFile,
  readCached,
  readObject,
  readRecord,
  reasonOf,
  release,
  verifyObject,
} from './stored.ts';

/** The bindings the load uses: the R2 bucket and the deployment's names. */
export interface DatabaseEnv extends DataBucket, Deployment {}

/** What the load needs of the request's execution context: work that may outlive the answer. */
export interface BackgroundContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** How often an isolate reads the current record, at most (the app's view of a sharded database too, `shard-set.ts`). */
export const CHECK_INTERVAL_MS = 60_000;
/**
 * How long a request waits at most for a load another request is doing, then answers 503. A cold load
 * from a distant bucket (150 ms to the first byte, 25 MB/s) takes about 3 s (`npm run bench:cold`).
 */
const WAIT_LIMIT_MS = 20_000;
/** A load that has read nothing for this long is stuck: waiters answer 503, and the next request starts another. */
const LOAD_STALLED_MS = 5_000;
/** A minute's check (verifying and loading a new version) not done after this long was abandoned. */
const CHECK_ABANDONED_MS = 2 * WAIT_LIMIT_MS;
/** How often a waiting request looks at the slot again. */
const POLL_MS = 20;
/**
 * A shard keeps a version beside a newer one until nobody has asked for it this long: every app isolate
 * reads the current record at least as often ({@link CHECK_INTERVAL_MS}), then asks for the new one.
 */
const RETIRE_AFTER_MS = CHECK_INTERVAL_MS;

/** A version asked of a shard that it does not hold and that is no longer current: the asker moves to `current`. */
export class VersionGoneError extends Error {
  override readonly name = 'VersionGoneError';
  constructor(
    readonly asked: string,
    /** The version the current record names. */
    readonly current: string,
  ) {
    super(`version ${asked} is no longer current (${current} is)`);
  }
}

/** A database held, and what it was verified against. */
interface Loaded {
  readonly database: GeoDatabase;
  readonly buffer: ArrayBuffer;
  /** Its sources and counts (`identity.ts`), computed from its bytes. */
  readonly identity: DatabaseIdentity;
  /** The published version it is (of it) the file of. */
  readonly version: string;
  /** When a request last asked for it, ms since the epoch. */
  askedAt: number;
}

/** A load under way. */
interface Loading {
  /** The version it loads; undefined while a cold load has not read the current record yet. */
  version: string | undefined;
  readonly since: number;
  /** When it last read bytes (or began). */
  progressAt: number;
}

/** How a slot is run: its clock, and the isolate budget that decides whether two versions fit. */
export interface SlotOptions {
  /** ms since the epoch (tests pass their own). */
  readonly now?: () => number;
  /** Bytes (`budget.ts`); the default {@link DEFAULT_BUDGET_BYTES}. */
  readonly budgetBytes?: number;
}

/**
 * One isolate's file of shard `place` of each version it serves (the whole database when
 * `place.count` is 1): at most two versions held, the newest last. Its state holds settled values only
 * (see the module comment).
 */
export class DatabaseSlot {
  private held: Loaded[] = [];
  private loading: Loading | undefined;
  /**
   * The last load's failure, which stands for {@link RETRY_AFTER_SECONDS}: for any load where the slot
   * follows the current record, for the version it was of where versions are asked for (a shard asked
   * for a newly published version loads it at once).
   */
  private failure: { at: number; reason: string; version: string | undefined } | undefined;
  /** The SHA-256 of a file whose reads found damage: refused until another one is current. */
  private damagedSha256: string | undefined;
  /** When the current record was last read by the minute's check (or the first load began). */
  private checkedAt = 0;
  /** When the minute's check under way began; undefined when none is. */
  private checkingSince: number | undefined;
  private readonly now: () => number;
  private readonly budgetBytes: number;

  constructor(
    readonly place: ShardPlace = WHOLE,
    options: SlotOptions = {},
  ) {
    this.now = options.now ?? (() => Date.now());
    this.budgetBytes = options.budgetBytes ?? DEFAULT_BUDGET_BYTES;
  }

  /**
   * The database to answer from: at once when held, else after this request's own load or a wait for
   * another's.
   *
   * @param version the version asked for (a shard Worker: the app's); undefined, the current one (the
   *   app of a deployment that does not shard), whose minute check this starts in `ctx.waitUntil` when due.
   * @param place the request's `cf`, whose location the data events name.
   * @throws DataUnavailableError (also as a rejected promise) when no verified database can be had: no
   *   current record, the object missing, of the wrong size or digest, not a database, a load failed
   *   less than {@link RETRY_AFTER_SECONDS} ago, or another request's load stuck ({@link LOAD_STALLED_MS})
   *   or not done in {@link WAIT_LIMIT_MS}.
   * @throws VersionGoneError (as a rejected promise) when `version` is neither held nor current.
   */
  get(env: DatabaseEnv, ctx: BackgroundContext, place?: RequestPlace, version?: string): GeoDatabase | Promise<GeoDatabase> {
    const now = this.now();
    let loaded = version === undefined ? this.held[this.held.length - 1] : this.held.find((held) => held.version === version);
    if (loaded !== undefined && loaded.database.damage !== undefined) {
      this.log({ event: 'damage', version: loaded.version, source: 'reads', why: loaded.database.damage }, env, place);
      this.damagedSha256 = loaded.identity.sha256;
      this.drop(loaded);
      loaded = undefined;
    }
    if (loaded !== undefined) {
      loaded.askedAt = now;
      if (version !== undefined) this.retire(now);
      // A check whose request was cancelled never finishes: after a while another may start.
      else if (now - this.checkedAt >= CHECK_INTERVAL_MS && (this.checkingSince === undefined || now - this.checkingSince >= CHECK_ABANDONED_MS)) {
        this.checkedAt = now;
        ctx.waitUntil(this.check(env, ctx, place, loaded));
      }
      return loaded.database;
    }
    const loading = this.loading;
    if (loading !== undefined && (version === undefined || loading.version === version) && now - loading.progressAt < LOAD_STALLED_MS) {
      return this.waitForLoad(now, version);
    }
    const failure = this.failure;
    if (failure !== undefined && now - failure.at < RETRY_AFTER_SECONDS * 1000 && (version === undefined || failure.version === version)) {
      return Promise.reject(unavailable(`a load failed ${now - failure.at} ms ago (${failure.reason}); waiting before the next`));
    }
    const load = version === undefined ? this.loadCurrent(env, ctx, place) : this.loadAsked(version, env, ctx, place);
    // The load finishes even if this request's client goes away; others may be polling for it.
    ctx.waitUntil(load.catch(() => undefined));
    return load;
  }

  /** Forgets everything, releasing what it holds (tests start each case from a cold isolate). */
  reset(): void {
    for (const loaded of this.held) release(loaded.buffer);
    this.held = [];
    this.loading = undefined;
    this.failure = undefined;
    this.damagedSha256 = undefined;
    this.checkedAt = 0;
    this.checkingSince = undefined;
  }

  /** The newest version held, if any (logs and tests). */
  get version(): string | undefined {
    return this.held.at(-1)?.version;
  }

  /** The identity of the file of `version` (default: the newest held), if held; never starts a load. */
  identity(version?: string): DatabaseIdentity | undefined {
    return (version === undefined ? this.held.at(-1) : this.held.find((loaded) => loaded.version === version))?.identity;
  }

  /** The versions held, oldest first (tests). */
  get versions(): string[] {
    return this.held.map((loaded) => loaded.version);
  }

  /** Releases the versions beside the newest that nobody has asked for in {@link RETIRE_AFTER_MS}. */
  private retire(now: number): void {
    for (const loaded of this.held.slice(0, -1)) if (now - loaded.askedAt >= RETIRE_AFTER_MS) this.drop(loaded);
  }

  /** Polls until a load of `version` (undefined: any) answers, fails, stalls, or {@link WAIT_LIMIT_MS} has passed since `since`. */
  private async waitForLoad(since: number, version: string | undefined): Promise<GeoDatabase> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const loaded = version === undefined ? this.held.at(-1) : this.held.find((held) => held.version === version);
      if (loaded !== undefined && loaded.database.damage === undefined) return loaded.database;
      const loading = this.loading;
      if (loading === undefined || (version !== undefined && loading.version !== version)) {
        throw unavailable(this.failure?.reason ?? 'the load this request waited for was given up');
      }
      const now = this.now();
      if (now - loading.progressAt >= LOAD_STALLED_MS) throw unavailable(`the load under way has read nothing for ${now - loading.progressAt} ms`);
      if (now - since >= WAIT_LIMIT_MS) throw unavailable(`the load under way did not finish within ${WAIT_LIMIT_MS} ms`);
    }
  }

  /** The first load of an isolate that follows the current record: reads it, then the file it names. */
  private loadCurrent(env: DatabaseEnv, ctx: BackgroundContext, place: RequestPlace | undefined): Promise<GeoDatabase> {
    const loading = this.begin(undefined);
    this.checkedAt = loading.since;
    return this.load(loading, env, ctx, place, async () => {
      const current = (await readRecord(env)).current;
      loading.version = current.version;
      return current;
    });
  }

  /** A shard's load of `version`, which must be the current one (else {@link VersionGoneError}). */
  private async loadAsked(version: string, env: DatabaseEnv, ctx: BackgroundContext, place: RequestPlace | undefined): Promise<GeoDatabase> {
    let current: PublishedVersion;
    try {
      current = (await readRecord(env)).current;
    } catch (error) {
      this.failure = { at: this.now(), reason: reasonOf(error), version };
      this.log(failureEvent(error, reasonOf(error), undefined), env, place);
      throw unavailable(reasonOf(error));
    }
    if (current.version !== version) throw new VersionGoneError(version, current.version);
    // Another request may have begun its load, or finished it, while this one read the record.
    const loaded = this.held.find((held) => held.version === version);
    if (loaded !== undefined) return loaded.database;
    if (this.loading !== undefined) {
      if (this.loading.version === version) return this.waitForLoad(this.now(), version);
      throw unavailable(`version ${this.loading.version ?? '(reading the record)'} is loading, not the current ${version}`);
    }
    return this.load(this.begin(version), env, ctx, place, async () => current);
  }

  /**
   * The minute's check of an isolate that follows the current record, in a request's `waitUntil`:
   * loads the version that became current and lets the one it replaces go.
   */
  private async check(env: DatabaseEnv, ctx: BackgroundContext, place: RequestPlace | undefined, seen: Loaded): Promise<void> {
    const started = this.now();
    this.checkingSince = started;
    let next: PublishedVersion | undefined;
    try {
      next = (await readRecord(env)).current;
      if (shardFile(next, this.place).sha256 === seen.identity.sha256 || this.held.at(-1) !== seen || this.loading !== undefined) return;
      const found = next;
      await this.load(this.begin(found.version), env, ctx, place, async () => found);
      // Nobody asks this isolate for an older version: it goes as soon as the new one answers.
      this.drop(seen);
    } catch (error) {
      // A failed load has logged its own refusal.
      if (this.held.at(-1) === seen && !(error instanceof DataUnavailableError)) {
        this.log(failureEvent(error, `staying on ${seen.version}: ${reasonOf(error)}`, next?.version), env, place);
      }
    } finally {
      if (this.checkingSince === started) this.checkingSince = undefined;
    }
  }

  /** Marks a load as under way (synchronously, so that a request arriving next waits for it). */
  private begin(version: string | undefined): Loading {
    const since = this.now();
    this.loading = { version, since, progressAt: since };
    return this.loading;
  }

  /**
   * Loads the file of the version that `current` answers, for `loading`: makes room for it (the
   * version held before stays beside it when both fit the budget, else it is verified first and the
   * held one released), reads it from the cache or R2, verifies it, and holds it as the newest.
   */
  private async load(
    loading: Loading,
    env: DatabaseEnv,
    ctx: BackgroundContext,
    place: RequestPlace | undefined,
    current: () => Promise<PublishedVersion>,
  ): Promise<GeoDatabase> {
    const progress = () => {
      if (this.loading === loading) loading.progressAt = this.now();
    };
    let version: PublishedVersion | undefined;
    let buffer: ArrayBuffer | undefined;
    try {
      version = await current();
      const file = shardFile(version, this.place);
      if (file.sha256 === this.damagedSha256) {
        fail(`version ${version.version} is current but its reads found damage; publish another version or roll back`);
      }
      const cache = await openCache();
      const replaced = await this.makeRoom(version.version, file, env, cache);
      let source: DataSource = 'cache';
      const damaged = (why: string) => this.log({ event: 'damage', version: version?.version ?? '', source: 'cache', why }, env, place);
      let verified = cache && (await readCached(cache, file, progress, damaged));
      if (!verified) {
        source = 'r2';
        buffer = await readObject(env, file, progress);
        verified = { buffer, identity: await identify(buffer, file, 'r2') };
        if (cache) ctx.waitUntil(fillCache(cache, file, buffer));
      }
      buffer = verified.buffer;
      const database = new GeoDatabase(buffer);
      if (this.loading !== loading) {
        // Another load replaced this one (it was taken as stuck): its bytes are not kept.
        release(buffer);
        return database;
      }
      const now = this.now();
      this.held.push({ database, buffer, identity: verified.identity, version: version.version, askedAt: now });
      this.loading = undefined;
      this.failure = undefined;
      this.damagedSha256 = undefined;
      this.log({ event: 'load', version: version.version, bytes: file.bytes, source, ms: now - loading.since }, env, place);
      if (replaced !== undefined) this.log({ event: 'switch', from: replaced.version, to: version.version, waits: replaced.waits }, env, place);
      return database;
    } catch (error) {
      if (buffer !== undefined && !this.held.some((held) => held.buffer === buffer)) release(buffer);
      const reason = reasonOf(error);
      if (this.loading === loading) {
        this.loading = undefined;
        this.failure = { at: this.now(), reason, version: loading.version };
      }
      this.log(failureEvent(error, reason, version?.version), env, place);
      throw error instanceof DataUnavailableError ? error : unavailable(reason);
    }
  }

  /**
   * Room for `file` of `version`: of two versions held, the older goes; the one left stays beside the
   * new file when both fit the budget ({@link sideBySideFit}), else the new file's object is verified
   * first (a bad upload leaves the held one answering) and the held one released.
   *
   * @returns the version the new one replaces, and whether requests for it wait meanwhile; undefined when none is held.
   */
  private async makeRoom(
    version: string,
    file: PublishedFile,
    env: DatabaseEnv,
    cache: Cache | undefined,
  ): Promise<{ version: string; waits: boolean } | undefined> {
    while (this.held.length > 1) this.drop(this.held[0] as Loaded);
    const kept = this.held[0];
    if (kept === undefined || kept.version === version) return undefined;
    if (sideBySideFit(kept.identity.bytes, file.bytes, this.budgetBytes).fits) return { version: kept.version, waits: false };
    // The same read fills the cache, so the load after the release reads this location's copy.
    await verifyObject(env, file, cache);
    this.drop(kept);
    return { version: kept.version, waits: true };
  }

  /** Lets a held version go and frees its bytes now. */
  private drop(loaded: Loaded): void {
    if (!this.held.includes(loaded)) return;
    this.held = this.held.filter((held) => held !== loaded);
    release(loaded.buffer);
  }

  private log(event: Parameters<typeof logDataEvent>[0], env: DatabaseEnv, place: RequestPlace | undefined): void {
    logDataEvent(event, env, place, this.place);
  }
}
