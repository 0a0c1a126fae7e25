/**
 * @module Runs before each Worker test file, in workerd, so that each file starts as in a workerd of
 * its own: its projects run the files one after another in one workerd per core (`isolate: false` in
 * `vitest.config.ts`: a workerd started per file cost more than most files' tests), so this forgets
 * the modules that an earlier file evaluated (the Worker's included: its current database, caches and
 * counters start empty), deletes every Durable Object, which holds the storage of the KV, R2, cache
 * and Durable Object bindings, and publishes the compiled database into the R2 binding as current (as
 * `npm run dev` does for the local bucket).
 */
import { reset } from 'cloudflare:test';
import { beforeAll, vi } from 'vitest';
import { publishCompiled } from './publish.ts';

// Before the test file is imported, so that it and the Worker evaluate every module of theirs anew.
vi.resetModules();

beforeAll(async () => {
  await reset();
  await publishCompiled();
});
