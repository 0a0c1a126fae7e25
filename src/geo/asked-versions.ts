/**
 * @module The versions a shard Worker is asked for (`src/shard.ts`, `docs/sharding.md`): it answers the
 * version the app asks for and no other, loads it (`loading.ts`) when it is the current one, keeps the
 * version before it beside it while the app's isolates still ask for it (where both fit the isolate
 * budget, else releasing it first) and retires it once nobody has asked for it in
 * {@link RETIRE_AFTER_MS}. A version neither held nor current is gone ({@link VersionGoneError}).
 */
import { CHECK_INTERVAL_MS, readRecord } from './bucket.ts';
import type { RequestPlace } from './data-events.ts';
import type { GeoDatabase } from './database.ts';
import { type BackgroundContext, type DatabaseEnv, DatabaseLoader, type LoaderOptions } from './loading.ts';
import type { PublishedVersion } from './published.ts';
import { type ShardPlace, WHOLE } from './shard-files.ts';
import { unavailable } from './unavailable.ts';

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

/** The file of shard `place` of each version a shard Worker's isolate is asked for: at most two held. */
export class AskedVersions extends DatabaseLoader {
  constructor(place: ShardPlace = WHOLE, options: LoaderOptions = {}) {
    super(place, options);
  }

  /**
   * The database of `version`: at once when held, else after this request's own load of it or a wait
   * for another's (see `DatabaseLoader.answer`). An answer from a held version retires those beside the
   * newest that nobody asked for in {@link RETIRE_AFTER_MS}.
   *
   * @param place the request's `cf`, whose location the data events name.
   * @throws DataUnavailableError (as a rejected promise) when no verified file of `version` can be had.
   * @throws VersionGoneError (as a rejected promise) when `version` is neither held nor current.
   */
  get(env: DatabaseEnv, ctx: BackgroundContext, place: RequestPlace | undefined, version: string): GeoDatabase | Promise<GeoDatabase> {
    return this.answer(version, env, ctx, place, {
      held: (_loaded, now) => this.retire(now),
      load: () => this.loadAsked(version, env, ctx, place),
    });
  }

  /** Releases the versions beside the newest that nobody has asked for in {@link RETIRE_AFTER_MS}. */
  private retire(now: number): void {
    for (const loaded of this.older) if (now - loaded.askedAt >= RETIRE_AFTER_MS) this.drop(loaded);
  }

  /** A load of `version`, which must be the current one (else {@link VersionGoneError}). */
  private async loadAsked(version: string, env: DatabaseEnv, ctx: BackgroundContext, place: RequestPlace | undefined): Promise<GeoDatabase> {
    let current: PublishedVersion;
    try {
      current = (await readRecord(env)).current;
    } catch (error) {
      throw this.refused(error, version, env, place);
    }
    if (current.version !== version) throw new VersionGoneError(version, current.version);
    // Another request may have begun its load, or finished it, while this one read the record.
    const loaded = this.find(version);
    if (loaded !== undefined) return loaded.database;
    const loading = this.loadUnderWay(this.now());
    if (loading !== undefined) {
      if (loading.version === version) return this.waitForLoad(this.now(), version);
      throw unavailable(`version ${loading.version ?? '(reading the record)'} is loading, not the current ${version}`);
    }
    return this.load(this.begin(version), env, ctx, place, async () => current);
  }
}
