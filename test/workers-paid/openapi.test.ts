/**
 * @module The paid server's OpenAPI document (`/openapi.json`) and reference page (`/docs`): the
 * document must list exactly the routes the app serves, say what the access gate does to them (and
 * the gate must do it), and carry the validating schemas. Its validity as OpenAPI 3.1 is checked in
 * Node by `test/node/openapi.test.ts`, where the validator runs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { documentedOperations, servedOperations } from '../support/openapi-routes.ts';
import { PAID_ORIGIN, paidFetch } from '../support/paid-fetch.ts';
import { EXTRA_FIELDS, SPEC_FIELDS } from '../support/record-fields.ts';
import { workerFetch } from '../support/worker-fetch.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON that the tests walk freely.
type Json = Record<string, any>;

/** A request without credentials. */
const anonymous = (path: string, init?: RequestInit) => workerFetch(`${PAID_ORIGIN}${path}`, init);

let document: Json;
beforeAll(async () => {
  const response = await anonymous('/openapi.json');
  expect(response.status).toBe(200);
  document = (await response.json()) as Json;
});

const operations = () =>
  Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );

/** A concrete path for a documented one. */
const EXAMPLES: Record<string, string> = {
  ip: '8.8.8.8',
  code: 'de',
  dialCode: '44',
  zone: 'Japan',
  area: 'America',
  region: 'Argentina',
  location: 'Buenos_Aires',
};
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => EXAMPLES[name] ?? 'x');

