/**
 * @module The free plan's limits as exact sliding windows over a log of admitted requests: a request is
 * admitted when, for every policy, fewer than q admitted requests of its network lie in the w seconds
 * before it. One log holds a whole counter (an IPv4 address, or an IPv6 /48 with each request's /64:
 * `ip/client-key.ts`), so a request is decided against its /64, /56 and /48 at once. Pure: the Durable
 * Object and the isolate fallback both decide with {@link admit}.
 */

/**
 * One quota: at most `quota` requests in any `windowSeconds` from the network that `prefixLength` names.
 * `name` is the RateLimit fields' policy name.
 */
export interface Policy {
  readonly name: string;
  readonly quota: number;
  readonly windowSeconds: number;
  /** 64: the client itself (an IPv4 address, or an IPv6 /64); 56 or 48: the IPv6 network that holds the client. */
  readonly prefixLength: 64 | 56 | 48;
}

/**
 * A client's own policies (docs/specification.md, 8), shortest window first: those of an IPv4 address,
 * and the first of an IPv6 /64's. At 10 in 10 s the minute policy (60) never refuses alone, but it is
 * evaluated and reported so that other numbers work unchanged.
 */
export const CLIENT_POLICIES: readonly Policy[] = Object.freeze([
  { name: 'burst', quota: 10, windowSeconds: 10, prefixLength: 64 },
  { name: 'minute', quota: 60, windowSeconds: 60, prefixLength: 64 },
]);

/**
 * An IPv6 client's policies: its /64's, then those of the /56 and the /48 that hold it, each 8 times the
 * one before (why: docs/api.md, "The free plan's limits"). Each minute quota is six times its burst quota,
 * as the /64's is, so that a 10-second gap empties every window a later decision needs
 * (docs/decisions/0003-rate-limiter-in-memory-log.md).
 */
export const IPV6_POLICIES: readonly Policy[] = Object.freeze([
  ...CLIENT_POLICIES,
  { name: 'burst-56', quota: 80, windowSeconds: 10, prefixLength: 56 },
  { name: 'minute-56', quota: 480, windowSeconds: 60, prefixLength: 56 },
  { name: 'burst-48', quota: 640, windowSeconds: 10, prefixLength: 48 },
  { name: 'minute-48', quota: 3840, windowSeconds: 60, prefixLength: 48 },
]);

/** The policies of a client by its key's `subnet` (`ip/client-key.ts`): null for IPv4, a /64 of a /48 for IPv6. */
export function policiesOf(subnet: number | null): readonly Policy[] {
  return subnet === null ? CLIENT_POLICIES : IPV6_POLICIES;
}

/** One admitted request: its time (ms since the epoch), and the /64 of the counter's /48 that sent it (0 for IPv4). */
export interface Admitted {
  readonly at: number;
  readonly subnet: number;
}

/** Where one policy stands after a decision. */
interface PolicyState {
  readonly policy: Policy;
  /** Requests still admissible in the window ending now (0 when exhausted). */
  readonly remaining: number;
  /**
   * Whole seconds (rounded up) until the oldest request counted in the window leaves it and gives one
   * request back; 0 when the window holds none. When `remaining` is 0 this is when the policy admits again.
   */
  readonly resetSeconds: number;
}

/** The answer for one request: what the Worker needs, and all that crosses the RPC (`wire.ts`). */
export interface LimitDecision {
  readonly allowed: boolean;
  /** Whole seconds until a request would be admitted (the latest of the exhausted policies); 0 when allowed. */
  readonly retryAfterSeconds: number;
  /**
   * The policy nearest to exhaustion after this request, which the `RateLimit` field names: the fewest
   * requests left, and on a tie the slower to give one back.
   */
  readonly binding: PolicyState;
}

/** The result of {@link admit}: the decision, every policy's state after it, and the log to keep. */
export interface Admission {
  readonly decision: LimitDecision;
  /** One entry per policy, in the order of the policies. */
  readonly states: readonly PolicyState[];
  /** Admitted requests by time, ascending, pruned to the longest window; includes this one when admitted and counted. */
  readonly log: readonly Admitted[];
}

/**
 * Decides whether a request at `now` is admitted.
 *
 * @param log the counter's admitted requests by time, ascending (older entries are pruned here).
 * @param now the request's time in ms since the epoch.
 * @param options.subnet the request's client key `subnet`: null (the default) for IPv4, else its /64 in the /48.
 * @param options.policies the policies to decide by; {@link policiesOf} the subnet by default.
 * @param options.consume false to only report the state, true by default.
 * @example
 * admit([], 1_000).decision; // { allowed: true, retryAfterSeconds: 0, binding: { policy: { name: 'burst', … }, remaining: 9, resetSeconds: 10 } }
 */
