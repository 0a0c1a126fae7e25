/**
 * @module Corrections on the real data, through the paid Worker's bulk lookup: the default sources built
 * with `test/fixtures/corrections/paris.csv` (81.2.69.0/24 to Paris, FR; `corrected-build.ts`) answer
 * Paris for its addresses in JSON and XML as GeoLite2 records Paris elsewhere (1.178.90.0/24, read with
 * mmdb-lib), and the source record for 81.2.70.1 beside them, each without `regionCode`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { correctedToParis, serveCorrectedBuild, serveDefaultBuild } from '../support/corrected-data.ts';
import type { ExpectedRecord } from '../support/expected-record.ts';
import { SourceOracle } from '../support/oracle.ts';
import { postJson } from '../support/paid-fetch.ts';
import { childTexts, parseXml } from '../support/xml.ts';

const CORRECTED = ['81.2.69.142', '81.2.69.255'];
const UNCORRECTED = '81.2.70.1';

let expected: Map<string, Omit<ExpectedRecord, 'regionCode'>>;
beforeAll(async () => {
  const oracle = await SourceOracle.load();
  const bulk = ({ regionCode: _regionCode, ...record }: ExpectedRecord) => record;
  expected = new Map(CORRECTED.map((address) => [address, bulk(correctedToParis(oracle, address))]));
  expected.set(UNCORRECTED, bulk(oracle.expected(UNCORRECTED) as ExpectedRecord));
  await serveCorrectedBuild();
}, 120_000);

afterAll(serveDefaultBuild);

describe('bulk lookup of corrected addresses', () => {
  const ips = [...CORRECTED, UNCORRECTED];

  it('answers Paris for the corrected prefix and the source record beside it, in JSON', async () => {
    const response = await postJson('/api/bulk/json', { ips });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    for (const ip of ips) expect(body[ip], ip).toEqual(expected.get(ip));
    expect(body['81.2.69.142']).toMatchObject({ cityName: 'Paris', countryCode: 'FR' });
  });

  it('answers the same in XML', async () => {
    const xml = parseXml(await (await postJson('/api/bulk/xml', { ips })).text());
    const items = Array.from(xml.getElementsByTagName('item'));
    expect(items.map((item) => item.getAttribute('ip'))).toEqual(ips);
    for (const item of items) {
      const ip = item.getAttribute('ip') ?? '';
      for (const [field, value] of Object.entries(expected.get(ip) ?? {})) {
        expect(childTexts(item, field), `${ip} ${field}`).toEqual(Array.isArray(value) ? value.map(String) : [String(value)]);
      }
    }
  });
});
