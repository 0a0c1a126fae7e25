/**
 * @module Bulk lookup (`POST /api/bulk/json` and `/api/bulk/xml`): each answer must equal the single
 * lookup of the same address (without `regionCode`), problems included; the XML is read back with
 * `@xmldom/xmldom`, a parser independent of the one that writes it.
 */
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { paidFetch, postJson } from '../support/paid-fetch.ts';

/** Addresses of several countries and both versions, one not covered by the data, and failures. */
const ADDRESSES = [
  '8.8.8.8',
  '1.1.1.1',
  '81.2.69.142',
  '2001:7fe::53',
  '2001:7f8::1',
  '2600::1',
  '202.12.27.33',
  '200.160.2.3',
  '2c0f:ffff::1',
  '10.0.0.1',
  'not-an-address',
];

type Json = Record<string, unknown>;

/** What a single lookup answers for `ip`: the record, or the problem without its `instance`. */
async function single(ip: string): Promise<Json> {
  const body = (await (await paidFetch(`/api/json/${encodeURIComponent(ip)}`)).json()) as Json;
  const { instance: _instance, ...rest } = body;
  return rest;
}

function withoutRegionCode(record: Json): Json {
  const { regionCode: _regionCode, ...rest } = record;
  return rest;
}

const children = (element: Element): Element[] => Array.from(element.childNodes).filter((node): node is Element => node.nodeType === 1);

function parseXml(text: string): Element {
  const document = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') throw new Error(message);
    },
  }).parseFromString(text, 'application/xml');
  const root = document.documentElement;
  if (!root) throw new Error('no root element');
  return root;
}

