/**
 * @module Where a request's lookups are answered, behind one interface for the routes: this isolate's
 * database in a deployment that does not shard (the pipeline in-process: no hop, and no promise once
 * loaded), or the deployment's shard Workers (`sharded.ts`, `docs/sharding.md`). The status of the
 * data is composed in `data-status.ts`. Speaks no HTTP.
 */
import { databaseIdentity, loadDatabase } from '../geo/current-database.ts';
import { GeoDatabase } from '../geo/database.ts';
import type { LanguageIndex } from '../geo/languages.ts';
import type { DatabaseEnv } from '../geo/loading.ts';
import type { Format } from './entries.ts';
import type { View } from './fields.ts';
import { type GeoPosition, type LookupFailure, lookupAll, type Outcome, positionOf } from './pipeline.ts';
import type { ShardBindings } from './shard-calls.ts';
import { lookupSharded, type ShardedRequest, shardServices, shardSet } from './sharded.ts';

/** A request as the lookups need it: its bindings (the bucket and the deployment's names, and the shard Workers where it shards), its execution context, and its `cf` (for the data events). */
export interface LookupRequest extends ShardedRequest {
  readonly env: DatabaseEnv & ShardBindings;
}

/**
 * The record of each text, in `formats` for `view` where found: `outcomes[i]` answers `texts[i]`. In a
 * deployment that does not shard, a found record is the database's own (rendered by the route in any
 * format); in one that shards, the shard's rendering in each of `formats`.
 *
 * @throws DataUnavailableError (also as a rejected promise) when no data can be had at all; a shard
 *   that cannot answer makes its addresses `unavailable` instead.
 */
export function lookupRecords(request: LookupRequest, texts: readonly string[], formats: readonly Format[], view: View): Outcome[] | Promise<Outcome[]> {
  const services = shardServices(request.env);
  if (services === undefined) {
    const loaded = loadDatabase(request.env, request.ctx, request.place);
    // Once loaded, the database is there without a turn of the event loop, and the outcomes without a promise.
    return loaded instanceof GeoDatabase ? lookupAll(loaded, texts) : loaded.then((database) => lookupAll(database, texts));
  }
  return lookupSharded(services, request, texts, { kind: 'records', formats, view }) as Promise<Outcome[]>;
}

/**
 * The position of each text, with names in `language` where found (an address without one is
 * `no-location`): `positions[i]` answers `texts[i]`.
 *
 * @throws DataUnavailableError (as a rejected promise) as {@link lookupRecords} does.
 */
export async function lookupPositions(request: LookupRequest, texts: readonly string[], language: LanguageIndex): Promise<(GeoPosition | LookupFailure)[]> {
  const services = shardServices(request.env);
  if (services === undefined) {
    const database = await loadDatabase(request.env, request.ctx, request.place);
    return lookupAll(database, texts, { positions: true }).map((outcome) => (outcome.kind === 'found' ? positionOf(outcome, language) : outcome));
  }
  const outcomes = await lookupSharded(services, request, texts, { kind: 'positions', language });
  return outcomes.map((outcome) => (outcome.kind === 'position' ? outcome.position : (outcome as LookupFailure)));
}

/**
 * The version the lookups of this isolate answer from now (`X-Database-Version`), if any: the loaded
 * database's, or the sharded set's.
 */
export function answeringVersion(env: ShardBindings): string | undefined {
  return env.SHARD_0 === undefined ? databaseIdentity()?.version : shardSet.version;
}
