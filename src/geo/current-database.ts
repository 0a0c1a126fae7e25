/**
 * @module The isolate's current database in a deployment that does not shard: the whole database,
 * following the bucket's current record. The first request loads it (`loading.ts`); then, at most once
 * every {@link CHECK_INTERVAL_MS}, a request's `waitUntil` reads the record, and a newly published
 * version is loaded beside the answering one when both fit the isolate budget, else verified while the
 * old one answers and switched to by the next request, which releases the old one first
 * (docs/decisions/0004-release-then-load-switching.md). Synchronous once loaded: a lookup gets the
 * database without a turn of the event loop.
 */
import { CHECK_INTERVAL_MS, failureEvent, openCache, ReadStopped, readRecord, reasonOf, verifyObject } from './bucket.ts';
import { sideBySideFit } from './budget.ts';
import type { RequestPlace } from './data-events.ts';
import type { GeoDatabase } from './database.ts';
import type { DatabaseIdentity } from './identity.ts';
import { progressing, progressOf, type Task } from './load-progress.ts';
import { type BackgroundContext, type DatabaseEnv, DatabaseLoader, type Loaded, type LoaderOptions } from './loading.ts';
import type { PublishedVersion } from './published.ts';
import { type ShardPlace, shardFile, WHOLE } from './shard-files.ts';
import { DataUnavailableError } from './unavailable.ts';

/**
 * A version whose object the minute's check has verified (size and SHA-256) while the held one
 * answered, when two do not fit: the next request releases the held one and loads it.
 */
interface Verified {
  readonly version: PublishedVersion;
  /** How long the verification took, ms by the Worker's clock. */
  readonly ms: number;
}

/**
 * The current version of the database (shard `place` of it; the whole by default), as an isolate follows it.
 *
 * @internal Exported for the tests that run one on their own clock and budget; the Worker uses
 *   {@link loadDatabase}.
 */
export class CurrentDatabase extends DatabaseLoader {
  /** When the current record was last read by the minute's check (or the first load began). */
  private checkedAt = 0;
  /** The minute's check under way, if any. */
  private checking: Task | undefined;
  /** A newer version verified by the minute's check, waiting for the next request to switch to it. */
  private verified: Verified | undefined;

  constructor(place: ShardPlace = WHOLE, options: LoaderOptions = {}) {
    super(place, options);
  }

  /**
   * The database to answer from: at once when held, else after this request's own load or a wait for
   * another's (see `DatabaseLoader.answer`). When held, the minute's check, or the switch to a version
   * it verified, starts in `ctx.waitUntil` when due.
   *
   * @param place the request's `cf`, whose location the data events name.
   * @throws DataUnavailableError (also as a rejected promise) when no verified database can be had: no
   *   current record, the object missing, of the wrong size or digest, not a database, a load failed
   *   lately, or another request's load stuck or too slow.
   */
  get(env: DatabaseEnv, ctx: BackgroundContext, place?: RequestPlace): GeoDatabase | Promise<GeoDatabase> {
    return this.answer(undefined, env, ctx, place, {
      held: (loaded, now) => this.follow(loaded, now, env, ctx, place),
      load: () => this.loadCurrent(env, ctx, place),
    });
  }

  override reset(): void {
    super.reset();
    this.checkedAt = 0;
    this.checking = undefined;
    this.verified = undefined;
  }

  /** After `seen` answered a request at `now`: the switch to a verified version, or the minute's check, when due. */
  private follow(seen: Loaded, now: number, env: DatabaseEnv, ctx: BackgroundContext, place: RequestPlace | undefined): void {
    const verified = this.verified;
    if (verified !== undefined && this.loadUnderWay(now) === undefined) {
      // The old version answers this request; those after it wait for the new one.
      this.verified = undefined;
      const load = this.load(this.begin(verified.version.version), env, ctx, place, async () => verified.version, verified.ms);
      ctx.waitUntil(load.catch(() => undefined));
    } else if (now - this.checkedAt >= CHECK_INTERVAL_MS && !progressing(this.checking, now)) {
      // A check whose request was cancelled never finishes: once it has stalled, another may start.
      this.checkedAt = now;
      ctx.waitUntil(this.check(env, ctx, place, seen));
    }
  }

  /** The first load: reads the current record, then the file it names. */
  private loadCurrent(env: DatabaseEnv, ctx: BackgroundContext, place: RequestPlace | undefined): Promise<GeoDatabase> {
    const loading = this.begin(undefined);
    this.checkedAt = loading.since;
    return this.load(loading, env, ctx, place, async () => {
      const current = (await readRecord(env)).current;
      loading.version = current.version;
      return current;
    });
  }

  /**
   * The minute's check, in a request's `waitUntil`: when the record names another version, loads it
   * beside `seen` when both fit the budget, else verifies its object while `seen` answers, for the next
   * request to switch to ({@link follow}). Each of the two passes over a slow bucket so has a request's
   * `waitUntil` of its own.
   */
  private async check(env: DatabaseEnv, ctx: BackgroundContext, place: RequestPlace | undefined, seen: Loaded): Promise<void> {
    const checking: Task = { since: this.now(), progressAt: this.now() };
    this.checking = checking;
    const progress = progressOf(checking, () => this.checking, this.now);
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
      if (this.find(undefined) !== seen || this.loadUnderWay(this.now()) !== undefined || this.verified?.version.version === next.version) return;
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
      if (this.find(undefined) === seen && !(error instanceof DataUnavailableError) && !(error instanceof ReadStopped)) {
        this.log(failureEvent(error, `staying on ${seen.version}: ${reasonOf(error)}`, next?.version), env, place);
      }
    } finally {
      if (this.checking === checking) this.checking = undefined;
    }
  }
}

/** This isolate's database, in a deployment that does not shard. */
const isolateDatabase = new CurrentDatabase();

/**
 * The database of this isolate (see {@link CurrentDatabase.get}) in a deployment that does not shard:
 * synchronous once loaded, so that a lookup answers without a turn of the event loop. Pass the
 * request's execution context (the check for a new version runs in its `waitUntil`, off the request's
 * path) and the request, whose `cf` names the location in the data events.
 *
 * @example const database = await loadDatabase(c.env, c.executionCtx, c.req.raw);
 * @throws DataUnavailableError while no verified database can be had.
 */
export function loadDatabase(env: DatabaseEnv, ctx: BackgroundContext, place?: RequestPlace): GeoDatabase | Promise<GeoDatabase> {
  return isolateDatabase.get(env, ctx, place);
}

/**
 * The identity of the database this isolate answers from (`identity.ts`), or undefined while it has
 * none. It never starts a load: await {@link loadDatabase} first where the data must be there.
 */
export function databaseIdentity(): DatabaseIdentity | undefined {
  return isolateDatabase.identity();
}

/**
 * Forgets this isolate's database.
 *
 * @internal for tests that start from a cold isolate.
 */
export function resetDatabaseForTests(): void {
  isolateDatabase.reset();
}
