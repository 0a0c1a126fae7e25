/**
 * @module Runs before each test file of the sharded project, in workerd: publishes the sharded test
 * build into the R2 binding that the app and its shard Workers share, unless it is current already.
 */
import { env } from 'cloudflare:workers';
import { beforeAll } from 'vitest';
import { CURRENT_RECORD_KEY } from '../../src/geo/published.ts';
import { publishCompiled } from './publish.ts';

beforeAll(async () => {
  if ((await env.GEO_DATA.head(CURRENT_RECORD_KEY)) === null) await publishCompiled();
});
