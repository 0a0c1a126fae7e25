/**
 * @module Reads a record of a compiled service database with mmdb-lib, a reader independent of the
 * Worker's (`src/geo/database.ts`), in the compact schema's stored shape (`src/geo/schema.ts`).
 */
import { Reader } from 'mmdb-lib';
import type { StoredRecord } from '../../src/geo/schema.ts';

/** The facts the data tests compare, with the schema's empty values for what the record lacks. */
export interface CompiledFacts {
  countryCode: string;
  cityName: string;
  asn: number;
  asnOrganization: string;
  isProxy: boolean;
}

/** The facts of `address` in the compiled database `bytes`, or null when the database has no record for it. */
export function compiledFacts(bytes: Buffer, address: string): CompiledFacts | null {
  // mmdb-lib types its answers as MaxMind's schemas; a compiled record has the compact one.
  const record = new Reader(bytes).get(address) as unknown as StoredRecord | null;
  if (record === null) return null;
  return {
    countryCode: record.location?.country_code ?? '',
    cityName: record.location?.city ?? '',
    asn: record.network?.asn ?? 0,
    asnOrganization: record.network?.organization ?? '',
    // The flags that make isProxy true (`src/geo/schema.ts`): vpn 1, tor 2, relay 4, proxy 16; not hosting (8).
    isProxy: ((record.flags ?? 0) & (1 | 2 | 4 | 16)) !== 0,
  };
}
