/**
 * @module The contract check that every Worker test's answer goes through (`test/support/contract.ts`):
 * described answers pass, and each kind of undescribed one is caught, so that a green route suite
 * means what it says. The documents are built from the apps in Node, as `/openapi.json` builds them.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { type Exchange, serveContractCheck } from '../support/contract.ts';

// The app's modules may reach Workers-only ones (the rate limiter's Durable Object class), which Node
// cannot load; nothing here runs them.
vi.mock('cloudflare:workers', () => ({ DurableObject: class {} }));

type Json = Record<string, unknown>;
type Plan = 'free' | 'paid';

// Imported by a computed specifier: the Worker's sources are type-checked against the Workers types.
const APP = '../../src/app.ts';
const DOCS = '../../src/routes/docs.ts';
const ORIGIN = { free: 'http://free.test', paid: 'https://de.paid.test' } as const;

const keys: Partial<Record<Plan, string>> = {};
beforeAll(async () => {
  const { createApp } = (await import(APP)) as { createApp(plan: Plan): unknown };
  const { openApiDocument } = (await import(DOCS)) as { openApiDocument(app: unknown, plan: Plan): Json };
  for (const plan of ['free', 'paid'] as const) {
    const document = { ...openApiDocument(createApp(plan), plan), servers: [{ url: ORIGIN[plan] }] };
    const registered = await serveContractCheck(new Request('http://contract/document', { method: 'POST', body: JSON.stringify(document) }));
    keys[plan] = await registered.text();
  }
});

const JSON_HEADERS: [string, string][] = [['content-type', 'application/json']];
const PROBLEM_HEADERS: [string, string][] = [['content-type', 'application/problem+json; charset=utf-8']];
const FREE_HEADERS: [string, string][] = [
  ['ratelimit-policy', '"burst";q=10;w=10, "minute";q=60;w=60'],
  ['ratelimit', '"burst";r=9;t=10'],
  ['access-control-allow-origin', '*'],
  ['access-control-expose-headers', 'RateLimit, RateLimit-Policy, Retry-After, X-Database-Version, Allow'],
];
const RECORD = {
  ipVersion: 4,
  ipAddress: '8.8.8.8',
  latitude: 37.751,
  longitude: -97.822,
  countryName: 'United States',
  countryCode: 'US',
  capital: 'Washington D.C.',
  phoneCodes: [1],
  timeZones: ['America/Chicago'],
  zipCode: '',
  cityName: '',
  regionName: '',
  regionCode: '',
  continent: 'North America',
  continentCode: 'NA',
  currencies: ['USD'],
  languages: ['en'],
  asn: '15169',
  asnOrganization: 'Google LLC',
  isProxy: false,
};

/** The header every answer of the Worker carries (`src/app.ts`). */
const EVERY_ANSWER: [string, string] = ['x-content-type-options', 'nosniff'];

/**
 * What the check says of an answer; the gate's headers are added to it unless `requestHeaders` ask a
 * preflight, and {@link EVERY_ANSWER} unless `bare`.
 */
async function violations(
  plan: Plan,
  method: string,
  path: string,
  status: number,
  headers: [string, string][],
  body: string,
  requestHeaders: [string, string][] = [],
  bare = false,
) {
  const gate: [string, string][] = requestHeaders.length > 0 ? [] : plan === 'free' ? FREE_HEADERS : [['vary', 'Origin']];
  const exchange: Exchange = {
    request: { method, url: `${ORIGIN[plan]}${path}`, headers: requestHeaders },
    response: { status, headers: [...gate, ...headers, ...(bare ? [] : [EVERY_ANSWER])], body },
  };
  const checked = await serveContractCheck(new Request('http://contract/check', { method: 'POST', body: JSON.stringify({ document: keys[plan], exchange }) }));
  return (await checked.json()) as string[];
}

const problem = (code: string, status: number, extra: Json = {}) =>
  JSON.stringify({ type: `urn:ipgeo:problem:${code.toLowerCase().replaceAll('_', '-')}`, title: 't', status, detail: 'd', code, ...extra });

