/**
 * @module One isolate's database file, loaded (`stored.ts`), verified, kept, and switched to a newly
 * published version without a restart: the whole database in an app that does not shard, following
 * the current record (`load.ts`); one shard in a shard Worker, loading the versions the app asks for
 * (`src/shard.ts`). Bytes answer only once their size and SHA-256 are the published ones; no request
 * awaits a promise or stream another created; one load at a time makes progress, and each of its
 * phases reports it; a new version loads beside the answering one when both fit the isolate budget,
 * else after its release (docs/decisions/0004-release-then-load-switching.md, `docs/sharding.md`).
 */
import { DEFAULT_BUDGET_BYTES, sideBySideFit } from './budget.ts';
import { type DataSource, type Deployment, logDataEvent, type RequestPlace } from './data-events.ts';
import { GeoDatabase } from './database.ts';
import type { DatabaseIdentity } from './identity.ts';
import type { PublishedVersion } from './published.ts';
import { RETRY_AFTER_SECONDS } from './retry-after.ts';
import { type ShardPlace, shardFile, WHOLE } from './shard-files.ts';
import {
  type DataBucket,
  fail,
  failureEvent,
  fillCache,
  identify,
  openCache,
  type PublishedFile,
  ReadStopped,
  readCached,
  readObject,
  readRecord,
  reasonOf,
  release,
  verifyObject,
} from './stored.ts';
import { DataUnavailableError, unavailable } from './unavailable.ts';

/** The bindings the load uses: the R2 bucket and the deployment's names. */
export interface DatabaseEnv extends DataBucket, Deployment {}

