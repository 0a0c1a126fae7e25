/** @module The problem of each lookup failure, one exhaustive switch that the lookup routes and the home page share: answered, raised, or written as a bulk item. */
import { ProblemError } from '../errors/problem.ts';
import type { Problem } from '../errors/render.ts';
import { RETRY_AFTER_SECONDS } from '../geo/retry-after.ts';
import { rangeWithArticle } from '../ip/special-ranges.ts';
import type { LookupFailure } from '../lookup/pipeline.ts';

/**
 * The problem of a lookup failure, as its code, detail and extensions: `IP_ADDRESS_INVALID`,
 * `IP_ADDRESS_RESERVED` (with `range` and `rfc`), `IP_ADDRESS_NOT_FOUND` (an address the data does
 * not cover, or, for distance, one it has no position for), or `DATA_UNAVAILABLE` (with `Retry-After`:
 * the shard of a sharded database that holds the address cannot answer). A bulk answer writes it as an item
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
      const { cidr, rfc } = failure.range;
      return {
        code: 'IP_ADDRESS_RESERVED',
        detail: `${prefix}${failure.address} is in ${cidr}, ${rangeWithArticle(failure.range)} (${rfc}).`,
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
    case 'unavailable':
      return {
        code: 'DATA_UNAVAILABLE',
        detail: `${prefix}The geolocation data for ${failure.address} cannot be read at the moment. Try again shortly.`,
        options: { extensions, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
      };
    default:
      return failure satisfies never;
  }
}

/** The {@link lookupProblem} of a failure, raised: a {@link ProblemError} for the app's error handler. */
export function problemOf(failure: LookupFailure, side?: 'from' | 'to'): ProblemError {
  const { code, detail, options } = lookupProblem(failure, side);
  return new ProblemError(code, detail, options);
}
