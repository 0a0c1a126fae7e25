/** @module What a client asks of a lookup beyond the address: which fields of the record (docs/specification.md, 2.1), and names in which language. */
import type { LanguageIndex } from '../geo/languages.ts';

/** The fields of the IP info record, in the specification's order (docs/specification.md, 2.1). */
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
] as const;

/** A field of the record. */
export type FieldName = (typeof FIELDS)[number];

/** A set of fields: bit `i` stands for `FIELDS[i]`. */
export type FieldMask = number;

/** The index of each field in {@link FIELDS}. */
export const FIELD_INDEX = Object.fromEntries(FIELDS.map((name, index) => [name, index])) as { readonly [name in FieldName]: number };

/** The bit of each field in a {@link FieldMask}. */
const FIELD = Object.fromEntries(FIELDS.map((name, index) => [name, 1 << index])) as { readonly [name in FieldName]: number };

/** Every field: the single lookup's record. */
export const ALL_FIELDS: FieldMask = (1 << FIELDS.length) - 1;

/** The bulk lookup's record: every field but `regionCode`, which the specification leaves out of the bulk shape (docs/specification.md, 2.1). */
export const BULK_FIELDS: FieldMask = ALL_FIELDS & ~FIELD.regionCode;

/** How to render a found record: the fields, in the specification's order, and the language of names. */
export interface View {
  readonly fields: FieldMask;
  readonly language: LanguageIndex;
}

/**
 * The fields a `fields` list names: comma-separated field names, blanks around them ignored, each
 * name at most once in effect. Answers the mask, or the first name that is not a field.
 *
 * @example parseFields('cityName, countryName') // FIELD.countryName | FIELD.cityName
 * @example parseFields('city')                  // { unknown: 'city' }
 */
export function parseFields(list: string): FieldMask | { readonly unknown: string } {
  let mask = 0;
  for (const part of list.split(',')) {
    const name = part.trim();
    const bit = (FIELD as Readonly<Record<string, number>>)[name];
    if (bit === undefined || !Object.hasOwn(FIELD, name)) return { unknown: name };
    mask |= bit;
  }
  return mask;
}