/** What the load needs of the request's execution context: work that may outlive the answer. */
export interface BackgroundContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** How often an isolate reads the current record, at most (the app's view of a sharded database too, `shard-set.ts`). */
export const CHECK_INTERVAL_MS = 60_000;
/**
 * How long a request waits at most for a load another request is doing, then answers 503: a load that
 * reads the whole file slower than its size over this (about 3.3 MB/s for 65 MB) makes requests fail
 * (`docs/production.md`, "Waiting, not failing").
 */
const WAIT_LIMIT_MS = 20_000;
/**
 * A load or a minute's check that has made no progress (read no bytes, finished no step) for this long
 * is stuck: waiters answer 503, and the next request starts another, which the stuck one gives way to
 * at its next step.
 */
const LOAD_STALLED_MS = 5_000;
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

/** A load or a minute's check under way. */
interface Task {
  readonly since: number;
  /** When it last made progress: bytes read, or a step finished (or when it began). */
  progressAt: number;
}

/** A load under way. */
interface Loading extends Task {
  /** The version it loads; undefined while a cold load has not read the current record yet. */
  version: string | undefined;
}

/**
 * A version whose object the minute's check has verified (size and SHA-256) while the held one
 * answered, when two do not fit: the next request releases the held one and loads it.
 */
interface Verified {
  readonly version: PublishedVersion;
  /** How long the verification took, ms by the Worker's clock. */
  readonly ms: number;
}

/** The version a load replaces, as its `switch` event says it. */
interface Replaced {
  readonly version: string;
  /** Whether it was released before the new one loaded (requests waited), rather than kept beside it. */
  readonly waits: boolean;
  /** When it was released; the load's beginning when it stays beside. */
  readonly at: number;
  readonly verifyMs?: number;
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
  /** The minute's check under way, if any. */
  private checking: Task | undefined;
  /** A newer version verified by the minute's check, waiting for the next request to switch to it. */
  private verified: Verified | undefined;
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
   *   app of a deployment that does not shard), whose minute check, or the switch to a version it
   *   verified, this starts in `ctx.waitUntil` when due.
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
      else if (this.verified !== undefined && !this.progressing(this.loading, now)) {
        // The old version answers this request; those after it wait for the new one.
        const load = this.switchTo(this.verified, env, ctx, place);
        ctx.waitUntil(load.catch(() => undefined));
      } else if (now - this.checkedAt >= CHECK_INTERVAL_MS && !this.progressing(this.checking, now)) {
        // A check whose request was cancelled never finishes: once it has stalled, another may start.
        this.checkedAt = now;
        ctx.waitUntil(this.check(env, ctx, place, loaded));
      }
      return loaded.database;
    }
    const loading = this.loading;
    if (loading !== undefined && (version === undefined || loading.version === version) && this.progressing(loading, now)) {
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
    this.checking = undefined;
    this.verified = undefined;
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

  /** Whether `task` is under way and has made progress within {@link LOAD_STALLED_MS}. */
  private progressing(task: Task | undefined, now: number): task is Task {
    return task !== undefined && now - task.progressAt < LOAD_STALLED_MS;
  }

  /**
   * The progress callback of `task` for the reads it makes: marks it progressing, or, once the slot has
   * let another task take its place, stops it ({@link ReadStopped}), so that two never read at once.
   */
  private progressOf(task: Task, current: () => Task | undefined): () => void {
    return () => {
      if (current() !== task) throw new ReadStopped('another took its place, having found it stuck');
      task.progressAt = this.now();
    };
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
      if (now - loading.progressAt >= LOAD_STALLED_MS) throw unavailable(`the load under way has made no progress for ${now - loading.progressAt} ms`);
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
    if (this.progressing(this.loading, this.now())) {
      if (this.loading.version === version) return this.waitForLoad(this.now(), version);
      throw unavailable(`version ${this.loading.version ?? '(reading the record)'} is loading, not the current ${version}`);
    }
    return this.load(this.begin(version), env, ctx, place, async () => current);
  }

  /**
   * The minute's check of an isolate that follows the current record, in a request's `waitUntil`: when
   * the record names another version, loads it beside `seen` when both fit the budget, else verifies
   * its object while `seen` answers, for the next request to switch to ({@link switchTo}). Each of the
   * two passes over a slow bucket so has a request's `waitUntil` of its own.
   */
  private async check(env: DatabaseEnv, ctx: BackgroundContext, place: RequestPlace | undefined, seen: Loaded): Promise<void> {
    const checking: Task = { since: this.now(), progressAt: this.now() };
    this.checking = checking;
    const progress = this.progressOf(checking, () => this.checking);
    let next: PublishedVersion | undefined;
    try {
      next = (await readRecord(env)).current;
      progress();
      const file = shardFile(next, this.place);
      if (file.sha256 === seen.identity.sha256) {
        // Published again (a rollback) before a verified version was switched to: nothing to switch to.
        this.verified = undefined;
        return;
      }
      if (this.held.at(-1) !== seen || this.progressing(this.loading, this.now()) || this.verified?.version.version === next.version) return;
      if (sideBySideFit(seen.identity.bytes, file.bytes, this.budgetBytes).fits) {
        const found = next;
        await this.load(this.begin(found.version), env, ctx, place, async () => found);
        // Nobody asks this isolate for an older version: it goes as soon as the new one answers.
        this.drop(seen);
        return;
      }
      // The same read fills this location's cache, so that the load after the release reads its copy.
      const cache = await openCache();
      const started = this.now();
      await verifyObject(env, file, cache, progress);
      if (this.checking === checking) this.verified = { version: next, ms: this.now() - started };
    } catch (error) {
      // A failed load has logged its own refusal.
      if (this.held.at(-1) === seen && !(error instanceof DataUnavailableError) && !(error instanceof ReadStopped)) {
        this.log(failureEvent(error, `staying on ${seen.version}: ${reasonOf(error)}`, next?.version), env, place);
      }
    } finally {
      if (this.checking === checking) this.checking = undefined;
    }
  }

  /** Releases the held version and loads the one the minute's check verified ({@link makeRoom}). */
  private switchTo(verified: Verified, env: DatabaseEnv, ctx: BackgroundContext, place: RequestPlace | undefined): Promise<GeoDatabase> {
    return this.load(this.begin(verified.version.version), env, ctx, place, async () => verified.version);
  }

  /** Marks a load as under way (synchronously, so that a request arriving next waits for it); one that stalled gives way to it. */
  private begin(version: string | undefined): Loading {
    const since = this.now();
    this.loading = { version, since, progressAt: since };
    return this.loading;
  }

  /**
   * Loads the file of the version that `current` answers, for `loading`: makes room for it (the
   * version held before stays beside it when both fit the budget, else it is verified first and the
   * held one released), reads it from the cache or R2, verifies it, and holds it as the newest. Every
   * phase reports progress: the record read, the verification, each piece of the file.
   */
  private async load(
    loading: Loading,
    env: DatabaseEnv,
    ctx: BackgroundContext,
    place: RequestPlace | undefined,
    current: () => Promise<PublishedVersion>,
  ): Promise<GeoDatabase> {
    const progress = this.progressOf(loading, () => this.loading);
    let version: PublishedVersion | undefined;
    let buffer: ArrayBuffer | undefined;
    try {
      version = await current();
      progress();
      const file = shardFile(version, this.place);
      if (file.sha256 === this.damagedSha256) {
        fail(`version ${version.version} is current but its reads found damage; publish another version or roll back`);
      }
      const cache = await openCache();
      const replaced = await this.makeRoom(version.version, file, env, cache, progress);
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
      // Hashing and parsing read nothing: a load that another replaced meanwhile stops here.
      progress();
      const database = new GeoDatabase(buffer);
      const now = this.now();
      this.held.push({ database, buffer, identity: verified.identity, version: version.version, askedAt: now });
      this.loading = undefined;
      this.failure = undefined;
      this.damagedSha256 = undefined;
      this.log({ event: 'load', version: version.version, bytes: file.bytes, source, ms: now - loading.since }, env, place);
      if (replaced !== undefined) {
        const { verifyMs, waits } = replaced;
        this.log(
          {
            event: 'switch',
            from: replaced.version,
            to: version.version,
            waits,
            source,
            ...(verifyMs === undefined ? {} : { verifyMs }),
            waitMs: waits ? now - replaced.at : 0,
          },
          env,
          place,
        );
      }
      return database;
    } catch (error) {
      if (buffer !== undefined && !this.held.some((held) => held.buffer === buffer)) release(buffer);
      // Another load took this one's place (this one was taken as stuck), and logs for itself.
      if (this.loading !== loading) throw unavailable('the load made no progress for too long, and another began');
      const reason = reasonOf(error);
      this.loading = undefined;
      this.failure = { at: this.now(), reason, version: loading.version };
      this.log(failureEvent(error, reason, version?.version), env, place);
      throw error instanceof DataUnavailableError ? error : unavailable(reason);
    }
  }

  /**
   * Room for `file` of `version`: of two versions held, the older goes; the one left stays beside the
   * new file when both fit the budget ({@link sideBySideFit}), else the new file's object is verified
   * first (a bad upload leaves the held one answering; skipped when the minute's check has verified it)
   * and the held one released.
   *
   * @returns the version the new one replaces; undefined when none is held.
   */
  private async makeRoom(
    version: string,
    file: PublishedFile,
    env: DatabaseEnv,
    cache: Cache | undefined,
    progress: () => void,
  ): Promise<Replaced | undefined> {
    while (this.held.length > 1) this.drop(this.held[0] as Loaded);
    const kept = this.held[0];
    if (kept === undefined || kept.version === version) return undefined;
    if (sideBySideFit(kept.identity.bytes, file.bytes, this.budgetBytes).fits) return { version: kept.version, waits: false, at: this.now() };
    let verifyMs = this.verified?.version.version === version ? this.verified.ms : undefined;
    this.verified = undefined;
    if (verifyMs === undefined) {
      // A shard asked for the new version: the request that asks waits for both passes.
      const started = this.now();
      await verifyObject(env, file, cache, progress);
      verifyMs = this.now() - started;
    }
    this.drop(kept);
    return { version: kept.version, waits: true, at: this.now(), verifyMs };
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
