/**
 * @module What a client asks of a lookup beyond the address: which fields of the record (the
 * specification's twenty, docs/specification.md, 2.1, then the fields answered only when asked for,
 * docs/api.md), names in which language, and the instant the local-time fields answer for.
 */
import type { LanguageIndex } from '../geo/languages.ts';

/**
 * The fields of the IP info record, in the record's order: the specification's twenty (docs/specification.md,
 * 2.1), then those answered only when `fields` names them or is `all` (docs/api.md).
 */
export const FIELDS = [
  'ipVersion',
  'ipAddress',
  'latitude',
  'longitude',
  'countryName',
  'countryCode',
  'capital',
  'phoneCodes',
  'timeZones',
  'zipCode',
  'cityName',
  'regionName',
  'regionCode',
  'continent',
  'continentCode',
  'currencies',
  'languages',
  'asn',
  'asnOrganization',
  'isProxy',
  'isVpn',
  'isTor',
  'isRelay',
  'isHosting',
  'hostingProvider',
  'accuracyRadius',
  'network',
  'isEu',
  'utcOffset',
  'isDst',
  'localTime',
] as const;

/** A field of the record. */
export type FieldName = (typeof FIELDS)[number];

/** A set of fields: bit `i` stands for `FIELDS[i]` (31 fields: every mask is a non-negative int32). */
export type FieldMask = number;

/** The index of each field in {@link FIELDS}. */
export const FIELD_INDEX = Object.fromEntries(FIELDS.map((name, index) => [name, index])) as { readonly [name in FieldName]: number };

/** The bit of each field in a {@link FieldMask}. */
const FIELD = Object.fromEntries(FIELDS.map((name, index) => [name, 1 << index])) as { readonly [name in FieldName]: number };

/** The specification's twenty fields, `ipVersion` to `isProxy`: the single lookup's record without `fields`. */
export const DEFAULT_FIELDS: FieldMask = (1 << (FIELD_INDEX.isProxy + 1)) - 1;

/** The bulk lookup's record without `fields`: the twenty but `regionCode`, which the specification leaves out of the bulk shape (docs/specification.md, 2.1). */
export const BULK_FIELDS: FieldMask = DEFAULT_FIELDS & ~FIELD.regionCode;

/** Every field: what `fields=all` asks for, single or bulk. */
export const EVERY_FIELD: FieldMask = 2 ** FIELDS.length - 1;

/** The name in a `fields` list that stands for {@link EVERY_FIELD}. */
export const ALL = 'all';

/** How to render a found record: the fields, in the record's order, the language of names, and the instant of the local-time fields. */
export interface View {
  readonly fields: FieldMask;
  readonly language: LanguageIndex;
  /**
   * Milliseconds since the Unix epoch: the instant `utcOffset`, `isDst` and `localTime` answer for. A
   * route gives its request's, which a shard then renders at too; absent, the time of rendering.
   */
  readonly now?: number;
}

/**
 * The fields a `fields` list names: comma-separated field names or {@link ALL}, blanks around them
 * ignored, each name at most once in effect. Answers the mask, or the first name that is not a field.
 *
 * @example parseFields('cityName, countryName') // FIELD.countryName | FIELD.cityName
 * @example parseFields('all')                   // EVERY_FIELD
 * @example parseFields('city')                  // { unknown: 'city' }
 */
export function parseFields(list: string): FieldMask | { readonly unknown: string } {
  let mask = 0;
  for (const part of list.split(',')) {
    const name = part.trim();
    if (name === ALL) {
      mask = EVERY_FIELD;
      continue;
    }
    const bit = (FIELD as Readonly<Record<string, number>>)[name];
    if (bit === undefined || !Object.hasOwn(FIELD, name)) return { unknown: name };
    mask |= bit;
  }
  return mask;
}
