/**
 * @module Property-based tests (fast-check) of the routes of both plans: arbitrary methods, paths,
 * query strings, headers and bodies never answer a 5xx, and every error is a problem document of a
 * known code, in JSON or XML (or, for the home page `GET /`, a page that names the code). The paid app runs here too, against this project's KV (it has the
 * binding), with made-up keys, addresses and origins. Client address 2001:db8:1901::1 unless a run
 * sets its own (this file only); rate limiting answers 429 problems, which are fine. Bounded in runs,
 * never in time. Every answer is checked against the OpenAPI document of its plan.
 */
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { PROBLEMS } from '../../src/errors/problem.ts';
import { appDocuments, appFetch } from '../support/worker-fetch.ts';

const RUNS = { numRuns: 300 };
const apps = { free: createApp('free'), paid: createApp('paid') };
/** Each app's own document: this project's Worker serves the free plan only. */
const documents = { free: appDocuments(apps.free), paid: appDocuments(apps.paid) };

const printable = fc.string({ unit: fc.constantFrom(...' !"#$%&\'()*+,-./0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~'), maxLength: 40 });
const addressLike = fc.oneof(fc.ipV4(), fc.ipV6(), fc.ipV4Extended(), printable, fc.constantFrom('8.8.8.8', '10.0.0.1', '::1', '2001:4860:4860::8888', ''));
const prefix = fc.constantFrom(
  '/api/v1/json/',
  '/api/v1/xml/',
  '/api/json/',
  '/api/xml/',
  '/api/bulk/json',
  '/api/bulk/xml',
  '/api/distance',
  '/api/languages/',
  '/api/countries/',
  '/api/phonecodes/',
  '/api/timezones/',
  '/api/countrycodes',
  '/api/v1/countrycodes',
  '/openapi.json',
  '/docs',
  '/',
  '/health',
);
const path = fc
  .tuple(prefix, fc.oneof(addressLike.map(encodeURIComponent), fc.webSegment(), fc.webPath(), fc.constant('')))
  .map(([start, rest]) => `${start}${rest}`.replace(/^\/\//, '/'));
const query = fc.option(fc.webQueryParameters(), { nil: undefined });
const headers = fc.dictionary(
  fc.constantFrom(
    'Origin',
    'Authorization',
    'Content-Type',
    'CF-Connecting-IP',
    'Accept',
    'Access-Control-Request-Method',
    'X-Forwarded-For',
    'Content-Length',
  ),
  fc.oneof(
    printable,
    fc.constantFrom('application/json', 'https://example.com', 'http://localhost:8080', 'null', 'Bearer ipgeo_', 'POST', '8.8.8.8', '2001:db8::1'),
    addressLike,
  ),
  { maxKeys: 5 },
);
const body = fc.oneof(
  fc.constant(undefined),
  fc.json({ maxDepth: 3 }),
  printable,
  fc.array(addressLike, { maxLength: 60 }).map((ips) => JSON.stringify({ ips })),
  fc.record({ from: addressLike, to: addressLike }).map((pair) => JSON.stringify(pair)),
);
const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH');

const KNOWN_CODES = new Set(Object.keys(PROBLEMS));

describe.each(['free', 'paid'] as const)('the %s app', (plan) => {
  it('never answers 5xx, and answers every error as a problem of a known code', async () => {
    await fc.assert(
      fc.asyncProperty(method, path, query, headers, body, async (verb, where, search, fields, content) => {
        const url = `https://fuzz.test${where}${search ? `?${search}` : ''}`;
        const init: RequestInit = { method: verb, headers: { 'CF-Connecting-IP': '2001:db8:1901::1', ...fields } };
        if (content !== undefined && verb !== 'GET' && verb !== 'HEAD') init.body = content;
        let request: Request;
        try {
          request = new Request(url, init);
        } catch {
          return; // not a request a client could send (e.g. a header value the Fetch standard refuses)
        }
        const response = await appFetch(apps[plan], request, env, documents[plan]);
        const text = await response.text();
        expect(response.status, `${verb} ${url}`).toBeLessThan(500);
        if (response.status < 400 || verb === 'HEAD') return;
        const type = response.headers.get('Content-Type') ?? '';
        // `//` is the home page too: the apps ignore a trailing slash (`strict: false`, src/app.ts).
        if (verb === 'GET' && ['/', '//'].includes(new URL(url).pathname)) {
          // The home page answers a problem as a page that names its code (src/routes/home.ts).
          expect(type, `${verb} ${url}`).toBe('text/html; charset=UTF-8');
          const shown = /<code>([A-Z_]+)<\/code>/.exec(text)?.[1];
          expect(KNOWN_CODES.has(shown ?? ''), `${verb} ${url}: ${shown}`).toBe(true);
          return;
        }
        expect(type, `${verb} ${url}`).toMatch(/^application\/problem\+(json|xml); charset=utf-8$/);
        const code = type.includes('json') ? (JSON.parse(text) as { code: string }).code : /<code>([A-Z_]+)<\/code>/.exec(text)?.[1];
        expect(KNOWN_CODES.has(code ?? ''), `${verb} ${url}: ${code}`).toBe(true);
      }),
      RUNS,
    );
  });
});
