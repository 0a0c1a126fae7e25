/**
 * @module The database of an isolate in a deployment that does not shard: one {@link DatabaseSlot}
 * (`slot.ts`) following the current record, whose database a lookup gets without a turn of the event
 * loop once it is loaded.
 */
import type { RequestPlace } from './data-events.ts';
import type { GeoDatabase } from './database.ts';
import type { DatabaseIdentity } from './identity.ts';
import { type BackgroundContext, type DatabaseEnv, DatabaseSlot } from './slot.ts';

const slot = new DatabaseSlot();

/**
 * The database of this isolate (see {@link DatabaseSlot.get}) in a deployment that does not shard:
 * synchronous once loaded, so that a lookup answers without a turn of the event loop. Pass the
 * request's execution context (the check for a new version runs in its `waitUntil`, off the request's
 * path) and the request, whose `cf` names the location in the data events.
 *
 * @example const database = await loadDatabase(c.env, c.executionCtx, c.req.raw);
 * @throws DataUnavailableError while no verified database can be had.
 */
export function loadDatabase(env: DatabaseEnv, ctx: BackgroundContext, place?: RequestPlace): GeoDatabase | Promise<GeoDatabase> {
  return slot.get(env, ctx, place);
}

/**
 * The identity of the database this isolate answers from (`identity.ts`), or undefined while it has
 * none. It never starts a load: await {@link loadDatabase} first where the data must be there.
 */
export function databaseIdentity(): DatabaseIdentity | undefined {
  return slot.identity();
}

/**
 * Forgets this isolate's database.
 *
 * @internal for tests that start from a cold isolate.
 */
export function resetDatabaseForTests(): void {
  slot.reset();
}