describe('POST /api/bulk/json', () => {
  it('answers each address with the record of its single lookup, without regionCode', async () => {
    const response = await postJson('/api/bulk/json', { ips: ADDRESSES });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
    const body = (await response.json()) as Record<string, Json>;
    expect(Object.keys(body)).toEqual(ADDRESSES);
    for (const ip of ADDRESSES) {
      const expected = await single(ip);
      expect(body[ip], ip).toEqual('code' in expected ? expected : withoutRegionCode(expected));
      expect(body[ip], ip).not.toHaveProperty('regionCode');
    }
  });

  it('answers addresses that cannot be looked up with their problems, and the others with records', async () => {
    const body = (await (await postJson('/api/bulk/json', { ips: ['10.0.0.1', 'not-an-address', '2c0f:ffff::1', '8.8.8.8'] })).json()) as Record<string, Json>;
    expect(body['10.0.0.1']).toMatchObject({ status: 400, code: 'IP_ADDRESS_RESERVED', range: '10.0.0.0/8', rfc: 'RFC 1918' });
    expect(body['not-an-address']).toMatchObject({ status: 400, code: 'IP_ADDRESS_INVALID' });
    expect(body['2c0f:ffff::1']).toMatchObject({ status: 404, code: 'IP_ADDRESS_NOT_FOUND' });
    expect(body['8.8.8.8']).toMatchObject({ ipAddress: '8.8.8.8', ipVersion: 4 });
  });

  it('keys the answer by the addresses as sent, and answers a repeated one once', async () => {
    const sent = ['2001:7FE:0:0:0:0:0:53', '::ffff:8.8.8.8', '8.8.8.8', '2001:7FE:0:0:0:0:0:53', '8.8.8.8'];
    const text = await (await postJson('/api/bulk/json', { ips: sent })).text();
    // Counted in the text: JSON.parse would keep one of two equal keys and hide a repeat.
    expect(text.split('"2001:7FE:0:0:0:0:0:53":')).toHaveLength(2);
    expect(text.split('"8.8.8.8":')).toHaveLength(2);
    const body = JSON.parse(text) as Record<string, Json>;
    expect(Object.keys(body)).toEqual(['2001:7FE:0:0:0:0:0:53', '::ffff:8.8.8.8', '8.8.8.8']);
    expect(body['2001:7FE:0:0:0:0:0:53']?.ipAddress).toBe('2001:7fe::53');
    expect(body['::ffff:8.8.8.8']).toEqual(body['8.8.8.8']);

    const xml = parseXml(await (await postJson('/api/bulk/xml', { ips: sent })).text());
    const items = Array.from(xml.getElementsByTagName('item')).map((item) => item.getAttribute('ip'));
    expect(items).toEqual(['2001:7FE:0:0:0:0:0:53', '::ffff:8.8.8.8', '8.8.8.8']);
  });

  it('keeps an address string such as "__proto__" as an ordinary key', async () => {
    const text = await (await postJson('/api/bulk/json', { ips: ['__proto__', 'constructor'] })).text();
    const body = JSON.parse(text) as Json;
    expect(Object.keys(body)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(body, '__proto__')?.value).toMatchObject({ code: 'IP_ADDRESS_INVALID' });
  });

  it('keys a text that JSON escapes, or that is not ASCII, exactly as sent', async () => {
    const sent = ['say "hi"\\', '東京', 'Zürich\n', '8.8.8.8'];
    const response = await postJson('/api/bulk/json', { ips: sent });
    const body = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(await response.arrayBuffer())) as Record<string, Json>;
    expect(Object.keys(body)).toEqual(sent);
    expect(body[sent[1] as string]).toMatchObject({ code: 'IP_ADDRESS_INVALID' });
    expect(body['8.8.8.8']).toMatchObject({ ipAddress: '8.8.8.8' });
  });

  it('answers an empty list with an empty object', async () => {
    const response = await postJson('/api/bulk/json', { ips: [] });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
  });

  it('accepts 50 addresses and refuses 51 with TOO_MANY_IPS', async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `8.8.${i}.8`);
    const ok = await postJson('/api/bulk/json', { ips: fifty });
    expect(ok.status).toBe(200);
    expect(Object.keys((await ok.json()) as Json)).toHaveLength(50);

    const refused = await postJson('/api/bulk/json', { ips: [...fifty, '1.1.1.1'] });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
    expect(await refused.json()).toMatchObject({ code: 'TOO_MANY_IPS', status: 400, instance: '/api/bulk/json' });
  });

  it.each([
    ['an empty object', {}],
    ['ips that is not an array', { ips: '8.8.8.8' }],
    ['addresses that are not strings', { ips: [8, 8, 8, 8] }],
    ['a bare array', ['8.8.8.8']],
    ['another member beside ips', { ips: ['8.8.8.8'], fields: 'all' }],
    ['null', null],
  ])('refuses %s with BODY_INVALID', async (_, body) => {
    const response = await postJson('/api/bulk/json', body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'BODY_INVALID' });
  });

  it('refuses a body that is not JSON with BODY_INVALID, and a missing body too', async () => {
    const malformed = await paidFetch('/api/bulk/json', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"ips": [' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: 'BODY_INVALID' });
    const missing = await paidFetch('/api/bulk/json', { method: 'POST' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ code: 'BODY_INVALID' });
  });

  it('refuses a body that is not application/json with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const response = await paidFetch('/api/bulk/json', { method: 'POST', headers: { 'Content-Type': type }, body: '{"ips": ["8.8.8.8"]}' });
      expect(response.status, type).toBe(415);
      expect(await response.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
    }
    const withCharset = await paidFetch('/api/bulk/json', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
      body: '{"ips": ["8.8.8.8"]}',
    });
    expect(withCharset.status).toBe(200);
  });

  it('refuses a body over 16 KiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const body = JSON.stringify({ ips: ['8.8.8.8'] }).replace('[', `[${' '.repeat(16 * 1024)}`);
    const response = await paidFetch('/api/bulk/json', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', limit: 16384 });
  });
});

