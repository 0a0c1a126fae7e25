/** @module PLACEHOLDER (replaced by the paid endpoints work). */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, Plan } from '../env.ts';

export function registerPublicRoutes(_app: OpenAPIHono<AppEnv>, _plan: Plan): void {}
