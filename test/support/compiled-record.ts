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
  isVpn: boolean;
  isTor: boolean;
  isRelay: boolean;
  isHosting: boolean;
  hostingProvider: string;
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
    // The bits of `flags` as the schema's diagram draws them (`src/geo/schema.ts`): vpn 1, tor 2, relay 4,
    // hosting 8, proxy 16; isProxy is any of them but hosting.
    isProxy: ((record.flags ?? 0) & (1 | 2 | 4 | 16)) !== 0,
    isVpn: ((record.flags ?? 0) & 1) !== 0,
    isTor: ((record.flags ?? 0) & 2) !== 0,
    isRelay: ((record.flags ?? 0) & 4) !== 0,
    isHosting: ((record.flags ?? 0) & 8) !== 0,
    hostingProvider: record.hosting_provider ?? '',
  };
}
