/** @module The query parameters of the lookup routes (`lang`, `fields`) as zod schemas: validated through the app's one hook and documented with their values. */
import { z } from '@hono/zod-openapi';
import { LANGUAGES, languageIndex } from '../geo/languages.ts';
import { FIELDS, parseFields } from '../lookup/fields.ts';

/** `lang`: one of the languages, parsed into its index (absent: English). */
const lang = z
  .enum(LANGUAGES)
  .transform(languageIndex)
  .optional()
  .openapi({
    param: { name: 'lang', in: 'query' },
    description: `Language of \`countryName\`, \`regionName\`, \`cityName\` and \`continent\` (MaxMind's codes); a name the data lacks in that language is English. Default \`en\`. Another value: \`LANGUAGE_UNSUPPORTED\`.`,
    example: 'de',
  });

/** `fields`: a list of record fields, parsed into their mask; an unknown name fails with a message that names it. */
const fieldsParameter = z
  .string()
  .transform((list, context) => {
    const mask = parseFields(list);
    if (typeof mask === 'number') return mask;
    context.addIssue({ code: 'custom', message: `${JSON.stringify(mask.unknown)} is not a field of the record; the fields are ${FIELDS.join(', ')}.` });
    return z.NEVER;
  })
  .optional();

/** The query of a single lookup: `lang` and `fields`. */
export const LookupQuerySchema = z.object({
  lang,
  fields: fieldsParameter.openapi({
    param: { name: 'fields', in: 'query' },
    description: `Comma-separated record fields (${FIELDS.join(', ')}): the answer holds exactly those, in the record's order, in the same JSON or XML form. Default: every field. An unknown name: \`FIELDS_INVALID\`.`,
    example: 'countryName,cityName',
  }),
});

/** The query of a bulk lookup: as {@link LookupQuerySchema}, where `regionCode` is left out unless `fields` names it. */
export const BulkQuerySchema = z.object({
  lang,
  fields: fieldsParameter.openapi({
    param: { name: 'fields', in: 'query' },
    description: `Comma-separated record fields (${FIELDS.join(', ')}): each record holds exactly those, in the record's order. Default: every field but \`regionCode\`, which the specification leaves out of the bulk shape; \`regionCode\` is in a bulk record only when \`fields\` names it. Problem objects are whole whatever \`fields\` says. An unknown name: \`FIELDS_INVALID\`.`,
    example: 'countryCode,regionCode,cityName',
  }),
});

/** The query of the distance route: `lang` (for `city` and `country`). */
export const DistanceQuerySchema = z.object({ lang });
