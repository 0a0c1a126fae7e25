/**
 * @module Test-only `RATE_LIMITER` namespaces: stand-ins whose Durable Objects cannot be reached (every
 * call fails as an RPC to an unreachable object does, or never answers), and wrappers of the real binding
 * that count the calls made through them or fail those of some objects. Kept apart from the tests that
 * use them.
 */

import type { RateLimiter } from '../../src/ratelimit/rate-limiter.ts';

/** The RPC methods of a `RateLimiter` stub that the Worker calls. */
type LimiterStub = Pick<DurableObjectStub<RateLimiter>, 'hit' | 'refund'>;

const lost = () => Promise.reject(new Error('Network connection lost.'));

/** A namespace whose objects reject every call, and how many calls were made. */
export function failingNamespace(): { namespace: Env['RATE_LIMITER']; calls: () => number } {
  let calls = 0;
  const fail = () => {
    calls++;
    return lost();
  };
  return { namespace: namespaceOf(() => ({ hit: fail, refund: fail })), calls: () => calls };
}

/** The real namespace, except that taking a request back (`refund`) fails as an unreachable object does. */
export function refundFailingNamespace(real: Env['RATE_LIMITER']): Env['RATE_LIMITER'] {
  return namespaceOf((name) => {
    const stub = real.getByName(name);
    return { hit: (subnet, now) => stub.hit(subnet, now), refund: lost };
  });
}

/**
 * The real namespace, except that the objects named in `failing` reject every call as unreachable objects
 * do; `calls(name)` counts the calls made to the object `name`, failed or not, and `calls()` all of them.
 */
export function partlyFailingNamespace(
  real: Env['RATE_LIMITER'],
  failing: ReadonlySet<string>,
): { namespace: Env['RATE_LIMITER']; calls: (name?: string) => number } {
  const calls = new Map<string, number>();
  const counted = <T>(name: string, call: () => Promise<T>): Promise<T> => {
    calls.set(name, (calls.get(name) ?? 0) + 1);
    return failing.has(name) ? lost() : call();
  };
  const namespace = namespaceOf((name) => {
    const stub = real.getByName(name);
    return { hit: (subnet, now) => counted(name, () => stub.hit(subnet, now)), refund: (subnet, now) => counted(name, () => stub.refund(subnet, now)) };
  });
  const total = () => [...calls.values()].reduce((sum, n) => sum + n, 0);
  return { namespace, calls: (name) => (name === undefined ? total() : (calls.get(name) ?? 0)) };
}

/** The real namespace, counting the calls made to its objects (`calls()`: all; `calls(name)`: one object's). */
export function countingNamespace(real: Env['RATE_LIMITER']): { namespace: Env['RATE_LIMITER']; calls: (name?: string) => number } {
  return partlyFailingNamespace(real, new Set());
}

/** A namespace whose objects never answer. */
export function hangingNamespace(): Env['RATE_LIMITER'] {
  const never = () => new Promise<never>(() => undefined);
  return namespaceOf(() => ({ hit: never, refund: never }));
}

function namespaceOf(stubOf: (name: string) => LimiterStub): Env['RATE_LIMITER'] {
  return { getByName: stubOf } as unknown as Env['RATE_LIMITER'];
}
