/**
 * @module A bench-only Worker entry: the lookup-only Worker (`lookup-only.js`) answering from its own
 * database, as a deployment that does not shard does, after first calling other Workers over service
 * bindings with Workers RPC, as a sharded one must, but with calls that carry and do nothing
 * (`empty-hop.js`): a lookup (`/api/…` GET) makes one, a bulk lookup (POST) one per binding, as a bulk of
 * random addresses touches every shard. Beside the plain lookup-only Worker in `npm run bench:ab --
 * --b-hops N`, it measures what the hop alone costs: the least CPU a sharded lookup can take.
 */
import lookupOnly from './lookup-only.js';

export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname.startsWith('/api/')) {
      const bound = Object.keys(env).filter((name) => name.startsWith('HOP_'));
      const called = request.method === 'POST' ? bound : bound.slice(0, 1);
      await Promise.all(called.map((name) => env[name].hop()));
    }
    return lookupOnly.fetch(request, env, ctx);
  },
};
// The deployment's Durable Object binding names this class; nothing here calls it.
export { RateLimiter } from '../../src/ratelimit/rate-limiter.ts';
