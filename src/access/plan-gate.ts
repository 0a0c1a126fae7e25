/** @module PLACEHOLDER (replaced by the access/rate-limit work): lets every request through. */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Plan } from '../env.ts';

export function planGate(_plan: Plan): MiddlewareHandler<AppEnv> {
  return async (_c, next) => {
    await next();
  };
}
