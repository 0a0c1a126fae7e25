/**
 * @module Runs once per `vitest run` before any test, in Node (every project lists it; the work is
 * done for the first one): makes sure the compiled database exists (the README's test command builds
 * it first; this covers running vitest directly), so that no test needs to skip without it, and builds
 * a small one from MaxMind's test databases into `data/out/small/`, with which the fault tests spoil and
 * replace objects cheaply, and the same as shards into `data/out/small-3/` for the sharded projects.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build, DATABASE_FILE, OUT_DIR } from '../../data/build.ts';
import { FIXTURES } from './fixtures.ts';
import { SMALL_SHARDED_DIR, SMALL_SHARDS } from './sharded-build.ts';

/**
 * Set on the main process once the builds are done: each project loads this file in a module graph of
 * its own, so a flag of the module would not be seen by the next project.
 */
const DONE = Symbol.for('ipgeo.test.global-setup');

export default function setup(): void {
  const main = globalThis as { [DONE]?: true };
  if (main[DONE]) return;
  if (!existsSync(DATABASE_FILE)) build({ proxyLists: [] }, () => {});
  // Rebuilt every run (well under a second), so that it always follows the build code.
  const testData = join(FIXTURES, 'test-data');
  const small = { maxmindCity: join(testData, 'GeoIP2-City-Test.mmdb'), maxmindAsn: join(testData, 'GeoLite2-ASN-Test.mmdb'), proxyLists: [] };
  build(small, () => {}, join(OUT_DIR, 'small'));
  // The same data as three shards, which the sharded projects' shard Workers serve.
  build({ ...small, shards: SMALL_SHARDS }, () => {}, join(import.meta.dirname, '../..', SMALL_SHARDED_DIR));
  main[DONE] = true;
}
