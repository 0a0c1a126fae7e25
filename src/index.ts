/**
 * @module The Worker's entry: the app of the deployment's plan (`PLAN`), and the Durable Object
 * class that counts the free plan's requests.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApp } from './app.ts';
import type { AppEnv, Plan } from './env.ts';

/**
 * The app of each plan, made on the isolate's first request: a deployment serves one plan, so the
 * other's routes and schemas are never registered (about 1.6 ms of a cold start in workerd).
 */
const apps: { [plan in Plan]?: OpenAPIHono<AppEnv> } = {};

export default {
  fetch(request, env, ctx) {
    const plan: Plan = env.PLAN === 'paid' ? 'paid' : 'free';
    apps[plan] ??= createApp(plan);
    return apps[plan].fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;

export { RateLimiter } from './ratelimit/rate-limiter.ts';
