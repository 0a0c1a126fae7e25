/**
 * @module The Worker's entry: the app of the deployment's plan (`PLAN`), and the Durable Object
 * class that counts the free plan's requests.
 */
import { createApp } from './app.ts';

const apps = { free: createApp('free'), paid: createApp('paid') };

export default {
  fetch(request, env, ctx) {
    return apps[env.PLAN === 'paid' ? 'paid' : 'free'].fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;

export { RateLimiter } from './ratelimit/rate-limiter.ts';
