/**
 * @module Runs once before the Worker tests, in Node: makes sure the compiled database exists (the
 * README's test command builds it first; this covers running vitest directly), and builds a small one
 * from MaxMind's test databases into `data/out/small/`, with which the fault tests spoil and replace
 * objects cheaply.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build, DATABASE_FILE, OUT_DIR } from '../../data/build.ts';
import { FIXTURES } from './fixtures.ts';

export default function setup(): void {
  if (!existsSync(DATABASE_FILE)) build({ proxyLists: [] }, () => {});
  // Rebuilt every run (well under a second), so that it always follows the build code.
  const testData = join(FIXTURES, 'test-data');
  build(
    { maxmindCity: join(testData, 'GeoIP2-City-Test.mmdb'), maxmindAsn: join(testData, 'GeoLite2-ASN-Test.mmdb'), proxyLists: [] },
    () => {},
    join(OUT_DIR, 'small'),
  );
}
