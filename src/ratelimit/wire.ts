/**
 * @module How a {@link LimitDecision} crosses the RPC from a client's Durable Object to the Worker: as
 * one integer, which structured clone copies for less than an object (figures in
 * docs/decisions/0003-rate-limiter-in-memory-log.md). Mixed-radix, least significant digit first:
 * `retryAfterSeconds`, then for each policy its `remaining` and its `resetSeconds`. `allowed` is not
 * sent: a decision is allowed exactly when `retryAfterSeconds` is 0. The free plan's largest value is
 * about 2.7 · 10⁷, far inside the integers a double holds exactly.
 */
import { FREE_POLICIES, type LimitDecision, type Policy, type PolicyState } from './window.ts';

/**
 * Packs a decision made under `policies` into one integer.
 *
 * @throws {RangeError} when a value lies outside its digit's range (not a decision of `admit` under
 *   these policies) or the policies' digits do not fit in a safe integer.
 * @example packDecision(admit([], now).decision) // 27457198 (burst: 9 left, 10 s; minute: 59 left, 60 s; no wait)
 */
export function packDecision(decision: LimitDecision, policies: readonly Policy[] = FREE_POLICIES): number {
  let packed = 0;
  let capacity = 1;
  // Most significant digit first, so that the loop multiplies up.
  for (let i = policies.length - 1; i >= 0; i--) {
    const policy = policies[i] as Policy;
    const state = decision.policies[i];
    packed = digit(packed, state?.resetSeconds, policy.windowSeconds + 1);
    packed = digit(packed, state?.remaining, policy.quota + 1);
    capacity *= (policy.windowSeconds + 1) * (policy.quota + 1);
  }
  const retryRadix = longestWindowSeconds(policies) + 1;
  if (capacity * retryRadix > Number.MAX_SAFE_INTEGER + 1) throw new RangeError('these policies do not fit in one packed number');
  return digit(packed, decision.retryAfterSeconds, retryRadix);
}

/**
 * The decision that {@link packDecision} packed under the same `policies`.
 *
 * @example unpackDecision(27457198) // { allowed: true, retryAfterSeconds: 0, policies: [{ name: 'burst', remaining: 9, resetSeconds: 10 }, { name: 'minute', … }] }
 */
export function unpackDecision(packed: number, policies: readonly Policy[] = FREE_POLICIES): LimitDecision {
  const retryRadix = longestWindowSeconds(policies) + 1;
  const retryAfterSeconds = packed % retryRadix;
  let rest = (packed - retryAfterSeconds) / retryRadix;
  const states: PolicyState[] = [];
  for (const policy of policies) {
    const remaining = rest % (policy.quota + 1);
    rest = (rest - remaining) / (policy.quota + 1);
    const resetSeconds = rest % (policy.windowSeconds + 1);
    rest = (rest - resetSeconds) / (policy.windowSeconds + 1);
    states.push({ name: policy.name, remaining, resetSeconds });
  }
  return { allowed: retryAfterSeconds === 0, retryAfterSeconds, policies: states };
}

function digit(packed: number, value: number | undefined, radix: number): number {
  if (value === undefined || !Number.isInteger(value) || value < 0 || value >= radix) {
    throw new RangeError(`cannot pack ${value} as a digit below ${radix}`);
  }
  return packed * radix + value;
}

function longestWindowSeconds(policies: readonly Policy[]): number {
  let longest = 0;
  for (const policy of policies) longest = Math.max(longest, policy.windowSeconds);
  return longest;
}
