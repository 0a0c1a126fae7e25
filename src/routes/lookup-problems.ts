/** @module What the lookup routes share: the problem of each lookup failure (one exhaustive switch), and the view a validated query asks for. */
import { ProblemError } from '../errors/problem.ts';
import type { Language } from '../geo/languages.ts';
import { type FieldMask, type View, viewOf } from '../lookup/fields.ts';
import type { LookupFailure } from '../lookup/pipeline.ts';

/**
 * The problem of a lookup failure: `IP_ADDRESS_INVALID`, `IP_ADDRESS_RESERVED` (with `range` and
 * `rfc`), or `IP_ADDRESS_NOT_FOUND` (an address the data does not cover, or, for distance, one it
 * has no position for).
 *
 * @param side for distance: which address failed; the detail starts with it and the problem carries it.
 */
export function problemOf(failure: LookupFailure, side?: 'from' | 'to'): ProblemError {
  const prefix = side === undefined ? '' : `${side}: `;
  const sided = side === undefined ? {} : { side };
  switch (failure.kind) {
    case 'invalid':
      return new ProblemError('IP_ADDRESS_INVALID', `${prefix}The value is not a valid IPv4 or IPv6 address.`, { extensions: sided });
    case 'reserved': {
      const { cidr, description, rfc } = failure.range;
      return new ProblemError('IP_ADDRESS_RESERVED', `${prefix}${failure.address} is in ${cidr}, a ${description} (${rfc}).`, {
        extensions: { range: cidr, rfc, ...sided },
      });
    }
    case 'not-found':
      return new ProblemError('IP_ADDRESS_NOT_FOUND', `${prefix}${failure.address} is a public address that the geolocation data does not cover.`, {
        extensions: sided,
      });
    case 'no-location':
      return new ProblemError('IP_ADDRESS_NOT_FOUND', `${prefix}the data has no position for ${failure.address}.`, { extensions: sided });
    default:
      return failure satisfies never;
  }
}

/**
 * The view of a query that the route's schema has validated (`lang` one of the languages, `fields` a
 * list of fields), with `defaults` for absent `fields`.
 *
 * @throws ProblemError `LANGUAGE_UNSUPPORTED` or `FIELDS_INVALID` should the query not have been validated.
 */
export function viewOfQuery(query: { readonly lang?: Language | undefined; readonly fields?: string | undefined }, defaults: FieldMask): View {
  const view = viewOf(query.lang, query.fields, defaults);
  if ('unknownLanguage' in view) throw new ProblemError('LANGUAGE_UNSUPPORTED', `lang: ${JSON.stringify(view.unknownLanguage)} is not supported.`);
  if ('unknownField' in view) throw new ProblemError('FIELDS_INVALID', `fields: ${JSON.stringify(view.unknownField)} is not a field of the record.`);
  return view;
}
