/**
 * @module How an isolate loads the file of a published version (the whole database, or one shard) and
 * holds it: at most two versions, the newest last, each answering only once its size and SHA-256 are
 * the published ones (`bucket.ts`). The invariants of loading are kept here: the state holds settled
 * values only; no request awaits a promise or stream that another created (it polls the state instead,
 * {@link DatabaseLoader.waitForLoad}); one load makes progress at a time (a new one takes the place of
 * one that stalled, which stops at its next read). Its two modes: `current-database.ts` follows the
 * current record, `asked-versions.ts` loads the versions a shard Worker is asked for.
 */
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
  reasonOf,
  release,
  verifyObject,
} from './bucket.ts';
import { DEFAULT_BUDGET_BYTES, sideBySideFit } from './budget.ts';
import { type DataSource, type Deployment, logDataEvent, type RequestPlace } from './data-events.ts';
import { GeoDatabase } from './database.ts';
import type { DatabaseIdentity } from './identity.ts';
import { LOAD_STALLED_MS, progressing, progressOf, type Task } from './load-progress.ts';
import type { PublishedVersion } from './published.ts';
import { RETRY_AFTER_SECONDS } from './retry-after.ts';
import { type ShardPlace, shardFile } from './shard-files.ts';
import { DataUnavailableError, unavailable } from './unavailable.ts';

/** The bindings a load uses: the R2 bucket and the deployment's names. */
export interface DatabaseEnv extends DataBucket, Deployment {}

/** What a load needs of the request's execution context: work that may outlive the answer. */
export interface BackgroundContext {
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * How long a request waits at most for a load another request is doing, then answers 503: a load that
 * reads the whole file slower than its size over this makes requests fail (`docs/production.md`,
 * "Waiting, not failing").
 */
const WAIT_LIMIT_MS = 20_000;
/** How often a waiting request looks at the state again. */
const POLL_MS = 20;

/** A database held, and what it was verified against. */
export interface Loaded {
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
interface Loading extends Task {
  /** The version it loads; undefined while a first load has not read the current record yet. */
  version: string | undefined;
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

/** How a loader is run: its clock, and the isolate budget that decides whether two versions fit. */
export interface LoaderOptions {
  /** ms since the epoch (tests pass their own). */
  readonly now?: () => number;
  /** Bytes (`budget.ts`); the default {@link DEFAULT_BUDGET_BYTES}. */
  readonly budgetBytes?: number;
}

/** What a mode does with a request (see {@link DatabaseLoader.answer}). */
interface Mode {
  /** Called when a held version answers, at `now`: the mode's check, switch or retirement. */
  held(loaded: Loaded, now: number): void;
  /** This request's own load, when nothing held answers and no load is under way or failed lately. */
  load(): Promise<GeoDatabase>;
}

/** One isolate's file of shard `place` of the versions it serves (the whole database when `place.count` is 1). */
export abstract class DatabaseLoader {
  private held: Loaded[] = [];
  private loading: Loading | undefined;
  /**
   * The last load's failure, which stands for {@link RETRY_AFTER_SECONDS}: for any load where the
   * isolate follows the current record, for the version it was of where versions are asked for (a
   * shard asked for a newly published version loads it at once).
   */
  private failure: { at: number; reason: string; version: string | undefined } | undefined;
  /** The SHA-256 of a file whose reads found damage: refused until another one is current. */
  private damagedSha256: string | undefined;
  protected readonly now: () => number;
  protected readonly budgetBytes: number;

  constructor(
    readonly place: ShardPlace,
    options: LoaderOptions,
  ) {
    this.now = options.now ?? (() => Date.now());
    this.budgetBytes = options.budgetBytes ?? DEFAULT_BUDGET_BYTES;
  }

  /** Forgets everything, releasing what it holds (tests start each case from a cold isolate). */
  reset(): void {
    for (const loaded of this.held) release(loaded.buffer);
    this.held = [];
    this.loading = undefined;
    this.failure = undefined;
    this.damagedSha256 = undefined;
  }

  /** The newest version held, if any (logs and tests). */
  get version(): string | undefined {
    return this.held.at(-1)?.version;
  }

  /** The identity of the file of `version` (default: the newest held), if held; never starts a load. */
  identity(version?: string): DatabaseIdentity | undefined {
    return this.find(version)?.identity;
  }

  /** The versions held, oldest first (tests). */
  get versions(): string[] {
    return this.held.map((loaded) => loaded.version);
  }

