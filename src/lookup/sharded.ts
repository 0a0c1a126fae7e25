/**
 * @module The app's calls of its shard Workers (`docs/sharding.md`): each address routed to the shard
 * whose range holds it, every answer from one version (`geo/shard-set.ts`), and a call that a shard
 * answers as gone asked once more on the version the record names now. A shard that fails to answer
 * makes its addresses unavailable, and is logged here, since it could not log it itself; a lookup that
 * a shard answers as unavailable is reported here too (`data-unavailable`, with the shard's reason).
 */
import { reportEvent } from '../events/operational.ts';
import { coloOf } from '../events/place.ts';
import type { RequestPlace } from '../geo/data-events.ts';
import type { DatabaseIdentity } from '../geo/identity.ts';
import type { BackgroundContext } from '../geo/loading.ts';
import { shardIndexOf } from '../geo/shard-ranges.ts';
import { type ShardedVersion, ShardSet, type ShardSetEnv } from '../geo/shard-set.ts';
import type { IpAddress } from '../ip/address.ts';
import { type LookupFailure, parseAll } from './pipeline.ts';
import type { ShardAnswer, ShardAsk, ShardBindings, ShardItem, ShardService } from './shard-calls.ts';

/** A request as the shard calls need it: its bindings, its execution context, and its `cf` (for the data events). */
export interface ShardedRequest {
  readonly env: ShardSetEnv & ShardBindings;
  readonly ctx: BackgroundContext;
  readonly place?: RequestPlace | undefined;
}

/** This isolate's view of the sharded database, in a deployment that shards. */
export const shardSet = new ShardSet();

/** Tries of a call: a version gone on the first, the record is read again and every shard asked again. */
const SHARDED_TRIES = 2;

/** The shard Workers of the deployment in index order, or undefined where it does not shard. */
export function shardServices(env: ShardBindings): ShardService[] | undefined {
  if (env.SHARD_0 === undefined) return undefined;
  const services: ShardService[] = [];
  for (let service: ShardService | undefined = env.SHARD_0; service !== undefined; service = env[`SHARD_${services.length}`]) services.push(service);
  return services;
}

/** What a sharded lookup answers for one text. */
export type ShardedOutcome = Exclude<ShardItem, { kind: 'not-found' | 'no-location' }> | LookupFailure;

/** The public addresses routed to one shard, and the indexes of the texts they were parsed from. */
interface Routed {
  readonly at: number[];
  readonly addresses: IpAddress[];
}

/**
 * The outcome of each text: parsed here, each public address asked of the shard whose range holds it
 * (see {@link askOnCurrentVersion}); an address whose shard cannot answer is `unavailable` (the route
 * answers it `503 DATA_UNAVAILABLE`, or a bulk item of that code), and each such shard is reported
 * here as a `data-unavailable` operational event with the shard's reason, which the answer never says.
 *
 * @throws DataUnavailableError (as a rejected promise) when the current record cannot be read.
 */
export async function lookupSharded(services: ShardService[], request: ShardedRequest, texts: readonly string[], ask: ShardAsk): Promise<ShardedOutcome[]> {
  const { outcomes, publicAt, addresses } = parseAll(texts);
  const answered = outcomes as ShardedOutcome[];
  const colo = coloOf(request.place) ?? '';
  const { routed, answers } = await askOnCurrentVersion(services, request, async (set) => {
    const routed: Routed[] = services.map(() => ({ at: [], addresses: [] }));
    for (let k = 0; k < addresses.length; k++) {
      const address = addresses[k] as IpAddress;
      const shard = routed[shardIndexOf(set.ranges, address)] as Routed;
      shard.at.push(publicAt[k] as number);
      shard.addresses.push(address);
    }
    const { version } = set;
    const answers = await Promise.all(
      routed.map((shard, index) =>
        shard.addresses.length === 0
          ? undefined
          : called(index, () => (services[index] as ShardService).lookup({ version, addresses: shard.addresses, ask, colo })),
      ),
    );
    return { routed, answers };
  });
  routed.forEach((shard, index) => {
    const answer = answers[index];
    // The one place a sharded lookup's DATA_UNAVAILABLE is reported: once per shard that could not answer the request.
    if (answer?.kind === 'unavailable') reportEvent({ event: 'data-unavailable', status: 503, why: `shard ${index}: ${answer.reason}` }, request.place);
    shard.at.forEach((i, k) => {
      const address = (shard.addresses[k] as IpAddress).canonical;
      const item = answer?.kind === 'answered' ? answer.value[k] : undefined;
      answered[i] =
        item === undefined ? { kind: 'unavailable', address } : item.kind === 'not-found' || item.kind === 'no-location' ? { kind: item.kind, address } : item;
    });
  });
  return answered;
}

/**
 * Every shard's status in the current version, in index order: its identity, or why it cannot answer
 * (see {@link askOnCurrentVersion}).
 *
 * @throws DataUnavailableError (as a rejected promise) when the current record cannot be read.
 */
export async function shardStatuses(
  services: ShardService[],
  request: ShardedRequest,
): Promise<{ readonly set: ShardedVersion; readonly answers: readonly ShardAnswer<DatabaseIdentity>[] }> {
  const colo = coloOf(request.place) ?? '';
  return askOnCurrentVersion(services, request, async ({ version }) => ({
    answers: await Promise.all(services.map((service, index) => called(index, () => service.status(version, colo)))),
  }));
}

/**
 * What `ask` gets of the shards in the version the deployment answers from now (see
 * {@link ShardSet.get}), with that version; when a shard answers that the version is gone, asked once
 * more in the version the record names then.
 */
async function askOnCurrentVersion<T extends { readonly answers: readonly (ShardAnswer<unknown> | undefined)[] }>(
  services: ShardService[],
  request: ShardedRequest,
  ask: (set: ShardedVersion) => Promise<T>,
): Promise<T & { readonly set: ShardedVersion }> {
  const colo = coloOf(request.place) ?? '';
  let set = await shardSet.get(request.env, request.ctx, services.length, (next) =>
    Promise.all(services.map((service, index) => called(index, () => service.status(next.version, colo)))),
  );
  for (let attempt = 1; ; attempt++) {
    const asked = await ask(set);
    if (asked.answers.some((answer) => answer?.kind === 'gone') && attempt < SHARDED_TRIES) {
      set = await shardSet.moved(request.env, services.length, set.version);
      continue;
    }
    return { ...asked, set };
  }
}

/**
 * `call` of shard `index`, its failure (an exception of the binding: the shard Worker failed, or was
 * over a limit) as `unavailable`, logged here since the shard could not log it.
 */
async function called<T>(index: number, call: () => Promise<ShardAnswer<T>>): Promise<ShardAnswer<T>> {
  try {
    return await call();
  } catch (error) {
    const reason = `shard ${index} failed to answer: ${error instanceof Error ? error.message : String(error)}`;
    reportEvent({ event: 'shard-unavailable', shard: index, why: reason });
    return { kind: 'unavailable', reason };
  }
}

/**
 * Forgets this isolate's view of the sharded database.
 *
 * @internal for tests that start from a cold isolate.
 */
export function resetShardSetForTests(): void {
  shardSet.reset();
}
