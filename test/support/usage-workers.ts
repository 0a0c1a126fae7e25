/**
 * @module Auxiliary Workers of the paid test projects (`vitest.config.ts`), made in Node when a project
 * starts: the usage Worker (`src/usage-store.ts`, the `ipgeo-usage` that the paid deployments' `USAGE`
 * bindings name), bundled from the configuration `npm run deploy` writes (`scripts/deploy/usage.ts`); and
 * a second paid deployment (`sg`) bundled from `wrangler.toml`, so that tests see two deployments count
 * into one store. The `sg` app reads the `de` app's data bucket, which the tests publish already.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LegacyWorkerOptions } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { readWranglerToml } from '../../scripts/deploy/config.ts';
import { USAGE_WORKER, writeUsageConfig } from '../../scripts/deploy/usage.ts';
import { bundleWorker, ROOT } from './bundle.ts';
import { FAULTY_USAGE_WORKER, SECOND_PAID_WORKER, TEST_USAGE_READ_TOKEN } from './usage-names.ts';

type Options = ReturnType<typeof unstable_getMiniflareWorkerOptions>['workerOptions'];

/** What an auxiliary Worker is run with here: its bundle, and its variables and bindings as wrangler dev gives them. */
interface AuxiliaryWorker {
  readonly name: string;
  readonly modules: true;
  readonly scriptPath: string;
  readonly compatibilityDate: Options['compatibilityDate'];
  readonly compatibilityFlags: Options['compatibilityFlags'];
  readonly bindings: Options['bindings'];
  readonly kvNamespaces: Options['kvNamespaces'];
  readonly r2Buckets: Options['r2Buckets'];
  readonly durableObjects: Options['durableObjects'];
}

function auxiliaryWorker(name: string, configPath: string, environment: string, scriptPath: string): AuxiliaryWorker {
  const w = unstable_getMiniflareWorkerOptions(configPath, environment).workerOptions;
  const { compatibilityDate, compatibilityFlags, bindings, kvNamespaces, r2Buckets, durableObjects } = w;
  return { name, modules: true, scriptPath, compatibilityDate, compatibilityFlags, bindings, kvNamespaces, r2Buckets, durableObjects };
}

/**
 * The usage Worker, with {@link TEST_USAGE_READ_TOKEN} as its read token.
 *
 * @param dir where its configuration and bundle are written (under `.wrangler/`), one per project.
 */
export function usageWorker(environment: string, dir = join(ROOT, '.wrangler', 'test-usage', environment)): LegacyWorkerOptions {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const configPath = writeUsageConfig(readWranglerToml(join(ROOT, 'wrangler.toml')), ROOT, dir);
  const worker = auxiliaryWorker(USAGE_WORKER, configPath, environment, bundleWorker(configPath, environment, join(dir, 'bundle')));
  return { ...worker, bindings: { ...(worker.bindings as Record<string, unknown>), USAGE_READ_TOKEN: TEST_USAGE_READ_TOKEN } } as LegacyWorkerOptions;
}

/** The `sg` paid deployment's app, on the `de` deployment's data bucket (`ipgeo-data-de`). */
export function secondPaidWorker(dir = join(ROOT, '.wrangler', 'test-usage', 'sg-app')): LegacyWorkerOptions {
  const configPath = join(ROOT, 'wrangler.toml');
  const worker = auxiliaryWorker(SECOND_PAID_WORKER, configPath, 'sg', bundleWorker(configPath, 'sg', join(dir, 'bundle')));
  const de = auxiliaryWorker(SECOND_PAID_WORKER, configPath, 'de', worker.scriptPath);
  return { ...worker, r2Buckets: de.r2Buckets } as LegacyWorkerOptions;
}

/**
 * The usage Worker of the fault tests (`usage-faults-worker.ts`): the usage Worker's configuration with
 * its entry and class replaced, so that it is bundled and bound as the production one is.
 */
export function faultyUsageWorker(environment: string, dir = join(ROOT, '.wrangler', 'test-usage', 'faults')): LegacyWorkerOptions {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const usageConfig = readFileSync(writeUsageConfig(readWranglerToml(join(ROOT, 'wrangler.toml')), ROOT, dir), 'utf8');
  const configPath = join(dir, `${FAULTY_USAGE_WORKER}.json`);
  writeFileSync(
    configPath,
    usageConfig
      .replaceAll(JSON.stringify(USAGE_WORKER), JSON.stringify(FAULTY_USAGE_WORKER))
      .replaceAll('"UsageLedger"', '"FaultyUsageLedger"')
      .replace(/"main": "[^"]*"/, `"main": ${JSON.stringify(join(ROOT, 'test', 'support', 'usage-faults-worker.ts'))}`),
  );
  return auxiliaryWorker(FAULTY_USAGE_WORKER, configPath, environment, bundleWorker(configPath, environment, join(dir, 'bundle'))) as LegacyWorkerOptions;
}
