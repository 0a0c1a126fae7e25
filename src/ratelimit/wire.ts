/**
 * @module How a {@link LimitDecision} crosses the RPC from a counter's Durable Object to the Worker: as
 * one integer, which structured clone copies for less than an object (figures in
 * docs/decisions/0003-rate-limiter-in-memory-log.md). Mixed-radix, least significant digit first:
 * `retryAfterSeconds`, the binding policy's `resetSeconds` and `remaining`, then its index among the
 * policies. `allowed` is not sent: a decision is allowed exactly when `retryAfterSeconds` is 0. The
 * IPv6 policies' largest value is about 8.6 · 10⁷, far inside the integers a double holds exactly.
 */
import { CLIENT_POLICIES, type LimitDecision, type Policy } from './window.ts';

/**
 * Packs a decision made under `policies` into one integer.
 *
 * @throws {RangeError} when a value lies outside its digit's range or the binding policy is not one of
 *   `policies` (not a decision of `admit` under these policies).
 * @example packDecision(admit([], now).decision) // 34099: burst bound, 9 left, 10 s; no wait
 */
export function packDecision(decision: LimitDecision, policies: readonly Policy[] = CLIENT_POLICIES): number {
  const { windowRadix, remainingRadix } = radices(policies);
  const index = policies.findIndex((policy) => policy.name === decision.binding.policy.name);
  if (index < 0) throw new RangeError(`the policy ${decision.binding.policy.name} is not one of these policies`);
  let packed = index;
  packed = digit(packed, decision.binding.remaining, remainingRadix);
  packed = digit(packed, decision.binding.resetSeconds, windowRadix);
  return digit(packed, decision.retryAfterSeconds, windowRadix);
}

/**
 * The decision that {@link packDecision} packed under the same `policies`.
 *
 * @example unpackDecision(34099) // { allowed: true, retryAfterSeconds: 0, binding: { policy: { name: 'burst', … }, remaining: 9, resetSeconds: 10 } }
 */
export function unpackDecision(packed: number, policies: readonly Policy[] = CLIENT_POLICIES): LimitDecision {
  const { windowRadix, remainingRadix } = radices(policies);
  const retryAfterSeconds = packed % windowRadix;
  let rest = (packed - retryAfterSeconds) / windowRadix;
  const resetSeconds = rest % windowRadix;
  rest = (rest - resetSeconds) / windowRadix;
  const remaining = rest % remainingRadix;
  const policy = policies[(rest - remaining) / remainingRadix];
  if (policy === undefined) throw new RangeError(`${packed} is not a decision packed under these policies`);
  return { allowed: retryAfterSeconds === 0, retryAfterSeconds, binding: { policy, remaining, resetSeconds } };
}

/** The radix of the second counts (the longest window plus one) and of `remaining` (the largest quota plus one). */
function radices(policies: readonly Policy[]): { windowRadix: number; remainingRadix: number } {
  let longest = 0;
  let largest = 0;
  for (const policy of policies) {
    longest = Math.max(longest, policy.windowSeconds);
    largest = Math.max(largest, policy.quota);
  }
  return { windowRadix: longest + 1, remainingRadix: largest + 1 };
}

function digit(packed: number, value: number, radix: number): number {
  if (!Number.isInteger(value) || value < 0 || value >= radix) throw new RangeError(`cannot pack ${value} as a digit below ${radix}`);
  return packed * radix + value;
}
