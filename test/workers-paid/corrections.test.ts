/**
 * @module Corrections on the real data, through the paid Worker's bulk lookup: the default sources built
 * with `test/fixtures/corrections/paris.csv` (81.2.69.0/24 to Paris, FR; `corrected-build.ts`) answer
 * Paris for its addresses in JSON and XML as GeoLite2 records Paris elsewhere (1.178.90.0/24, read with
 * mmdb-lib), and the source record for 81.2.70.1 beside them, each without `regionCode`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetDatabaseForTests } from '../../src/geo/load.ts';
import { CORRECTED_BUILD_DIR } from '../support/corrected-build.ts';
import { type ExpectedRecord, expectedRecord } from '../support/expected-record.ts';
import { SourceOracle } from '../support/oracle.ts';
import { postJson } from '../support/paid-fetch.ts';
import { compiledBuild, publish, publishCompiled } from '../support/publish.ts';
import { childTexts, parseXml } from '../support/xml.ts';

/** An address GeoLite2 places in Paris, at the point and zone it gives most Paris networks. */
const PARIS = '1.178.90.1';
const CORRECTED = ['81.2.69.142', '81.2.69.255'];
const UNCORRECTED = '81.2.70.1';

let expected: Map<string, Omit<ExpectedRecord, 'regionCode'>>;
beforeAll(async () => {
  const oracle = await SourceOracle.load();
  const paris = oracle.city.get(PARIS);
  if (paris?.city?.names.en !== 'Paris') throw new Error(`GeoLite2 does not place ${PARIS} in Paris`);
  const { postal: _, ...place } = paris;
  const bulk = ({ regionCode: _regionCode, ...record }: ExpectedRecord) => record;
  expected = new Map(
    CORRECTED.map((address) => {
      const source = oracle.expected(address);
      return [address, bulk(expectedRecord(address, place, { asn: source?.asn ?? '', organization: source?.asnOrganization ?? '' }) as ExpectedRecord)];
    }),
  );
  expected.set(UNCORRECTED, bulk(oracle.expected(UNCORRECTED) as ExpectedRecord));
  const { bytes, version } = await compiledBuild(CORRECTED_BUILD_DIR);
  await publish(bytes, version);
  resetDatabaseForTests();
}, 120_000);

afterAll(async () => {
  await publishCompiled();
  resetDatabaseForTests();
});

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
