/**
 * @module Runs before each Worker test file, in workerd: publishes the compiled database into the R2
 * binding as current (as `npm run dev` does for the local bucket), unless it is current already.
 */
import { env } from 'cloudflare:workers';
import { beforeAll } from 'vitest';
import { CURRENT_RECORD_KEY } from '../../src/geo/published.ts';
import { publishCompiled } from './publish.ts';

beforeAll(async () => {
  if ((await env.GEO_DATA.head(CURRENT_RECORD_KEY)) === null) await publishCompiled();
});
