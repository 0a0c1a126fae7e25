/** @module What the usage tests expect to be counted, from the requests they sent (docs/api.md, "Usage and quotas"), not from the service's code. */

/** A request a test sent: a problem (4xx), or a success with its lookups. */
export interface CountedRequest {
  readonly problem: boolean;
  readonly lookups: number;
}

/** Sums by a key: successful requests and their lookups, and problems. */
export type Sums = Record<string, { requests: number; lookups: number; problems: number }>;

/** What `sent` should count, summed by `keyOf`. */
export function expectedSums<T extends CountedRequest>(sent: readonly T[], keyOf: (request: T) => string): Sums {
  const sums: Sums = {};
  for (const request of sent) {
    const key = keyOf(request);
    const sum = sums[key] ?? { requests: 0, lookups: 0, problems: 0 };
    sums[key] = sum;
    if (request.problem) {
      sum.problems += 1;
    } else {
      sum.requests += 1;
      sum.lookups += request.lookups;
    }
  }
  return sums;
}
