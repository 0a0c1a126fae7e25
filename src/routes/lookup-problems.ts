/** @module What the lookup routes share: the problem of each lookup failure (one exhaustive switch), and the view a parsed query asks for. */
import { ProblemError } from '../errors/problem.ts';
import type { Problem } from '../errors/render.ts';
import { ENGLISH, type LanguageIndex } from '../geo/languages.ts';
import type { FieldMask, View } from '../lookup/fields.ts';
import type { LookupFailure } from '../lookup/pipeline.ts';

/**
 * The problem of a lookup failure, as its code, detail and extensions: `IP_ADDRESS_INVALID`,
 * `IP_ADDRESS_RESERVED` (with `range` and `rfc`), or `IP_ADDRESS_NOT_FOUND` (an address the data does
 * not cover, or, for distance, one it has no position for). A bulk answer writes it as an item
 * (`problemBody`), the single lookup answers it (`problemAnswer`), and distance raises it
 * ({@link problemOf}: its typed JSON route takes a problem raised, not a plain Response).
 *
 * @param side for distance: which address failed; the detail starts with it and the problem carries it.
 */
export function lookupProblem(failure: LookupFailure, side?: 'from' | 'to'): Problem {
  const prefix = side === undefined ? '' : `${side}: `;
  const extensions = side === undefined ? {} : { side };
  switch (failure.kind) {
    case 'invalid':
      return { code: 'IP_ADDRESS_INVALID', detail: `${prefix}The value is not a valid IPv4 or IPv6 address.`, options: { extensions } };
    case 'reserved': {
      const { cidr, description, rfc } = failure.range;
      return {
        code: 'IP_ADDRESS_RESERVED',
        detail: `${prefix}${failure.address} is in ${cidr}, a ${description} (${rfc}).`,
        options: { extensions: { range: cidr, rfc, ...extensions } },
      };
    }
    case 'not-found':
      return {
        code: 'IP_ADDRESS_NOT_FOUND',
        detail: `${prefix}${failure.address} is a public address that the geolocation data does not cover.`,
        options: { extensions },
      };
    case 'no-location':
      return { code: 'IP_ADDRESS_NOT_FOUND', detail: `${prefix}the data has no position for ${failure.address}.`, options: { extensions } };
    default:
      return failure satisfies never;
  }
}

/** The {@link lookupProblem} of a failure, raised: a {@link ProblemError} for the app's error handler. */
export function problemOf(failure: LookupFailure, side?: 'from' | 'to'): ProblemError {
  const { code, detail, options } = lookupProblem(failure, side);
  return new ProblemError(code, detail, options);
}

/**
 * The view of a query that the route's schema has parsed (`lang` a language's index, `fields` a field
 * mask; see `schemas/lookup-options.ts`), with `defaults` for absent `fields` and English for absent `lang`.
 */
export function viewOfQuery(query: { readonly lang?: LanguageIndex | undefined; readonly fields?: FieldMask | undefined }, defaults: FieldMask): View {
  return { fields: query.fields ?? defaults, language: query.lang ?? ENGLISH };
}
