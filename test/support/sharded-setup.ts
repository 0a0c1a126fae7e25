/**
 * @module Runs before each test file of the sharded project, in workerd: publishes the sharded small
 * build (`data/out/small-3/`) into the R2 binding that the app and its shard Workers share, unless a
 * version is current already.
 */
import { env } from 'cloudflare:workers';
import { beforeAll } from 'vitest';
import { CURRENT_RECORD_KEY } from '../../src/geo/published.ts';
import { publishSharded, shardedBuild } from './publish.ts';
import { SMALL_SHARDED_DIR } from './sharded-build.ts';

beforeAll(async () => {
  if ((await env.GEO_DATA.head(CURRENT_RECORD_KEY)) === null) await publishSharded(await shardedBuild(SMALL_SHARDED_DIR));
});
