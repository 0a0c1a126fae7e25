/**
 * @module A bench-only Worker entry: the production Worker (`src/index.ts`), whose R2 binding answers as
 * a distant bucket does (`test/support/distant-r2.ts`): each read after `BENCH_R2_LATENCY_MS`, its body at
 * `BENCH_R2_MBPS` megabytes per second. `npm run bench:cold -- --r2-latency-ms 150 --r2-mbps 25` runs it.
 *
 * JavaScript, because the Node type-check of `bench/` (tsconfig.node.json) cannot follow the Worker's
 * modules, which need the Workers types; wrangler bundles it from the TypeScript sources like `main`.
 */
import worker from '../../src/index.ts';
import { distantBucket } from '../../test/support/distant-r2.ts';

export default {
  /** @type {ExportedHandlerFetchHandler<Env & { BENCH_R2_LATENCY_MS: string, BENCH_R2_MBPS: string }>} */
  fetch(request, env, ctx) {
    const distance = { latencyMs: Number(env.BENCH_R2_LATENCY_MS), megabytesPerSecond: Number(env.BENCH_R2_MBPS) };
    return worker.fetch(request, { ...env, GEO_DATA: distantBucket(env.GEO_DATA, distance) }, ctx);
  },
};
export { RateLimiter } from '../../src/index.ts';
