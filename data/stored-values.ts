/**
 * @module How the compact schema's values go into a data section (`src/geo/schema.ts`): the keys of its
 * maps, which every file's section holds first, and a location as the value written, its coordinates
 * as int32.
 */
import type { StoredLocation, StoredNetwork, StoredRecord } from '../src/geo/schema.ts';
import { type MmdbValue, mmdbType } from './mmdb/data-section.ts';

/** The keys of every map of the compact schema, written first of the data section. */
export const STORED_KEYS = [
  'location',
  'network',
  'proxy',
  'country_code',
  'region',
  'region_code',
  'city',
  'postal_code',
  'latitude',
  'longitude',
  'time_zone',
  'region_names',
  'city_names',
  'asn',
  'organization',
  'continent_code',
] as const satisfies readonly (keyof StoredRecord | keyof StoredLocation | keyof StoredNetwork)[];

/**
 * A location as the data section writes it: coordinates are int32 (1e-4 degree); everything else keeps
 * its inferred type. The English keys come
 * first, in the order of schema 1, then the names arrays.
 */
export function toStored(location: StoredLocation): Record<string, MmdbValue> {
  const value: Record<string, MmdbValue> = {};
  for (const [key, v] of Object.entries(location)) {
    value[key] = key === 'latitude' || key === 'longitude' ? mmdbType.int32(v as number) : (v as MmdbValue);
  }
  return value;
}
