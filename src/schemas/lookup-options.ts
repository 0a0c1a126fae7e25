/** @module The query parameters of the lookup routes (`lang`, `fields`) as zod schemas: validated in the routes' handlers (`routes/validate.ts`, a failure mapped by `routes/hooks.ts`) and documented with their values. */
import { z } from '@hono/zod-openapi';
import { LANGUAGES, languageIndex } from '../geo/languages.ts';
import { ALL, FIELD_INDEX, FIELDS, parseFields } from '../lookup/fields.ts';

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
    context.addIssue({
      code: 'custom',
      message: `${JSON.stringify(mask.unknown)} is not a field of the record; the fields are ${FIELDS.join(', ')}, and ${ALL} stands for every one.`,
    });
    return z.NEVER;
  })
  .optional();

/** The specification's twenty fields, and those answered only when asked for, as the descriptions list them. */
const TWENTY = FIELDS.slice(0, FIELD_INDEX.isProxy + 1).join(', ');
const EXTRA = FIELDS.slice(FIELD_INDEX.isProxy + 1).join(', ');

/** The query of a single lookup: `lang` and `fields`. */
export const LookupQuerySchema = z.object({
  lang,
  fields: fieldsParameter.openapi({
    param: { name: 'fields', in: 'query' },
    description: `Comma-separated record fields: the answer holds exactly those, in the record's order, in the same JSON or XML form. The specification's twenty (${TWENTY}) are the default; ${EXTRA} are answered only when named here. \`${ALL}\` stands for every field: the twenty, then the others in that order. An unknown name: \`FIELDS_INVALID\`.`,
    example: 'countryName,cityName,isVpn,localTime',
  }),
});

/** The query of a bulk lookup: as {@link LookupQuerySchema}, where `regionCode` is left out unless `fields` names it. */
export const BulkQuerySchema = z.object({
  lang,
  fields: fieldsParameter.openapi({
    param: { name: 'fields', in: 'query' },
    description: `Comma-separated record fields: each record holds exactly those, in the record's order. Default: the specification's twenty (${TWENTY}) but \`regionCode\`, which the specification leaves out of the bulk shape; \`regionCode\` is in a bulk record only when \`fields\` names it, and ${EXTRA} only when named here. \`${ALL}\` stands for every field, \`regionCode\` included. Problem objects are whole whatever \`fields\` says. An unknown name: \`FIELDS_INVALID\`.`,
    example: 'countryCode,regionCode,cityName',
  }),
});

/** The query of the distance route: `lang` (for `city` and `country`). */
export const DistanceQuerySchema = z.object({ lang });
