/**
 * @module A bench-only Worker entry: the production Worker (`src/index.ts`), whose R2 binding answers as
 * a distant bucket does (`test/support/distant-r2.ts`): each read after `BENCH_R2_LATENCY_MS`, its body at
 * `BENCH_R2_MBPS` megabytes per second. `npm run bench:cold -- --r2-latency-ms 150 --r2-mbps 25` runs it.
 *
 * Two requests of its own, for `bench/distant.ts` only: `POST /__bench/clock?ahead=MS` moves the
 * isolate's `Date.now()` that far ahead, so that the minute's check for a new version is due at once
 * rather than up to a minute after the publication (the bucket's pacing keeps to `performance.now()`);
 * `POST /__bench/forget?key=KEY&sha256=HEX` deletes this location's cached copy of that object, so that
 * a switch to it reads R2.
 *
 * JavaScript, because the Node type-check of `bench/` (tsconfig.node.json) cannot follow the Worker's
 * modules, which need the Workers types; wrangler bundles it from the TypeScript sources like `main`.
 */
import { CACHE_NAME, cacheKey } from '../../src/geo/bucket.ts';
import worker from '../../src/index.ts';
import { distantBucket } from '../../test/support/distant-r2.ts';

const realNow = Date.now;
let aheadMs = 0;
Date.now = () => realNow() + aheadMs;

export default {
  /** @type {ExportedHandlerFetchHandler<Env & { BENCH_R2_LATENCY_MS: string, BENCH_R2_MBPS: string }>} */
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname === '/__bench/clock') {
      aheadMs += Number(url.searchParams.get('ahead'));
      return new Response(null, { status: 204 });
    }
    if (request.method === 'POST' && url.pathname === '/__bench/forget') {
      const file = { key: url.searchParams.get('key') ?? '', bytes: 0, sha256: url.searchParams.get('sha256') ?? '' };
      const deleted = await (await caches.open(CACHE_NAME)).delete(cacheKey(file));
      return new Response(null, { status: deleted ? 204 : 404 });
    }
    const distance = { latencyMs: Number(env.BENCH_R2_LATENCY_MS), megabytesPerSecond: Number(env.BENCH_R2_MBPS) };
    return worker.fetch(request, { ...env, GEO_DATA: distantBucket(env.GEO_DATA, distance) }, ctx);
  },
};
export { RateLimiter } from '../../src/index.ts';
