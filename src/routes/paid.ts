/**
 * @module The paid plan's endpoints beyond single lookup (docs/specification.md, 4.3 to 4.6): bulk lookup, distance,
 * the reference routes, and the account's usage; and networks by ASN (docs/api.md). The free server refuses these paths itself (`paid-only.ts`).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.ts';
import type { IsolateUsage } from '../usage/isolate.ts';
import { registerAsnRoutes } from './asn.ts';
import { registerBulkRoutes } from './bulk.ts';
import { registerDistanceRoute } from './distance.ts';
import { registerReferenceRoutes } from './reference.ts';
import { registerUsageRoute } from './usage.ts';

/**
 * Registers bulk lookup, distance, networks by ASN, countries, languages, phone codes, time zones and the account's usage on a paid app.
 *
 * @param usage the isolate's usage state, which the usage route reads.
 */
export function registerPaidRoutes(app: OpenAPIHono<AppEnv>, usage: IsolateUsage): void {
  registerBulkRoutes(app);
  registerDistanceRoute(app);
  registerAsnRoutes(app);
  registerReferenceRoutes(app);
  registerUsageRoute(app, usage);
}
