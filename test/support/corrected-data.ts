/**
 * @module What the Worker tests of corrections on the real data share, in workerd: serving the build of
 * `corrected-build.ts` as current (and the default build again after), and what an address corrected
 * to Paris should answer: GeoLite2's record of a Paris address read with mmdb-lib (the correction
 * gives no postal code), with the corrected address's own ASN.
 */
import { resetDatabaseForTests } from '../../src/geo/current-database.ts';
import { CORRECTED_BUILD_DIR } from './corrected-build.ts';
import { type ExpectedRecord, expectedRecord } from './expected-record.ts';
import type { SourceOracle } from './oracle.ts';
import { compiledBuild, publish, publishCompiled } from './publish.ts';

/** An address GeoLite2 places in Paris, at the point and zone it gives most Paris networks. */
export const PARIS = '1.178.90.1';

/** Makes the build with corrections current, and the isolate load it. */
export async function serveCorrectedBuild(): Promise<void> {
  const { bytes, version } = await compiledBuild(CORRECTED_BUILD_DIR);
  await publish(bytes, version);
  resetDatabaseForTests();
}

/** Makes the default build current again, as every other test file expects it. */
export async function serveDefaultBuild(): Promise<void> {
  await publishCompiled();
  resetDatabaseForTests();
}

/**
 * What `address` (in 81.2.69.0/24) should answer once corrected to Paris, FR.
 *
 * @throws Error when GeoLite2 does not place {@link PARIS} in Paris (the test would compare nothing).
 */
export function correctedToParis(oracle: SourceOracle, address: string): ExpectedRecord {
  const paris = oracle.city.get(PARIS);
  if (paris?.city?.names.en !== 'Paris' || paris.country?.iso_code !== 'FR') throw new Error(`GeoLite2 does not place ${PARIS} in Paris`);
  const { postal: _, ...place } = paris;
  const source = oracle.expected(address);
  return expectedRecord(address, place, { asn: source?.asn ?? '', organization: source?.asnOrganization ?? '' }) as ExpectedRecord;
}
