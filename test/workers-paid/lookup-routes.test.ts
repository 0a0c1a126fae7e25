/**
 * @module The paid server's single lookup (`/api/json|xml[/{ip}]`) answers the same records as the
 * sources, with a credential; the access matrix itself is tested in access.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExpectedRecord } from '../support/expected-record.ts';
import { SourceOracle } from '../support/oracle.ts';
import { paidFetch } from '../support/paid-fetch.ts';
import { childTexts, parseXml } from '../support/xml.ts';

let oracle: SourceOracle;
beforeAll(async () => {
  oracle = await SourceOracle.load();
}, 120_000);

describe('single lookup on a paid server', () => {
  it.each(['8.8.8.8', '81.2.69.142', '2001:4860:4860::8888', '2a00:1450:4001:80b::200e'])('answers %s as the sources say, in JSON and XML', async (address) => {
    const expected = oracle.expected(address) as ExpectedRecord;
    const json = await paidFetch(`/api/json/${address}`);
    expect(json.status).toBe(200);
    expect(await json.json()).toEqual(expected);

    const xml = await paidFetch(`/api/xml/${address}`);
    expect(xml.status).toBe(200);
    const root = parseXml(await xml.text());
    expect(childTexts(root, 'ipAddress')).toEqual([address]);
    expect(childTexts(root, 'asn')).toEqual([expected.asn]);
    expect(childTexts(root, 'timeZones')).toEqual(expected.timeZones);
  });

  it('looks up the requester on /api/json and /api/xml', async () => {
    const json = await paidFetch('/api/json', { headers: { 'CF-Connecting-IP': '81.2.69.142' } });
    expect(((await json.json()) as { ipAddress: string }).ipAddress).toBe('81.2.69.142');
    const xml = await paidFetch('/api/xml', { headers: { 'CF-Connecting-IP': '81.2.69.142' } });
    expect(childTexts(parseXml(await xml.text()), 'ipAddress')).toEqual(['81.2.69.142']);
  });

  it('has no /api/v1/ routes, which belong to the free server', async () => {
    const response = await paidFetch('/api/v1/json/8.8.8.8');
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('NOT_FOUND');
  });

  it('answers lookup problems in the route format', async () => {
    const json = await paidFetch('/api/json/192.168.1.1');
    expect([json.status, ((await json.json()) as { code: string }).code]).toEqual([400, 'IP_ADDRESS_RESERVED']);
    const xml = await paidFetch('/api/xml/not-an-ip');
    expect(xml.headers.get('content-type')).toMatch(/^application\/problem\+xml/);
    expect(childTexts(parseXml(await xml.text()), 'code')).toEqual(['IP_ADDRESS_INVALID']);
  });
});
