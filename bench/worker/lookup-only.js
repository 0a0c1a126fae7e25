/**
 * @module A bench-only Worker entry: the production lookup and bulk routes, with the app's validation
 * hook and error rendering, but without the plan gate (the free plan's rate
 * limits, the paid plans' access check) in front of them. The HTTP benchmark runs it beside the
 * production bundles to tell what the lookup path itself costs from what the gates cost.
 *
 * JavaScript, because the Node type-check of `bench/` (tsconfig.node.json) cannot follow the Worker's
 * modules, which need the Workers types; wrangler bundles it from the TypeScript sources like `main`.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { asProblem, problemAnswer } from '../../src/errors/render.ts';
import { OneSegmentRouter } from '../../src/router.ts';
import { registerBulkRoutes } from '../../src/routes/bulk.ts';
import { registerHealthRoute } from '../../src/routes/health.ts';
import { validationHook } from '../../src/routes/hooks.ts';
import { registerLookupRoutes } from '../../src/routes/lookup.ts';

const app = new OpenAPIHono({
  router: new OneSegmentRouter(), // the production apps' router (src/app.ts)
  strict: false,
  defaultHook: validationHook, // the production apps' hook (src/app.ts)
});
registerHealthRoute(app);
registerLookupRoutes(app, '/api', ['Lookup']);
registerBulkRoutes(app);
app.onError((error, c) => problemAnswer(asProblem(error), c)); // the production apps' error handler (src/app.ts)

export default { fetch: app.fetch };
// The deployment's Durable Object binding names this class; nothing here calls it.
export { RateLimiter } from '../../src/ratelimit/rate-limiter.ts';
