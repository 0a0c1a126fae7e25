/** @module PLACEHOLDER (replaced by the access/rate-limit work). */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.ts';

export function registerPaidOnlyRefusals(_app: OpenAPIHono<AppEnv>): void {}
