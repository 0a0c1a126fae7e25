/**
 * @module What each leaf of the overlay costs a shard's file, for the split (`split.ts`): the data parts
 * (record, location, names arrays, routing facts) a leaf reaches, and each part's size as the data
 * section writes it in a file of many. Sizes are estimates: each part's own encoding, without the
 * deduplication that a file's writer does.
 */
import type { StoredLocation, StoredNames } from '../src/geo/schema.ts';
import { NONE, type Parts } from './combinations.ts';
import { DataSectionWriter, MmdbPointer, type MmdbValue } from './mmdb/data-section.ts';
import type { LeafParts } from './split.ts';
import { recordMembers, STORED_KEYS, toStored } from './stored-values.ts';

/**
 * The data parts each leaf id (a combination of `combos`) reaches, and their sizes, for `splitRanges`
 * (`split.ts`). A record's flags are written in the record itself, so they count in its size.
 */
export function leafParts(parts: Parts): LeafParts {
  const { combos, locations, networks } = parts;
  const records = combos.location.length;
  const locationPart = (index: number) => records + index;
  const networkPart = (index: number) => records + locations.values.length + index;
  const namesParts = new Map<StoredNames, number>();
  const namesPart = (names: StoredNames) => {
    let part = namesParts.get(names);
    if (part === undefined) {
      part = records + locations.values.length + networks.values.length + namesParts.size;
      namesParts.set(names, part);
    }
    return part;
  };
  const partStart = new Int32Array(records + 1);
  const partList: number[] = [];
  for (let id = 0; id < records; id++) {
    partStart[id] = partList.length;
    partList.push(id);
    const location = combos.location[id] as number;
    const network = combos.network[id] as number;
    if (location !== NONE) {
      partList.push(locationPart(location));
      const { region_names, city_names } = locations.values[location] as StoredLocation;
      if (region_names) partList.push(namesPart(region_names));
      if (city_names) partList.push(namesPart(city_names));
    }
    if (network !== NONE) partList.push(networkPart(network));
  }
  partStart[records] = partList.length;

  // Each part's size as the data section writes it: after the keys, which it points to, and after the
  // parts before it, whose strings it points to as a file of many of them does.
  const { writer: sizes, far } = sizingWriter();
  const partBytes = new Float64Array(records + locations.values.length + networks.values.length + namesParts.size);
  // Records of one shape differ in their pointers and in numbers of the same size only: each shape is
  // sized once, on a writer of its own. A shape: which members, and the bytes of the radius's value.
  const shapes = new Map<string, number>();
  for (let id = 0; id < records; id++) {
    const radius = combos.radius[id] as number;
    const flagsId = combos.flags[id] as number;
    const provider = flagsId !== NONE && parts.flagSets.values[flagsId]?.hosting_provider !== undefined;
    const shape = `${combos.location[id] !== NONE},${combos.network[id] !== NONE},${radius === 0 ? 0 : radius < 256 ? 1 : 2},${flagsId !== NONE},${provider}`;
    let bytes = shapes.get(shape);
    if (bytes === undefined) {
      const sizing = sizingWriter();
      // A provider's name is one string that many records point to: sized as a pointer far away.
      const record = recordMembers(parts, id, {
        location: combos.location[id] === NONE ? undefined : sizing.far,
        network: combos.network[id] === NONE ? undefined : sizing.far,
        provider: sizing.far,
      }) as MmdbValue;
      bytes = bytesOf(sizing.writer, record);
      shapes.set(shape, bytes);
    }
    partBytes[id] = bytes;
  }
  locations.values.forEach((location, index) => {
    const stored = toStored(location);
    if (location.region_names) stored.region_names = far;
    if (location.city_names) stored.city_names = far;
    partBytes[locationPart(index)] = bytesOf(sizes, stored);
  });
  networks.values.forEach((network, index) => {
    partBytes[networkPart(index)] = bytesOf(sizes, network as MmdbValue);
  });
  for (const [names, part] of namesParts) partBytes[part] = bytesOf(sizes, names);
  return { partStart, partList: Int32Array.from(partList), partBytes };
}

/**
 * A data section writer for sizing parts: the keys first, as every file's section starts, then a
 * mebibyte of filler and a value that `far` points to, 4 bytes as a pointer into a file of megabytes is.
 */
function sizingWriter(): { writer: DataSectionWriter; far: MmdbPointer } {
  const writer = new DataSectionWriter();
  for (const key of STORED_KEYS) writer.write(key);
  writer.write('.'.repeat(1 << 20));
  return { writer, far: new MmdbPointer(writer.write('far')) };
}

/** The bytes that writing `value` adds to `writer`'s section. */
function bytesOf(writer: DataSectionWriter, value: MmdbValue): number {
  const before = writer.size;
  writer.write(value);
  return writer.size - before;
}