  /**
   * The database of `version` (undefined: the newest held): at once when held, else after a wait for
   * another request's load of it, or after this request's own load (`mode.load`, which finishes in
   * `ctx.waitUntil` even if this request's client goes away). A held database whose reads found damage
   * is let go first, and its file refused until another one is current.
   *
   * @throws DataUnavailableError (as a rejected promise) when a load failed less than
   *   {@link RETRY_AFTER_SECONDS} ago, or the one waited for fails, stalls ({@link LOAD_STALLED_MS}) or is
   *   not done in {@link WAIT_LIMIT_MS}; whatever `mode.load` rejects with.
   */
  protected answer(
    version: string | undefined,
    env: DatabaseEnv,
    ctx: BackgroundContext,
    place: RequestPlace | undefined,
    mode: Mode,
  ): GeoDatabase | Promise<GeoDatabase> {
    const now = this.now();
    let loaded = this.find(version);
    if (loaded !== undefined && loaded.database.damage !== undefined) {
      this.log({ event: 'damage', version: loaded.version, source: 'reads', why: loaded.database.damage }, env, place);
      this.damagedSha256 = loaded.identity.sha256;
      this.drop(loaded);
      loaded = undefined;
    }
    if (loaded !== undefined) {
      loaded.askedAt = now;
      mode.held(loaded, now);
      return loaded.database;
    }
    const loading = this.loadUnderWay(now);
    if (loading !== undefined && (version === undefined || loading.version === version)) return this.waitForLoad(now, version);
    const failure = this.failure;
    if (failure !== undefined && now - failure.at < RETRY_AFTER_SECONDS * 1000 && (version === undefined || failure.version === version)) {
      return Promise.reject(unavailable(`a load failed ${now - failure.at} ms ago (${failure.reason}); waiting before the next`));
    }
    const load = mode.load();
    // The load finishes even if this request's client goes away; others may be polling for it.
    ctx.waitUntil(load.catch(() => undefined));
    return load;
  }

  /** The held file of `version` (undefined: the newest), if any. */
  protected find(version: string | undefined): Loaded | undefined {
    return version === undefined ? this.held.at(-1) : this.held.find((held) => held.version === version);
  }

  /** The versions held beside the newest, oldest first. */
  protected get older(): readonly Loaded[] {
    return this.held.slice(0, -1);
  }

  /** The load under way that has made progress within {@link LOAD_STALLED_MS}, if any. */
  protected loadUnderWay(now: number): Loading | undefined {
    return progressing(this.loading, now) ? this.loading : undefined;
  }

  /** Polls until a load of `version` (undefined: any) answers, fails, stalls, or {@link WAIT_LIMIT_MS} has passed since `since`. */
  protected async waitForLoad(since: number, version: string | undefined): Promise<GeoDatabase> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const loaded = this.find(version);
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

  /** Marks a load as under way (synchronously, so that a request arriving next waits for it); one that stalled gives way to it. */
  protected begin(version: string | undefined): Loading {
    const since = this.now();
    this.loading = { version, since, progressAt: since };
    return this.loading;
  }

  /** Records a failure to load `version` that happened before any load began (the record unread), logs it, and returns it as unavailable. */
  protected refused(error: unknown, version: string, env: DatabaseEnv, place: RequestPlace | undefined): DataUnavailableError {
    this.failure = { at: this.now(), reason: reasonOf(error), version };
    this.log(failureEvent(error, reasonOf(error), undefined), env, place);
    return unavailable(reasonOf(error));
  }

  /**
   * Loads the file of the version that `current` answers, for `loading`: makes room for it (the
   * version held before stays beside it when both fit the budget, else it is verified first, unless
   * `verifiedMs` says how long a verification of it took already, and the held one released), reads it
   * from the cache or R2, verifies it, and holds it as the newest. Every phase reports progress: the
   * record read, the verification, each piece of the file.
   */
  protected async load(
    loading: Loading,
    env: DatabaseEnv,
    ctx: BackgroundContext,
    place: RequestPlace | undefined,
    current: () => Promise<PublishedVersion>,
    verifiedMs?: number,
  ): Promise<GeoDatabase> {
    const progress = progressOf(loading, () => this.loading, this.now);
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
      const replaced = await this.makeRoom(version.version, file, env, cache, progress, verifiedMs);
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
        const waitMs = waits ? now - replaced.at : 0;
        this.log(
          { event: 'switch', from: replaced.version, to: version.version, waits, source, ...(verifyMs === undefined ? {} : { verifyMs }), waitMs },
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
   * first (a bad upload leaves the held one answering; skipped when `verifiedMs` is given) and the held
   * one released.
   *
   * @returns the version the new one replaces; undefined when none is held.
   */
  private async makeRoom(
    version: string,
    file: PublishedFile,
    env: DatabaseEnv,
    cache: Cache | undefined,
    progress: () => void,
    verifiedMs: number | undefined,
  ): Promise<Replaced | undefined> {
    while (this.held.length > 1) this.drop(this.held[0] as Loaded);
    const kept = this.held[0];
    if (kept === undefined || kept.version === version) return undefined;
    if (sideBySideFit(kept.identity.bytes, file.bytes, this.budgetBytes).fits) return { version: kept.version, waits: false, at: this.now() };
    let verifyMs = verifiedMs;
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
  protected drop(loaded: Loaded): void {
    if (!this.held.includes(loaded)) return;
    this.held = this.held.filter((held) => held !== loaded);
    release(loaded.buffer);
  }

  protected log(event: Parameters<typeof logDataEvent>[0], env: DatabaseEnv, place: RequestPlace | undefined): void {
    logDataEvent(event, env, place, this.place);
  }
}
