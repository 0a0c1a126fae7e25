/**
 * @module How a build lays out its data section (`src/geo/schema.ts` reads it): every map key first,
 * then each names array once, then each location and routing fact once, most pointed-to first, then
 * the records, which hold pointers only. The order decides how long each pointer is, and so the size.
 */

import type { StoredNames } from '../src/geo/schema.ts';
import type { Parts } from './combinations.ts';
import { DataSectionWriter, MmdbPointer, type MmdbValue } from './mmdb/data-section.ts';
import { recordMembers, STORED_KEYS, toStored } from './stored-values.ts';

/**
 * The data section of the records `leafIds` (combination ids of `parts`) and of what they point to.
 *
 * @returns the writer, and each record's offset in it by combination id (what the tree's leaves hold).
 */
export function writeDataSection(parts: Parts, leafIds: ReadonlySet<number>): { data: DataSectionWriter; offsets: Map<number, number> } {
  const { combos, locations, networks } = parts;
  const data = new DataSectionWriter();
  const offsets = new Map<number, number>();
  const ids = [...leafIds].sort((a, b) => a - b);
  // Locations and routing facts before the records, each once: every record then holds pointers only,
  // so a reader finds a record's parts without walking over a map written in its middle. Counted by the
  // records that point to each, for `mostUsedFirst`.
  const uses = { locations: new Map<number, number>(), networks: new Map<number, number>() };
  for (const id of ids) {
    countUse(uses.locations, combos.location[id] as number);
    countUse(uses.networks, combos.network[id] as number);
  }
  // Every map key comes first of all, so that the pointers to them are the shortest (2 bytes) and a
  // reader finds them all at the start (src/geo/database.ts recognises keys by their offset).
  for (const key of STORED_KEYS) data.write(key);
  // Then the names arrays, each once, so that a location holds a pointer to its arrays and is told
  // apart from the others by that pointer rather than by the arrays' contents.
  const arrays = new Map<StoredNames, MmdbPointer>();
  const pointerTo = (names: StoredNames): MmdbPointer => {
    let pointer = arrays.get(names);
    if (pointer === undefined) {
      pointer = new MmdbPointer(data.write(names));
      arrays.set(names, pointer);
    }
    return pointer;
  };
  const locationOffsets = new Map<number, number>();
  const networkOffsets = new Map<number, number>();
  for (const { kind, index } of mostUsedFirst(uses)) {
    if (kind === 'networks') {
      const network = networks.values[index];
      if (network !== undefined) networkOffsets.set(index, data.write(network as MmdbValue));
      continue;
    }
    const location = locations.values[index];
    if (location === undefined) continue;
    const stored = toStored(location);
    if (location.region_names) stored.region_names = pointerTo(location.region_names);
    if (location.city_names) stored.city_names = pointerTo(location.city_names);
    locationOffsets.set(index, data.write(stored));
  }
  for (const id of ids) {
    const locationOffset = locationOffsets.get(combos.location[id] as number);
    const networkOffset = networkOffsets.get(combos.network[id] as number);
    // The stored shape of StoredRecord, its parts as pointers to their one copy.
    const record = recordMembers(parts, id, {
      location: locationOffset === undefined ? undefined : new MmdbPointer(locationOffset),
      network: networkOffset === undefined ? undefined : new MmdbPointer(networkOffset),
    });
    offsets.set(id, data.write(record));
  }
  return { data, offsets };
}

function countUse(uses: Map<number, number>, index: number): void {
  uses.set(index, (uses.get(index) ?? 0) + 1);
}

/**
 * The locations and networks (ids, with the number of records pointing to each) in the order the data
 * section takes them: most pointed-to first, then locations before networks, then by id, so that a build
 * is reproducible. A pointer takes 2 bytes to the first 2 KiB of the section, 3 to its first 526,336
 * bytes and 4 past them (MaxMind-DB-spec.md, "Pointer - 1"): the parts that most records point to are
 * the ones to have there (docs/hot-path.md, "Schema 4").
 */
function mostUsedFirst(uses: {
  readonly locations: ReadonlyMap<number, number>;
  readonly networks: ReadonlyMap<number, number>;
}): { kind: 'locations' | 'networks'; index: number; count: number }[] {
  const parts = [
    ...[...uses.locations].map(([index, count]) => ({ kind: 'locations' as const, index, count })),
    ...[...uses.networks].map(([index, count]) => ({ kind: 'networks' as const, index, count })),
  ];
  return parts.sort((a, b) => b.count - a.count || (a.kind === b.kind ? a.index - b.index : a.kind === 'locations' ? -1 : 1));
}
