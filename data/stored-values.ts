/**
 * @module How the compact schema's values go into a data section (`src/geo/schema.ts`): the keys of its
 * maps, which every file's section holds first, a location as the value written (its coordinates as
 * int32), and a record's members.
 */
import type { StoredLocation, StoredNetwork, StoredRecord } from '../src/geo/schema.ts';
import { NONE, type Parts } from './combinations.ts';
import type { MmdbPointer, MmdbValue } from './mmdb/data-section.ts';
import { mmdbType } from './mmdb/data-section.ts';

/** The keys of every map of the compact schema, written first of the data section (`proxy`, of schema 3, is read but no longer written). */
export const STORED_KEYS = [
  'location',
  'network',
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
  'accuracy_radius',
  'flags',
  'hosting_provider',
] as const satisfies readonly (keyof StoredRecord | keyof StoredLocation | keyof StoredNetwork)[];

/**
 * A location as the data section writes it: coordinates are int32 (1e-4 degree); everything else keeps
 * its inferred type. The English keys come first, in the order of schema 1, then the names arrays.
 */
export function toStored(location: StoredLocation): Record<string, MmdbValue> {
  const value: Record<string, MmdbValue> = {};
  for (const [key, v] of Object.entries(location)) {
    value[key] = key === 'latitude' || key === 'longitude' ? mmdbType.int32(v as number) : (v as MmdbValue);
  }
  return value;
}

/**
 * The record of combination `id` as the data section writes it (the stored shape of `StoredRecord`):
 * its location and network as the pointers given (absent: none), its accuracy radius and flags as
 * uint16, its hosting provider's name as the string, or as `provider` where given (a pointer to it).
 */
export function recordMembers(
  { combos, flagSets }: Parts,
  id: number,
  pointers: { readonly location: MmdbPointer | undefined; readonly network: MmdbPointer | undefined; readonly provider?: MmdbPointer },
): { [K in keyof StoredRecord]?: MmdbValue } {
  const record: { [K in keyof StoredRecord]?: MmdbValue } = {};
  if (pointers.location) record.location = pointers.location;
  if (pointers.network) record.network = pointers.network;
  const radius = combos.radius[id] as number;
  if (radius > 0) record.accuracy_radius = mmdbType.uint16(radius);
  const flagsId = combos.flags[id] as number;
  const flags = flagsId === NONE ? undefined : flagSets.values[flagsId];
  if (flags) {
    record.flags = mmdbType.uint16(flags.flags);
    if (flags.hosting_provider) record.hosting_provider = pointers.provider ?? flags.hosting_provider;
  }
  return record;
}
