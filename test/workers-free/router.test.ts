/**
 * @module The apps' router (`src/router.ts`) answers what Hono's default router answers: the same
 * handlers, in the same order, with the same parameters, over every route of both plans and over
 * route sets where the one-segment shortcut must stand aside. The reference is Hono's own SmartRouter
 * over RegExpRouter and TrieRouter, the router an app gets when it names none.
 */
import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { OneSegmentRouter } from '../../src/router.ts';

/** Values for a route's parameters: addresses of both versions, a zone with slashes, odd segments. */
const VALUES = ['8.8.8.8', '2001:4860:4860::8888', 'America/Argentina/Buenos_Aires', 'DE', 'not%20an%20address', '%2F', '.', '\u0001probe'];

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PURGE'];

/** Paths no route is built from: the root, near misses, empty and extra segments. */
const OTHER_PATHS = [
  '/',
  '/health',
  '/HEALTH',
  '/nope',
  '/api',
  '/api/json/',
  '/api/json/8.8.8.8/',
  '/api/json/8.8.8.8/extra',
  '/api/json//x',
  '/api/v1/xml//',
  '/api/bulk',
  '/API/json/8.8.8.8',
];

/** A route's path with every `:name` or `:name{regex}` replaced by `value` (optional ones also left out). */
function fill(path: string, value: string): string[] {
  const filled = path.replace(/:[A-Za-z_]\w*(\{[^}]*\})?\??/g, value).replace(/\*/g, value);
  return path.includes('?') ? [filled, path.replace(/\/:[A-Za-z_]\w*(\{[^}]*\})?\?/g, '')] : [filled];
}

/** A match as a router user sees it: each handler with its parameters' values, whatever the result's form. */
function resolved<T>([handlers, stash]: Result<T>): [T, Record<string, string | undefined>][] {
  return handlers.map(([handler, params]) => [
    handler,
    Object.fromEntries(Object.entries(params).map(([name, ref]) => [name, stash ? stash[ref as number] : (ref as string)])),
  ]);
}

function honoDefault<T>(): Router<T> {
  return new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] });
}

/** Ours and Hono's router over the same `routes` (each route's handler is its index). */
function routers(routes: readonly { method: string; path: string }[]) {
  const reference = honoDefault<number>();
  const ours = new OneSegmentRouter<number>();
  routes.forEach(({ method, path }, index) => {
    reference.add(method, path, index);
    ours.add(method, path, index);
  });
  const paths = [...new Set([...routes.flatMap(({ path }) => VALUES.flatMap((value) => fill(path, value))), ...OTHER_PATHS])];
  return { reference, ours, paths };
}

function expectSameAnswers({ reference, ours, paths }: ReturnType<typeof routers>): void {
  for (const method of METHODS) {
    for (const path of paths) expect(resolved(ours.match(method, path)), `${method} ${path}`).toEqual(resolved(reference.match(method, path)));
  }
}

describe.each(['free', 'paid'] as const)('the %s app’s router', (plan) => {
  const app = createApp(plan);

  it('is the apps’ router', () => {
    expect(app.router).toBeInstanceOf(OneSegmentRouter);
  });

  it('answers what Hono’s default router answers for every method and path', () => {
    const pair = routers(app.routes);
    expect(pair.paths.length).toBeGreaterThan(app.routes.length);
    expectSameAnswers(pair);
  });

  it('takes the shortcut for the single lookup paths of spec 4.1 and 4.2', () => {
    // Free: /api/v1/{format}/{ip} and the legacy /api/{format}/{ip}; paid: /api/{format}/{ip}.
    const prefixes = plan === 'free' ? ['/api/v1/json/', '/api/v1/xml/', '/api/json/', '/api/xml/'] : ['/api/json/', '/api/xml/'];
    expect(routers(app.routes).ours.shortcuts).toEqual(expect.arrayContaining(prefixes.map((prefix) => `GET ${prefix}{segment}`)));
  });
});

describe('the one-segment shortcut', () => {
  const lookup = { method: 'GET', path: '/api/json/:ip' };
  const everywhere = { method: 'ALL', path: '/*' };

  it('keeps middleware of every path, before and after the route, in order', () => {
    const pair = routers([everywhere, lookup, { method: 'GET', path: '*' }, { method: 'ALL', path: '/other/*' }]);
    expect(pair.ours.shortcuts).toEqual(['GET /api/json/{segment}']);
    expect(resolved(pair.ours.match('GET', '/api/json/1.2.3.4'))).toEqual([
      [0, {}],
      [1, { ip: '1.2.3.4' }],
      [2, {}],
    ]);
    expectSameAnswers(pair);
  });

  it.each([
    ['a static path under the prefix', { method: 'GET', path: '/api/json/special' }, '/api/json/special'],
    ['middleware of the prefix', { method: 'ALL', path: '/api/*' }, '/api/json/1.2.3.4'],
    ['a parameter that takes in the prefix', { method: 'GET', path: '/api/:format/:ip' }, '/api/json/1.2.3.4'],
    ['the same path with a pattern', { method: 'POST', path: '/api/json/:ip{[0-9.]+}' }, '/api/json/1.2.3.4'],
  ])('stands aside for %s', (_, other, path) => {
    const pair = routers([everywhere, lookup, other]);
    expect(pair.ours.shortcuts).toEqual([]);
    expect(resolved(pair.ours.match(other.method === 'ALL' ? 'GET' : other.method, path))).toContainEqual(expect.arrayContaining([2]));
    expectSameAnswers(pair);
  });

  it('leaves routes of method ALL and routes with more than one parameter to Hono’s router', () => {
    const pair = routers([
      { method: 'ALL', path: '/any/:ip' },
      { method: 'GET', path: '/geo/:lat/:lon' },
    ]);
    expect(pair.ours.shortcuts).toEqual([]);
    expectSameAnswers(pair);
  });

  it('refuses routes once a path has been matched, as Hono’s router does', () => {
    const { ours } = routers([lookup]);
    ours.match('GET', '/api/json/1.2.3.4');
    expect(() => ours.add('GET', '/later', 1)).toThrow();
  });
});
