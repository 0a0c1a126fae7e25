/**
 * @module A bench-only Worker that `empty-hops.js` calls: an RPC method that takes nothing, does nothing
 * and answers nothing, bound to it as `HOP_0` … (not `SHARD_0` …, which would make the app take its
 * deployment for a sharded one).
 */
import { WorkerEntrypoint } from 'cloudflare:workers';

export class Hop extends WorkerEntrypoint {
  /** Nothing: the call's own cost is what is measured. */
  hop() {}
}

export default {
  fetch() {
    return new Response(null, { status: 404 });
  },
};
// The deployment's configuration (which the bench bundles with) binds this Durable Object class; nothing here calls it.
export { RateLimiter } from '../../src/ratelimit/rate-limiter.ts';
