/**
 * @module Runs once before the Worker tests, in Node: makes sure the compiled database exists (the
 * README's test command builds it first; this covers running vitest directly), and builds a small one
 * from MaxMind's test databases into `data/out/small/`, with which the fault tests spoil and replace
 * objects cheaply, and the same as shards into `data/out/small-3/` for the sharded project. The small
 * builds take their flags from MaxMind's Anonymous-IP test database.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build, DATABASE_FILE, OUT_DIR } from '../../data/build.ts';
import { FIXTURES } from './fixtures.ts';
import { SMALL_SHARDED_DIR, SMALL_SHARDS } from './sharded-build.ts';

export default function setup(): void {
  if (!existsSync(DATABASE_FILE)) build({ proxyLists: [] }, () => {});
  // Rebuilt every run (well under a second), so that it always follows the build code.
  const testData = join(FIXTURES, 'test-data');
  const small = {
    maxmindCity: join(testData, 'GeoIP2-City-Test.mmdb'),
    maxmindAsn: join(testData, 'GeoLite2-ASN-Test.mmdb'),
    maxmindAnonymousIp: join(testData, 'GeoIP2-Anonymous-IP-Test.mmdb'),
    proxyLists: [],
  };
  build(small, () => {}, join(OUT_DIR, 'small'));
  // The same data as three shards, which the sharded project's shard Workers serve.
  build({ ...small, shards: SMALL_SHARDS }, () => {}, join(import.meta.dirname, '../..', SMALL_SHARDED_DIR));
}
