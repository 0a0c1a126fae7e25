/**
 * @module The Worker's entry: the app of the deployment's plan (`PLAN`), and the Durable Object class
 * that counts the free plan's requests. Whatever escapes the app (an exception while it is made, or in
 * its error handler) is answered as a logged `500 INTERNAL_ERROR` problem, never as the runtime's own
 * error page, whose text may name code and paths.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApp, withoutSniffing } from './app.ts';
import type { AppEnv, Plan } from './env.ts';
import { asProblem, problemResponse } from './errors/render.ts';
import { formatOf } from './http/paths.ts';

/**
 * The app of each plan, made on the isolate's first request: a deployment serves one plan, so the
 * other's routes and schemas are never registered, and their cost is not paid at a cold start.
 */
const apps: { [plan in Plan]?: OpenAPIHono<AppEnv> } = {};

export default {
  fetch(request, env, ctx) {
    try {
      const plan: Plan = env.PLAN === 'paid' ? 'paid' : 'free';
      apps[plan] ??= createApp(plan);
      const answer = apps[plan].fetch(request, env, ctx);
      return answer instanceof Promise ? answer.catch((error: unknown) => internalError(error, request)) : answer;
    } catch (error) {
      return internalError(error, request);
    }
  },
} satisfies ExportedHandler<Env>;

/** The problem answer for an error that escaped the app (logged by `asProblem`). */
function internalError(error: unknown, request: Request): Response {
  const path = new URL(request.url).pathname;
  return withoutSniffing(problemResponse(asProblem(error, request), formatOf(path), path));
}

export { RateLimiter } from './ratelimit/rate-limiter.ts';