export function admit(
  log: readonly Admitted[],
  now: number,
  options: { subnet?: number | null; policies?: readonly Policy[]; consume?: boolean } = {},
): Admission {
  const subnet = options.subnet ?? 0;
  const policies = options.policies ?? policiesOf(options.subnet ?? null);
  // An IPv4 counter's requests, and all of a /48's for its /48 policies, are counted whole: the log is
  // ascending, so a window's count is where it starts. The /64 and /56 policies need a pass over the
  // log, which skips other /56s' requests at once (a /56 keeps at most 480 of the /48's 3,840).
  const whole = (policy: Policy) => options.subnet === undefined || options.subnet === null || policy.prefixLength === 48;
  let longest = 0;
  for (const policy of policies) longest = Math.max(longest, policy.windowSeconds * 1000);
  const first = firstAfter(log, now - longest, 0);

  // Per policy: how many of its network's requests lie in its window, the oldest of them, and when the
  // quota-th most recent leaves the window (the request fits then).
  const counts: number[] = [];
  const oldest: number[] = [];
  const scoped: number[] = [];
  let retryAt = now;
  for (let p = 0; p < policies.length; p++) {
    const policy = policies[p] as Policy;
    counts.push(0);
    oldest.push(Number.POSITIVE_INFINITY);
    if (!whole(policy)) {
      scoped.push(p);
      continue;
    }
    const from = firstAfter(log, now - policy.windowSeconds * 1000, first);
    counts[p] = log.length - from;
    if (from < log.length) oldest[p] = (log[from] as Admitted).at;
    if (log.length - from >= policy.quota) retryAt = Math.max(retryAt, (log[log.length - policy.quota] as Admitted).at + policy.windowSeconds * 1000);
  }
  for (let i = log.length - 1; i >= first && scoped.length > 0; i--) {
    const entry = log[i] as Admitted;
    if (entry.subnet >>> 8 !== subnet >>> 8) continue;
    for (const p of scoped) {
      const policy = policies[p] as Policy;
      if ((policy.prefixLength === 64 && entry.subnet !== subnet) || entry.at <= now - policy.windowSeconds * 1000) continue;
      const count = (counts[p] as number) + 1;
      counts[p] = count;
      oldest[p] = entry.at;
      if (count === policy.quota) retryAt = Math.max(retryAt, entry.at + policy.windowSeconds * 1000);
    }
  }
  const allowed = retryAt === now;
  const counted = allowed && options.consume !== false;
  let next: readonly Admitted[] = first === 0 ? log : log.slice(first);
  if (counted) next = inserted(next, { at: now, subnet });
  const states = policies.map((policy, p): PolicyState => {
    const count = (counts[p] as number) + (counted ? 1 : 0);
    const from = counted ? Math.min(oldest[p] as number, now) : (oldest[p] as number);
    return {
      policy,
      remaining: Math.max(0, policy.quota - count),
      resetSeconds: count === 0 ? 0 : Math.max(1, Math.ceil((from + policy.windowSeconds * 1000 - now) / 1000)),
    };
  });
  return {
    decision: {
      allowed,
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((retryAt - now) / 1000)),
      binding: nearest(states),
    },
    states,
    log: next,
  };
}

/**
 * The log without the most recent admission of `subnet`: for a request that was admitted and counted,
 * but whose answer is not to count (the service failed it: `middleware.ts`). When the same client had
 * other requests admitted after it, the latest of them is taken out instead; the difference is their
 * time apart. Other clients' admissions of the same counter stay.
 *
 * @example withdraw([{ at: 1_000, subnet: 1 }, { at: 2_000, subnet: 2 }], 1) // [{ at: 2_000, subnet: 2 }]
 */
export function withdraw(log: readonly Admitted[], subnet: number | null = null): Admitted[] {
  const own = subnet ?? 0;
  const next = [...log];
  for (let i = next.length - 1; i >= 0; i--) {
    if ((next[i] as Admitted).subnet === own) {
      next.splice(i, 1);
      break;
    }
  }
  return next;
}

/** The index of the first entry of an ascending log at or after `from` whose time is later than `time`. */
function firstAfter(log: readonly Admitted[], time: number, from: number): number {
  let low = from;
  let high = log.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((log[middle] as Admitted).at > time) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** A copy of an ascending log with `entry` in its place: at the end, unless the clock went back (tests pass times out of order). */
function inserted(log: readonly Admitted[], entry: Admitted): Admitted[] {
  const next = [...log];
  let at = next.length;
  while (at > 0 && (next[at - 1] as Admitted).at > entry.at) at--;
  next.splice(at, 0, entry);
  return next;
}

/** The state nearest to exhaustion: fewest remaining, then the longest reset; the first of equals. */
function nearest(states: readonly PolicyState[]): PolicyState {
  let found = states[0];
  if (found === undefined) throw new RangeError('a decision needs at least one policy');
  for (const state of states) {
    if (state.remaining < found.remaining || (state.remaining === found.remaining && state.resetSeconds > found.resetSeconds)) found = state;
  }
  return found;
}
