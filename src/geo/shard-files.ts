/**
 * @module Which file of a published version an isolate loads: shard `index` of `count` (`count` 1: the
 * whole database, as every version published before shards reads). A deployment's shard count is part
 * of its configuration; a version of another count is refused, saying to redeploy.
 */
import type { PublishedVersion } from './published.ts';
import { fail, type PublishedFile } from './stored.ts';

/** A shard of the database: its index from 0, and how many there are. */
export interface ShardPlace {
  readonly index: number;
  readonly count: number;
}

/** The whole database: the one shard of a deployment that does not shard. */
export const WHOLE: ShardPlace = Object.freeze({ index: 0, count: 1 });

/**
 * The file of shard `place` of `version`.
 *
 * @throws LoadFailure (refusal) when the version has another number of shards than the deployment serves.
 */
export function shardFile(version: PublishedVersion, place: ShardPlace): PublishedFile {
  if (place.count !== 1) {
    fail(`version ${version.version} has 1 shard; this deployment serves ${place.count}: redeploy it (npm run deploy -- --env NAME) with the build's shards`);
  }
  return version;
}
