/** @module Reads the values of the compact schema's maps straight from the data section: keys as small ids, strings, numbers, and references to values read later. */
import { type MmdbDecoder, newField } from '../mmdb/decoder.ts';

/** The map keys of the compact schema (`schema.ts`), numbered: a read compares small integers, not strings. */
export const KEY = {
  location: 0,
  network: 1,
  proxy: 2,
  country_code: 3,
  region: 4,
  region_code: 5,
  city: 6,
  postal_code: 7,
  latitude: 8,
  longitude: 9,
  time_zone: 10,
  asn: 11,
  organization: 12,
  region_names: 13,
  city_names: 14,
  continent_code: 15,
  accuracy_radius: 16,
  flags: 17,
  hosting_provider: 18,
} as const;
/** Any other key: stepped over. */
const OTHER_KEY = -1;
const KEY_IDS = new Map<string, number>(Object.entries(KEY));
/**
 * Key ids by the offset of the key's stored copy, for keys stored in the first 4 KiB of the data
 * section (the build writes the keys there, first; other files' keys are decoded where they are).
 */
const KEY_TABLE_SIZE = 4096;
const UNKNOWN_KEY = -2;

/**
 * The reader of one database's maps. Each read leaves where its value ends in {@link valueEnd} (or
 * {@link keyEnd}), so that a caller walks a map without allocating; no read calls another.
 */
export class MapReader {
  /** Where the value read last ends. */
  valueEnd = 0;
  /** Where the key read last by {@link keyAt} ends. */
  keyEnd = 0;
  /** A field for the caller's own reads of values. */
  readonly scratch = newField();
  private readonly key = newField();
  private readonly value = newField();
  private readonly keys = new Int8Array(KEY_TABLE_SIZE).fill(UNKNOWN_KEY);

  constructor(private readonly data: MmdbDecoder) {}

  /**
   * The id ({@link KEY}, or -1 for another key) of the map key at `offset`, decoded once per stored
   * copy: keys are pointers to one copy after their first use, so a known key costs no read of it.
   *
   * @throws MmdbFormatError when it is not a string.
   */
  keyAt(offset: number): number {
    const data = this.data;
    const target = data.target(offset);
    if (data.referenceEnd >= 0 && target < KEY_TABLE_SIZE) {
      const known = this.keys[target] as number;
      if (known !== UNKNOWN_KEY) {
        this.keyEnd = data.referenceEnd;
        return known;
      }
    }
    const field = data.field(offset, this.key);
    const id = KEY_IDS.get(data.stringOf(field)) ?? OTHER_KEY;
    if (field.start < KEY_TABLE_SIZE) this.keys[field.start] = id;
    this.keyEnd = field.next;
    return id;
  }

  /** The string at `at`. @throws MmdbFormatError when it is not a string. */
  stringAt(at: number): string {
    const field = this.data.field(at, this.value);
    this.valueEnd = field.next;
    return this.data.stringOf(field);
  }

  /** Where the value referenced at `at` is stored, to be read later or never. */
  referenceAt(at: number): number {
    const data = this.data;
    const target = data.target(at);
    this.valueEnd = data.referenceEnd >= 0 ? data.referenceEnd : data.skip(at);
    return target;
  }

  /** The number at `at`. @throws MmdbFormatError when it is not a number. */
  numberAt(at: number): number {
    const field = this.data.field(at, this.value);
    this.valueEnd = field.next;
    return this.data.numberOf(field);
  }
}
