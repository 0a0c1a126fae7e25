/**
 * @module Test projects: the data pipeline in Node (where it runs in production), and the Worker in
 * workerd through `@cloudflare/vitest-plugin`, once per plan. Worker tests read files of the repository
 * (the compiled database, the source databases) through the test-only `REPO_FILES` service binding,
 * which is served from Node and restricted to the paths in `test/support/repo-files.ts`; they check
 * the Worker's answers against its OpenAPI document through `CONTRACT` (`test/support/contract.ts`).
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { cloudflareTest } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { USAGE_WORKER } from './scripts/deploy/usage.ts';
import { serveContractCheck } from './test/support/contract.ts';
import { serveRepoFile } from './test/support/repo-files.ts';
import { shardWorkers } from './test/support/shard-workers.ts';
import { SMALL_SHARDS } from './test/support/sharded-build.ts';
import { FAULTY_USAGE_WORKER, SECOND_PAID_WORKER } from './test/support/usage-names.ts';
import { faultyUsageWorker, secondPaidWorker, usageWorker } from './test/support/usage-workers.ts';

/** The environment of `wrangler.toml` that each plan's projects run: the free deployment, and the German one of the paid plan. */
const ENVIRONMENT = { free: 'free', paid: 'de' } as const;

/**
 * The Workers beside the paid app: the usage Worker that its `USAGE` binding names (bound to the tests
 * as `USAGE_STORE`, for the operator's reads), a second paid deployment (`sg`), bound as
 * `SECOND_PAID`, that counts into the same store, and a usage store whose calls wait or fail on the
 * tests' word (its class bound as `FAULTY_USAGE`, its switch as `USAGE_FAULTS`).
 */
function paidNeighbours(environment: string) {
  return {
    workers: [usageWorker(environment), secondPaidWorker(), faultyUsageWorker(environment)],
    serviceBindings: { SECOND_PAID: SECOND_PAID_WORKER, USAGE_STORE: USAGE_WORKER, USAGE_FAULTS: FAULTY_USAGE_WORKER },
    durableObjects: { FAULTY_USAGE: { className: 'FaultyUsageLedger', scriptName: FAULTY_USAGE_WORKER } },
  };
}

const workerProject = (plan: 'free' | 'paid') => ({
  extends: true as const,
  plugins: [
    cloudflareTest(() => {
      const neighbours = plan === 'paid' ? paidNeighbours(ENVIRONMENT[plan]) : { workers: [], serviceBindings: {}, durableObjects: {} };
      return {
        wrangler: { configPath: './wrangler.toml', environment: ENVIRONMENT[plan] },
        miniflare: {
          serviceBindings: { REPO_FILES: serveRepoFile, CONTRACT: serveContractCheck, ...neighbours.serviceBindings },
          durableObjects: neighbours.durableObjects,
          workers: neighbours.workers,
        },
      };
    }),
  ],
  test: {
    name: `workers-${plan}`,
    // One workerd per core for all the project's files, not one per file (its start and the Worker's
    // first load cost seconds a file); test/support/workers-setup.ts gives each file fresh modules and storage.
    isolate: false,
    // Plan-agnostic units run once, in the free project (test/workers-free/).
    include: [`test/workers-${plan}/**/*.test.ts`],
    setupFiles: ['test/support/workers-setup.ts'],
    globalSetup: ['test/support/global-setup.ts'],
  },
});

/** Each plan's sharded project, named as its folder of tests (the paid one came first, and kept its name). */
const SHARDED_PROJECT = { free: 'workers-sharded-free', paid: 'workers-sharded' } as const;

/**
 * A deployment of `plan` whose database is sharded: the app bound to its shard Workers, which run beside it
 * as auxiliary Workers (bundled from `src/shard.ts` when the project starts), on the same R2 bucket; and
 * `ONE_FILE_DATA`, a bucket of its own for the app of the same data as one file that the tests compare with.
 */
const shardedProject = (plan: 'free' | 'paid') => ({
  extends: true as const,
  plugins: [
    cloudflareTest(() => {
      const shards = shardWorkers(ENVIRONMENT[plan], SMALL_SHARDS);
      // A paid app's USAGE binding names the usage Worker (scripts/deploy/usage.ts).
      const usage = plan === 'paid' ? [usageWorker(ENVIRONMENT[plan], resolve('.wrangler', 'test-usage', 'sharded'))] : [];
      return {
        wrangler: { configPath: './wrangler.toml', environment: ENVIRONMENT[plan] },
        miniflare: {
          serviceBindings: { REPO_FILES: serveRepoFile, CONTRACT: serveContractCheck, ...shards.bindings },
          r2Buckets: { ONE_FILE_DATA: 'ipgeo-data-one-file' },
          workers: [...shards.workers, ...usage],
        },
      };
    }),
  ],
  test: {
    name: SHARDED_PROJECT[plan],
    include: [`test/${SHARDED_PROJECT[plan]}/**/*.test.ts`],
    setupFiles: ['test/support/sharded-setup.ts'],
    globalSetup: ['test/support/global-setup.ts'],
  },
});

export default defineConfig({
  test: {
    // One test file per core at a time. Vitest's default is one fewer than the cores: on a 2-core machine
    // the files ran one after another, and the second core waited.
    maxWorkers: availableParallelism(),
    testTimeout: 60_000,
    hookTimeout: 300_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/node/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      workerProject('free'),
      workerProject('paid'),
      shardedProject('paid'),
      shardedProject('free'),
    ],
  },
});
