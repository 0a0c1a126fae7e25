/**
 * @module Which file of a published version an isolate loads: shard `index` of `count` (`count` 1: the
 * whole database, as every version published before shards reads). A deployment's shard count is part
 * of its configuration; a version of another count is refused, saying to redeploy.
 */

import { fail } from './bucket.ts';
import type { PublishedShard, PublishedVersion } from './published.ts';

/** A shard of the database: its index from 0, and how many there are. */
export interface ShardPlace {
  readonly index: number;
  readonly count: number;
}

/** The whole database: the one shard of a deployment that does not shard. */
export const WHOLE: ShardPlace = Object.freeze({ index: 0, count: 1 });

/** One shard's file of a published version: its object, and the range of positions it answers (RFC 5952 text, both included). */
export type ShardFile = PublishedShard;

/**
 * The file of shard `place` of `version`.
 *
 * @throws LoadFailure (refusal) when the version has another number of shards than the deployment serves.
 */
export function shardFile(version: PublishedVersion, place: ShardPlace): ShardFile {
  const { shards } = version;
  const file = shards.length === place.count ? shards[place.index] : undefined;
  if (file === undefined) {
    fail(
      `version ${version.version} has ${shards.length} shard(s); this deployment serves ${place.count}: redeploy it with that build (npm run deploy -- --env NAME)`,
    );
  }
  return file;
}