describe('GET /openapi.json on a paid server', () => {
  it("documents the ASN routes' parameters with the pattern and bounds they are validated with", () => {
    for (const path of ['/api/asn/{asn}', '/api/asn/json/{asn}', '/api/asn/xml/{asn}']) {
      const parameters = document.paths[path].get.parameters as Json[];
      const asn = parameters.find((parameter) => parameter.name === 'asn');
      expect(asn, path).toMatchObject({ in: 'path', required: true, schema: { type: 'string', pattern: '^(?:[Aa][Ss])?(?:0|[1-9][0-9]{0,9})$' } });
      expect(asn?.description).toContain('from 0 to 4294967295');
      const page = parameters.find((parameter) => parameter.name === 'page');
      expect(page, path).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 65535 } });
    }
  });

  it('is an OpenAPI 3.1 document that names this server, served without credentials', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: expect.stringContaining('paid'), version: expect.any(String) });
    expect(document.servers).toEqual([{ url: PAID_ORIGIN, description: expect.stringContaining('region de') }]);
  });

  it('lists exactly the routes that the paid app serves', () => {
    expect(documentedOperations(document as never)).toEqual(servedOperations(createApp('paid')));
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/bulk/json',
        '/api/bulk/xml',
        '/api/distance',
        '/api/languages/{code}',
        '/api/countries',
        '/api/countries/{code}',
        '/api/phonecodes',
        '/api/phonecodes/{dialCode}',
        '/api/timezones',
        '/api/timezones/{zone}',
        '/api/timezones/{area}/{location}',
        '/api/timezones/{area}/{region}/{location}',
        '/api/countrycodes',
        '/openapi.json',
        '/docs',
      ]),
    );
  });

  it('declares the bearer key and website origin schemes, and applies them where the gate asks for credentials', async () => {
    expect(document.components.securitySchemes.bearerKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.components.securitySchemes.websiteOrigin).toMatchObject({ type: 'apiKey', in: 'header', name: 'Origin' });
    for (const { path, method, operation } of operations()) {
      const response = await anonymous(
        concrete(path),
        method === 'post' ? { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' } : { method: method.toUpperCase() },
      );
      if (operation.security) {
        expect(operation.security, path).toEqual([{ bearerKey: [] }, { websiteOrigin: [] }]);
        expect(Object.keys(operation.responses), path).toEqual(expect.arrayContaining(['401', '403']));
        expect(operation.responses['401'].description).toContain('AUTHORIZATION_REQUIRED');
        expect(response.status, `${method} ${path} without a key`).toBe(401);
      } else {
        expect(response.status, `${method} ${path} without a key`).toBe(200);
      }
    }
    expect(
      operations()
        .filter((o) => !o.operation.security && o.method !== 'head')
        .map((o) => o.path),
    ).toEqual(['/api/status', '/', '/api/countrycodes', '/health', '/openapi.json', '/docs']);
  });

  it('lists the problems of each route by code, in the media type the route answers them', () => {
    const bulk = document.paths['/api/bulk/xml'].post.responses;
    expect(bulk['400'].description).toContain('TOO_MANY_IPS');
    expect(bulk['400'].description).toContain('BODY_INVALID');
    expect(bulk['413'].description).toContain('PAYLOAD_TOO_LARGE');
    expect(bulk['415'].description).toContain('UNSUPPORTED_MEDIA_TYPE');
    expect(Object.keys(bulk['400'].content)).toEqual(['application/problem+xml']);
    const distance = document.paths['/api/distance'].post.responses;
    expect(`${distance['400'].description} ${distance['404'].description}`).toMatch(/IP_ADDRESS_INVALID.*IP_ADDRESS_RESERVED.*IP_ADDRESS_NOT_FOUND/s);
    expect(document.paths['/api/languages/{code}'].get.responses['404'].description).toContain('LANGUAGE_NOT_FOUND');
    expect(document.paths['/api/countries/{code}'].get.responses['404'].description).toContain('COUNTRY_NOT_FOUND');
    expect(document.paths['/api/distance'].post.responses['503'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(document.components.schemas.Problem.properties.code.enum).toEqual(
      expect.arrayContaining(['TOO_MANY_IPS', 'PAYLOAD_TOO_LARGE', 'LANGUAGE_NOT_FOUND', 'COUNTRY_NOT_FOUND']),
    );
  });

  it('describes the request bodies with the schemas that validate them', () => {
    const bulk = document.components.schemas.BulkRequest;
    expect(bulk).toMatchObject({ type: 'object', required: ['ips'], additionalProperties: false });
    expect(bulk.properties.ips).toMatchObject({ type: 'array', maxItems: 50, items: { type: 'string' } });
    expect(document.components.schemas.DistanceRequest).toMatchObject({ required: ['from', 'to'], additionalProperties: false });
    expect(document.paths['/api/bulk/json'].post.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/BulkRequest' } } },
    });
  });

  it('describes every field of every schema', () => {
    const undescribed: string[] = [];
    const visit = (name: string, schema: Json | undefined): void => {
      if (!schema || typeof schema !== 'object') return;
      for (const [field, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
        const described = property.description || property.$ref || (property.allOf as Json[] | undefined)?.some((part) => part.description);
        if (!described) undescribed.push(`${name}.${field}`);
        visit(`${name}.${field}`, property);
        visit(`${name}.${field}[]`, property.items);
      }
      for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) visit(name, branch);
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') visit(`${name}{}`, schema.additionalProperties);
    };
    for (const [name, schema] of Object.entries(document.components.schemas as Record<string, Json>)) visit(name, schema);
    expect(undescribed).toEqual([]);
  });

  it('shows the bulk XML shape with its item attribute and problem namespace', () => {
    const item = document.components.schemas.BulkXmlResponse.properties.results.properties.item;
    const [recordItem, selectionItem, problemItem] = item.items.anyOf as Json[];
    expect(document.components.schemas.BulkXmlResponse.xml).toEqual({ name: 'response' });
    expect(recordItem?.properties.ip.xml).toEqual({ attribute: true });
    expect(recordItem?.properties).not.toHaveProperty('regionCode');
    expect(selectionItem).toMatchObject({ required: ['ip'], additionalProperties: false, properties: { regionCode: expect.any(Object) } });
    expect(problemItem?.properties.problem.allOf).toEqual([{ $ref: '#/components/schemas/Problem' }, { description: expect.any(String) }]);
    expect(document.components.schemas.Problem.xml).toEqual({ name: 'problem', namespace: 'urn:ietf:rfc:7807' });
  });
});

