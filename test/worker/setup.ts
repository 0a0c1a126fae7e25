/**
 * @module Runs before each Worker test file, in workerd: puts the compiled database into the R2
 * binding (as `npm run dev` does for the local bucket), unless a test file opts out to exercise a
 * missing database.
 */
import { env } from 'cloudflare:workers';
import { beforeAll } from 'vitest';
import { repoFile } from './repo.ts';

beforeAll(async () => {
  if ((await env.GEO_DATA.head(env.DATA_OBJECT_KEY)) === null) {
    await env.GEO_DATA.put(env.DATA_OBJECT_KEY, await repoFile('data/out/ipgeo.mmdb'));
  }
});
