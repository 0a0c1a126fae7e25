/**
 * @module The database of the sharded test project, for Node (`global-setup.ts` builds it) and workerd
 * (`sharded-setup.ts` publishes it) alike: MaxMind's test data, as `data/out/small/`, in three shards.
 */

/** How many shards, and so how many shard Workers the project runs. */
export const SMALL_SHARDS = 3;

/** Its folder, from the repository root. */
export const SMALL_SHARDED_DIR = `data/out/small-${SMALL_SHARDS}`;
