/** @module PLACEHOLDER (replaced by the paid endpoints work). */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.ts';

export function registerPaidRoutes(_app: OpenAPIHono<AppEnv>): void {}