describe('the contract check', () => {
  it('passes answers the document describes: records, selections, problems, XML, HEAD, 404, 405 and preflights', async () => {
    expect(await violations('free', 'GET', '/api/v1/json/8.8.8.8', 200, JSON_HEADERS, JSON.stringify(RECORD))).toEqual([]);
    expect(await violations('free', 'GET', '/api/v1/json/8.8.8.8?fields=countryCode', 200, JSON_HEADERS, '{"countryCode":"US"}')).toEqual([]);
    const xml = '<?xml version="1.0" encoding="UTF-8"?><response><countryCode>US</countryCode><timeZones>Europe/Paris</timeZones></response>';
    expect(
      await violations('free', 'GET', '/api/v1/xml/8.8.8.8?fields=countryCode,timeZones', 200, [['content-type', 'application/xml; charset=utf-8']], xml),
    ).toEqual([]);
    expect(await violations('free', 'GET', '/api/v1/json/1.2.3', 400, PROBLEM_HEADERS, problem('IP_ADDRESS_INVALID', 400))).toEqual([]);
    expect(await violations('free', 'HEAD', '/api/v1/json/8.8.8.8', 200, JSON_HEADERS, '')).toEqual([]);
    expect(await violations('free', 'GET', '/api/v1/planets', 404, PROBLEM_HEADERS, problem('NOT_FOUND', 404))).toEqual([]);
    expect(
      await violations(
        'free',
        'DELETE',
        '/api/v1/json/8.8.8.8',
        405,
        [...PROBLEM_HEADERS, ['allow', 'GET, HEAD']],
        problem('METHOD_NOT_ALLOWED', 405, { allow: ['GET', 'HEAD'] }),
      ),
    ).toEqual([]);
    const preflight: [string, string][] = [
      ['access-control-allow-origin', '*'],
      ['access-control-allow-methods', 'GET, HEAD, POST, OPTIONS'],
      ['access-control-allow-headers', 'Authorization, Content-Type'],
      ['access-control-max-age', '600'],
    ];
    const asks: [string, string][] = [
      ['origin', 'https://page.example'],
      ['access-control-request-method', 'GET'],
    ];
    expect(await violations('free', 'OPTIONS', '/api/v1/json/8.8.8.8', 204, preflight, '', asks)).toEqual([]);
    expect(
      await violations('paid', 'GET', '/api/timezones/Europe/Paris', 200, JSON_HEADERS, '{"zone":"Europe/Paris","total_countries":0,"countries":[]}'),
    ).toEqual([]);
  });

  it('catches a body that the schema refuses, in JSON and in XML', async () => {
    // A record missing a field is a selection (the schema cannot see the query), but a field of the wrong type is neither.
    expect((await violations('free', 'GET', '/api/v1/json/8.8.8.8', 200, JSON_HEADERS, JSON.stringify({ ...RECORD, isProxy: 'no' }))).join()).toContain(
      'isProxy',
    );
    expect((await violations('free', 'GET', '/api/v1/json/8.8.8.8?fields=x', 200, JSON_HEADERS, '{"planet":"Mars"}')).join()).toContain('additional');
    const wrongRoot = '<?xml version="1.0" encoding="UTF-8"?><record><countryCode>US</countryCode></record>';
    expect((await violations('free', 'GET', '/api/v1/xml/8.8.8.8', 200, [['content-type', 'application/xml']], wrongRoot)).join()).toContain('<record>');
    const notBoolean = '<?xml version="1.0" encoding="UTF-8"?><response><isProxy>maybe</isProxy></response>';
    expect((await violations('free', 'GET', '/api/v1/xml/8.8.8.8?fields=isProxy', 200, [['content-type', 'application/xml']], notBoolean)).join()).toContain(
      'boolean',
    );
  });

  it('catches a status, a problem code and a media type that the operation does not list', async () => {
    expect((await violations('free', 'GET', '/api/v1/json/8.8.8.8', 418, PROBLEM_HEADERS, problem('NOT_FOUND', 418))).join()).toContain('status code');
    expect((await violations('free', 'GET', '/api/v1/json/8.8.8.8', 400, PROBLEM_HEADERS, problem('BODY_INVALID', 400))).join()).toContain('allowed values');
    expect((await violations('free', 'GET', '/api/v1/json/8.8.8.8', 200, [['content-type', 'text/plain']], 'ok')).join()).toContain('media type');
  });

  it('catches a header the document does not name for the answer', async () => {
    expect(await violations('free', 'GET', '/api/v1/json/8.8.8.8', 200, [...JSON_HEADERS, ['x-powered-by', 'hono']], JSON.stringify(RECORD))).toEqual([
      'the answer carries x-powered-by, which the document does not name for it',
    ]);
  });

  it('catches an answer without X-Content-Type-Options: nosniff', async () => {
    expect(await violations('free', 'GET', '/api/v1/json/8.8.8.8', 200, JSON_HEADERS, JSON.stringify(RECORD), [], true)).toEqual([
      "Prism: Response header must have required property 'x-content-type-options'",
    ]);
  });

  it('catches answers to requests without an operation that are not the document’s own: 404 on a listed path, a wrong Allow, a stray 200', async () => {
    expect((await violations('free', 'PUT', '/api/v1/json/8.8.8.8', 404, PROBLEM_HEADERS, problem('NOT_FOUND', 404))).join()).toContain('has no PUT operation');
    const wrongAllow = await violations(
      'free',
      'DELETE',
      '/api/v1/json/8.8.8.8',
      405,
      [...PROBLEM_HEADERS, ['allow', 'GET']],
      problem('METHOD_NOT_ALLOWED', 405),
    );
    expect(wrongAllow.join()).toContain('documents GET, HEAD');
    expect((await violations('free', 'GET', '/api/v1/planets', 200, JSON_HEADERS, '{}')).join()).toContain('no path of the document matches');
    expect((await violations('free', 'OPTIONS', '/api/v1/json/8.8.8.8', 204, [], '')).join()).toContain('none of the document');
  });
});
