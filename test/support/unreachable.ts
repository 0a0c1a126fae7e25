/**
 * @module Test-only stand-ins for a `RATE_LIMITER` namespace whose Durable Objects cannot be reached:
 * every call fails as an RPC to an unreachable object does, or never answers. Kept apart from the
 * tests that use them.
 */

/** A namespace whose objects reject every call, and how many calls were made. */
export function failingNamespace(): { namespace: Env['RATE_LIMITER']; calls: () => number } {
  let calls = 0;
  const fail = () => {
    calls++;
    return Promise.reject(new Error('Network connection lost.'));
  };
  const stub = { hit: fail, peek: fail, refund: fail };
  return { namespace: namespaceOf(stub), calls: () => calls };
}

/** The real namespace, except that taking a request back (`refund`) fails as an unreachable object does. */
export function refundFailingNamespace(real: Env['RATE_LIMITER']): Env['RATE_LIMITER'] {
  return {
    getByName: (name: string) => {
      const stub = real.getByName(name);
      return {
        hit: () => stub.hit(),
        peek: () => stub.peek(),
        refund: () => Promise.reject(new Error('Network connection lost.')),
      };
    },
  } as unknown as Env['RATE_LIMITER'];
}

/** A namespace whose objects never answer. */
export function hangingNamespace(): Env['RATE_LIMITER'] {
  const never = () => new Promise<never>(() => undefined);
  return namespaceOf({ hit: never, peek: never, refund: never });
}

function namespaceOf(stub: object): Env['RATE_LIMITER'] {
  return { getByName: () => stub } as unknown as Env['RATE_LIMITER'];
}