describe('POST /api/bulk/xml', () => {
  it('writes response > results > one item per address, each with the fields of its JSON record', async () => {
    const sent = [...ADDRESSES, '8.8.8.8'];
    const [json, xml] = await Promise.all([postJson('/api/bulk/json', { ips: sent }), postJson('/api/bulk/xml', { ips: sent })]);
    expect(xml.status).toBe(200);
    expect(xml.headers.get('Content-Type')).toMatch(/^application\/xml/);
    const records = (await json.json()) as Record<string, Json>;
    const root = parseXml(await xml.text());
    expect(root.tagName).toBe('response');
    expect(children(root).map((e) => e.tagName)).toEqual(['results']);
    const items = children(children(root)[0] as Element);
    expect(items.map((item) => item.tagName)).toEqual(ADDRESSES.map(() => 'item'));
    expect(items.map((item) => item.getAttribute('ip'))).toEqual(ADDRESSES);

    for (const item of items) {
      const record = records[item.getAttribute('ip') as string] as Json;
      if ('code' in record) continue;
      const fields = children(item);
      const expectedNames = Object.entries(record).flatMap(([name, value]) => (Array.isArray(value) ? value.map(() => name) : [name]));
      expect(fields.map((field) => field.tagName)).toEqual(expectedNames);
      const expectedTexts = Object.values(record).flatMap((value) => (Array.isArray(value) ? value.map(String) : [String(value)]));
      expect(fields.map((field) => field.textContent)).toEqual(expectedTexts);
    }
  });

  it('writes an empty zipCode as an empty element', async () => {
    // 8.8.8.8 has no postal code in GeoLite2 (a country-level location).
    const root = parseXml(await (await postJson('/api/bulk/xml', { ips: ['8.8.8.8'] })).text());
    const item = children(children(root)[0] as Element)[0] as Element;
    const zip = children(item).filter((field) => field.tagName === 'zipCode');
    expect(zip).toHaveLength(1);
    expect(zip[0]?.textContent).toBe('');
  });

  it('writes a failed address as an item holding an RFC 9457 problem element', async () => {
    const root = parseXml(await (await postJson('/api/bulk/xml', { ips: ['10.0.0.1'] })).text());
    const item = children(children(root)[0] as Element)[0] as Element;
    expect(item.getAttribute('ip')).toBe('10.0.0.1');
    const [problem, ...rest] = children(item);
    expect(rest).toEqual([]);
    expect(problem?.localName).toBe('problem');
    expect(problem?.namespaceURI).toBe('urn:ietf:rfc:7807');
    const text = (name: string) => children(problem as Element).find((e) => e.localName === name)?.textContent;
    expect([text('status'), text('code'), text('range')]).toEqual(['400', 'IP_ADDRESS_RESERVED', '10.0.0.0/8']);
  });

  it('escapes the address as sent in the ip attribute, and writes one that is not ASCII in valid UTF-8', async () => {
    const sent = [`<a href="x">&'`, '東京', 'Zürich', '8.8.8.8'];
    const response = await postJson('/api/bulk/xml', { ips: sent });
    const root = parseXml(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(await response.arrayBuffer()));
    expect(children(children(root)[0] as Element).map((item) => item.getAttribute('ip'))).toEqual(sent);
  });

  it('writes an empty results element for an empty list', async () => {
    const root = parseXml(await (await postJson('/api/bulk/xml', { ips: [] })).text());
    expect(children(root).map((e) => e.tagName)).toEqual(['results']);
    expect(children(children(root)[0] as Element)).toEqual([]);
  });

  it('answers its problems in XML: TOO_MANY_IPS, BODY_INVALID, 415 and 413', async () => {
    const cases: [Response, number, string][] = [
      [await postJson('/api/bulk/xml', { ips: Array.from({ length: 51 }, () => '8.8.8.8') }), 400, 'TOO_MANY_IPS'],
      [await postJson('/api/bulk/xml', { ip: ['8.8.8.8'] }), 400, 'BODY_INVALID'],
      [await paidFetch('/api/bulk/xml', { method: 'POST', headers: { 'Content-Type': 'text/xml' }, body: '<ips/>' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [
        await paidFetch('/api/bulk/xml', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: ' '.repeat(20_000) }),
        413,
        'PAYLOAD_TOO_LARGE',
      ],
    ];
    for (const [response, status, code] of cases) {
      expect(response.status, code).toBe(status);
      expect(response.headers.get('Content-Type')).toMatch(/^application\/problem\+xml/);
      const problem = parseXml(await response.text());
      expect(problem.namespaceURI).toBe('urn:ietf:rfc:7807');
      expect(children(problem).find((e) => e.localName === 'code')?.textContent).toBe(code);
    }
  });
});
