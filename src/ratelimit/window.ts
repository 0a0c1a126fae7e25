/**
 * @module The free plan's limits as exact sliding windows over a log of admitted requests: a request is
 * admitted when fewer than q admitted requests lie in the w seconds before it, which holds for every
 * window, not only fixed buckets; only admitted requests are logged. At 10 in 10 s the minute policy
 * (60) never refuses alone, but is evaluated and reported so that other numbers work unchanged. Pure:
 * the Durable Object and the isolate fallback both decide with {@link admit}.
 */

/** One quota: at most `quota` requests in any `windowSeconds`. `name` is the RateLimit field's policy name. */
export interface Policy {
  readonly name: string;
  readonly quota: number;
  readonly windowSeconds: number;
}

/** The free plan's policies (docs/specification.md, 8), shortest window first. */
export const FREE_POLICIES: readonly Policy[] = Object.freeze([
  { name: 'burst', quota: 10, windowSeconds: 10 },
  { name: 'minute', quota: 60, windowSeconds: 60 },
]);

/** Where one policy stands after a decision. */
export interface PolicyState {
  readonly name: string;
  /** Requests still admissible in the window ending now (0 when exhausted). */
  readonly remaining: number;
  /**
   * Whole seconds (rounded up) until the oldest request counted in the window leaves it and gives one
   * request back; 0 when the window holds none. When `remaining` is 0 this is when the policy admits again.
   */
  readonly resetSeconds: number;
}

/** The answer for one request. Plain data, so that it crosses Durable Object RPC unchanged. */
export interface LimitDecision {
  readonly allowed: boolean;
  /** Whole seconds until a request would be admitted (the latest of the exhausted policies); 0 when allowed. */
  readonly retryAfterSeconds: number;
  /** One entry per policy, in the order of the policies. */
  readonly policies: readonly PolicyState[];
}

/** The result of {@link admit}: the decision and the log to keep. */
export interface Admission {
  readonly decision: LimitDecision;
  /** Admitted request times (ms since the epoch), ascending, pruned to the longest window; includes `now` when admitted. */
  readonly log: number[];
}

/**
 * Decides whether a request at `now` is admitted.
 *
 * @param log admitted request times in ms since the epoch, ascending (older entries are pruned here).
 * @param now the request's time in ms since the epoch.
 * @param options.consume false to only report the state (for answers that are not rate-limited), true by default.
 * @example
 * admit([], 1_000).decision; // { allowed: true, retryAfterSeconds: 0, policies: [{ name: 'burst', remaining: 9, resetSeconds: 10 }, …] }
 */
export function admit(log: readonly number[], now: number, options: { consume?: boolean; policies?: readonly Policy[] } = {}): Admission {
  const policies = options.policies ?? FREE_POLICIES;
  const longest = Math.max(...policies.map((policy) => policy.windowSeconds)) * 1000;
  const kept = log.filter((at) => at > now - longest);
  let retryAt = now;
  for (const policy of policies) {
    const inWindow = kept.filter((at) => at > now - policy.windowSeconds * 1000);
    if (inWindow.length >= policy.quota) {
      // The request fits once the quota-th most recent admission has left the window.
      const blocker = inWindow[inWindow.length - policy.quota] ?? now;
      retryAt = Math.max(retryAt, blocker + policy.windowSeconds * 1000);
    }
  }
  const allowed = retryAt === now;
  const next = allowed && options.consume !== false ? [...kept, now].sort((a, b) => a - b) : kept;
  return {
    decision: {
      allowed,
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((retryAt - now) / 1000)),
      policies: policies.map((policy) => stateOf(policy, next, now)),
    },
    log: next,
  };
}

/**
 * The log without its most recent admission: for a request that was admitted and counted, but whose
 * answer is not to count (the service failed it: `middleware.ts`). When other requests of the client
 * were admitted after it, the latest of them is taken out instead; the difference is their time apart.
 *
 * @example withdraw([1_000, 2_000]) // [1_000]
 */
export function withdraw(log: readonly number[]): number[] {
  return log.slice(0, -1);
}

function stateOf(policy: Policy, log: readonly number[], now: number): PolicyState {
  const inWindow = log.filter((at) => at > now - policy.windowSeconds * 1000);
  const oldest = inWindow[0];
  return {
    name: policy.name,
    remaining: Math.max(0, policy.quota - inWindow.length),
    resetSeconds: oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + policy.windowSeconds * 1000 - now) / 1000)),
  };
}
