/**
 * @module Builds the Hono app of one plan: routes, validation hook, error rendering, 404 and 405.
 * The code is the same in all five deployments; `PLAN` decides which app answers (see `index.ts`).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { planGate } from './access/plan-gate.ts';
import { publicCors } from './cors/public.ts';
import type { AppEnv, Plan } from './env.ts';
import { ProblemError } from './errors/problem.ts';
import { asProblem, problemAnswer } from './errors/render.ts';
import { OneSegmentRouter } from './router.ts';
import { databaseVersionHeader } from './routes/database-version.ts';
import { registerHealthRoute } from './routes/health.ts';
import { registerHomeRoute } from './routes/home.ts';
import { validationHook } from './routes/hooks.ts';
import { registerLookupRoutes } from './routes/lookup.ts';
import { registerPaidRoutes } from './routes/paid.ts';
import { registerPaidOnlyRefusals } from './routes/paid-only.ts';
import { registerPublicRoutes } from './routes/public.ts';
import { registerStatusRoute } from './routes/status.ts';
import { IsolateUsage } from './usage/isolate.ts';
import { usageGate } from './usage/middleware.ts';

/**
 * Marks `answer` `X-Content-Type-Options: nosniff`, as every answer of the Worker is: no browser reads
 * it as another media type than its `Content-Type` (static files get it from `assets/_headers`).
 */
export function withoutSniffing(answer: Response): Response {
  answer.headers.set('X-Content-Type-Options', 'nosniff');
  return answer;
}

/** Answers a problem in the route's format, keeping headers middleware already set (CORS, RateLimit). */
function renderProblem(error: unknown, c: Context<AppEnv>): Response {
  return problemAnswer(asProblem(error, c.req.raw), c);
}

/**
 * A new app for `plan`.
 *
 * @returns an OpenAPIHono whose routes, schemas and problems are those of that plan.
 */
export function createApp(plan: Plan): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    // Hono's default router, with a shortcut for the lookup paths (`{prefix}/json/{ip}`), new with every address.
    router: new OneSegmentRouter(),
    // `/api/v1/json/` (an empty `{ip}`) is the same as `/api/v1/json`: the requester's own address.
    strict: false,
    // Every validation failure becomes a problem; raw validator output never reaches a client.
    defaultHook: validationHook,
  });
  // Around every answer, the liveness probe's, 404s and problems too.
  app.use('*', async (c, next) => {
    await next();
    withoutSniffing(c.res);
  });
  registerHealthRoute(app); // before the gates: no limit, credential or data for the liveness probe (routes/health.ts)

  // Free plan: rate limits and RateLimit headers. Paid plans: API key, server IP or website domain,
  // with CORS for whitelisted origins. Runs before every route below.
  // The free plan's answers are readable from any page; its preflights are answered before the gate, uncounted.
  if (plan === 'free') app.use('*', publicCors());
  app.use('*', planGate(plan));
  // Paid plans: each granted answer counted for its account, and its quotas enforced (usage/middleware.ts).
  // On every path, as the gate: a middleware of `/api/*` would cost the lookup paths the router's shortcut.
  // One usage state per app, that is per isolate (index.ts makes one app): what it counted and knows of each account.
  const usage = new IsolateUsage();
  if (plan === 'paid') app.use('*', usageGate(usage));
  // X-Database-Version on every lookup answer, set after the route has answered.
  app.use('*', databaseVersionHeader(plan));

  if (plan === 'free') {
    registerLookupRoutes(app, '/api/v1', ['Lookup']);
    registerLookupRoutes(app, '/api', ['Lookup (legacy paths)'], true);
    registerPaidOnlyRefusals(app);
  } else {
    registerLookupRoutes(app, '/api', ['Lookup']);
    registerPaidRoutes(app, usage);
  }
  // The data's version and age, open on both plans.
  registerStatusRoute(app, plan);
  // The home page: a counted view of the lookup on the free server, a short page on paid ones.
  registerHomeRoute(app, plan);
  // The country code list, /openapi.json and /docs, on both plans.
  registerPublicRoutes(app, plan);

  app.onError(renderProblem);
  app.notFound((c) => {
    const allowed = allowedMethods(app, c.req.path);
    const error =
      allowed.length > 0
        ? new ProblemError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(', ')}.`, {
            headers: { Allow: allowed.join(', ') },
            extensions: { allow: allowed },
          })
        : new ProblemError('NOT_FOUND', `There is no ${c.req.path} on this ${plan} server. The API is described at /openapi.json.`);
    return renderProblem(error, c);
  });
  return app;
}

/**
 * A regular expression source for a Hono route path: `:name` matches one segment, `:name{re}` its own
 * expression (e.g. `:zone{.+}` for time zones with slashes), everything else literally.
 */
function routePattern(path: string): string {
  return path
    .split(/(\/:[A-Za-z_]\w*(?:\{[^}]*\})?\??)/)
    .map((part) => {
      const param = /^\/:[A-Za-z_]\w*(?:\{([^}]*)\})?(\?)?$/.exec(part);
      if (!param) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const segment = `/(?:${param[1] ?? '[^/]+'})`;
      return param[2] ? `(?:${segment})?` : segment;
    })
    .join('');
}

/** The methods that some route accepts on `path` (for 405 answers); empty when no route matches. */
function allowedMethods(app: OpenAPIHono<AppEnv>, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL') continue;
    const pattern = new RegExp(`^${routePattern(route.path)}$`);
    if (pattern.test(path)) methods.add(route.method);
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