describe('GET /docs on a paid server', () => {
  it('serves the reference page without credentials, with its own scripts and Content-Security-Policy', async () => {
    const response = await paidFetch('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toMatch(/^text\/html/);
    expect(response.headers.get('Content-Security-Policy')).toContain("script-src 'self';");
    const html = await response.text();
    expect(html).toContain('<script src="/docs/vendor/scalar-api-reference.js"></script>');
    expect(html).toContain('<script src="/docs/start.js"></script>');
    expect(html).not.toMatch(/https?:\/\//);
  });
});

describe('lang and fields in the OpenAPI document', () => {
  const LOOKUPS = ['/api/json/{ip}', '/api/json', '/api/xml/{ip}', '/api/xml', '/api/bulk/json', '/api/bulk/xml', '/api/distance'];

  it('documents lang with its codes, and fields, on every lookup route, with their problems', () => {
    for (const path of LOOKUPS) {
      const [operation] = Object.values(document.paths[path] as Record<string, Json>);
      const parameters = (operation?.parameters ?? []) as Json[];
      const lang = parameters.find((parameter) => parameter.name === 'lang' && parameter.in === 'query');
      expect(lang?.schema?.enum, path).toEqual(['de', 'en', 'es', 'fr', 'ja', 'pt-BR', 'ru', 'zh-CN']);
      const responses = JSON.stringify(operation?.responses);
      expect(responses, path).toContain('LANGUAGE_UNSUPPORTED');
      if (path === '/api/distance') continue;
      expect(
        parameters.some((parameter) => parameter.name === 'fields' && parameter.in === 'query'),
        path,
      ).toBe(true);
      expect(responses, path).toContain('FIELDS_INVALID');
    }
  });

  it('says on the bulk routes that regionCode is there only when fields names it', () => {
    const fields = (document.paths['/api/bulk/json'].post.parameters as Json[]).find((parameter) => parameter.name === 'fields');
    expect(fields?.description).toMatch(/`regionCode` is in a bulk record only when `fields` names it/);
  });
});

describe('what the OpenAPI document says of fields, time zones and problems', () => {
  it('describes the record without fields as the twenty, with fields=all as every field, and with fields as a selection of every field', () => {
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    for (const path of ['/api/json/{ip}', '/api/xml']) {
      const content = Object.values(document.paths[path].get.responses['200'].content as Record<string, Json>)[0];
      expect(content?.schema.anyOf, path).toEqual([ref('IpInfo'), ref('IpInfoAll'), ref('IpInfoSelection')]);
    }
    const { IpInfo, IpInfoAll, IpInfoSelection, BulkIpInfo } = document.components.schemas;
    const twenty = Object.keys(IpInfo.properties);
    expect(IpInfo.required).toEqual(twenty);
    expect(IpInfo.additionalProperties).toBe(false);
    expect(twenty).toEqual(SPEC_FIELDS);
    expect(Object.keys(IpInfoAll.properties)).toEqual([...SPEC_FIELDS, ...EXTRA_FIELDS]);
    expect(IpInfoAll.required).toEqual(Object.keys(IpInfoAll.properties));
    expect(IpInfoAll.additionalProperties).toBe(false);
    expect(IpInfoSelection).toMatchObject({ minProperties: 1, additionalProperties: false });
    expect(IpInfoSelection.required ?? []).toEqual([]);
    expect(Object.keys(IpInfoSelection.properties)).toEqual(Object.keys(IpInfoAll.properties));
    expect(BulkIpInfo.required).toEqual(twenty.filter((field) => field !== 'regionCode'));
    expect(document.components.schemas.BulkJsonResponse.additionalProperties.anyOf).toEqual([
      ref('BulkIpInfo'),
      ref('IpInfoAll'),
      ref('IpInfoSelection'),
      ref('Problem'),
    ]);
  });

  it('spells time-zone paths out by their parts, each a path segment, and serves each of them', async () => {
    const zones = Object.keys(document.paths).filter((path) => path.startsWith('/api/timezones/'));
    expect(zones).toEqual(['/api/timezones/{zone}', '/api/timezones/{area}/{location}', '/api/timezones/{area}/{region}/{location}']);
    for (const path of zones) expect((await paidFetch(concrete(path))).status, path).toBe(200);
  });

  it('lists in its problem table and Problem schema the problems of the paid servers only', () => {
    const table = [...(document.info.description as string).matchAll(/^\| \d{3} \| `([A-Z_]+)` \|/gm)].map((row) => row[1]);
    expect(table).toEqual(document.components.schemas.Problem.properties.code.enum);
    expect(table).toEqual(expect.arrayContaining(['ACCOUNTS_UNAVAILABLE', 'AUTHORIZATION_REQUIRED', 'TOO_MANY_IPS', 'COUNTRY_NOT_FOUND']));
    expect(table).not.toContain('RATE_LIMITED');
    expect(table).not.toContain('PAID_PLAN_REQUIRED');
  });
});
