/**
 * @module Where a request's lookups are answered, behind one interface for the routes: this isolate's
 * database in a deployment that does not shard (the pipeline in-process: no hop, and no promise once
 * loaded), or the deployment's shard Workers (`docs/sharding.md`), each address routed to the shard
 * whose range holds it and every answer from one version (`geo/shard-set.ts`). Speaks no HTTP.
 */
import { reportEvent } from '../events/operational.ts';
import { sideBySideFit } from '../geo/budget.ts';
import { databaseIdentity, loadDatabase } from '../geo/current-database.ts';
import type { RequestPlace } from '../geo/data-events.ts';
import { GeoDatabase } from '../geo/database.ts';
import { type DatabaseIdentity, hex } from '../geo/identity.ts';
import type { LanguageIndex } from '../geo/languages.ts';
import type { BackgroundContext, DatabaseEnv } from '../geo/loading.ts';
import { type ShardFile, WHOLE_RANGE } from '../geo/shard-files.ts';
import { shardIndexOf } from '../geo/shard-ranges.ts';
import { type ShardedVersion, ShardSet } from '../geo/shard-set.ts';
import { unavailable } from '../geo/unavailable.ts';
import type { IpAddress } from '../ip/address.ts';
import type { Format } from './entries.ts';
import type { View } from './fields.ts';
import { type GeoPosition, type LookupFailure, lookupAll, type Outcome, parseAll, positionOf } from './pipeline.ts';
import type { ShardAnswer, ShardAsk, ShardBindings, ShardItem, ShardService } from './shard-calls.ts';

/** The bindings the lookups use: the bucket and the deployment's names, and the shard Workers where it shards. */
interface LookupEnv extends DatabaseEnv, ShardBindings {}

/** A request as the lookups need it: its bindings, its execution context, and its `cf` (for the data events). */
export interface LookupRequest {
  readonly env: LookupEnv;
  readonly ctx: BackgroundContext;
  readonly place?: RequestPlace | undefined;
}

/** The shard Workers of the deployment in index order, or undefined where it does not shard. */
function shardServices(env: ShardBindings): ShardService[] | undefined {
  if (env.SHARD_0 === undefined) return undefined;
  const services: ShardService[] = [];
  for (let service: ShardService | undefined = env.SHARD_0; service !== undefined; service = env[`SHARD_${services.length}`]) services.push(service);
  return services;
}

/** This isolate's view of the sharded database, in a deployment that shards. */
const shardSet = new ShardSet();

/**
 * The record of each text, in `formats` for `view` where found: `outcomes[i]` answers `texts[i]`. In a
 * deployment that does not shard, a found record is the database's own (rendered by the route in any
 * format); in one that shards, the shard's rendering in each of `formats`.
 *
 * @throws DataUnavailableError (also as a rejected promise) when no data can be had at all; a shard
 *   that cannot answer makes its addresses `unavailable` instead.
 */
export function lookupRecords(request: LookupRequest, texts: readonly string[], formats: readonly Format[], view: View): Outcome[] | Promise<Outcome[]> {
  const services = shardServices(request.env);
  if (services === undefined) {
    const loaded = loadDatabase(request.env, request.ctx, request.place);
    // Once loaded, the database is there without a turn of the event loop, and the outcomes without a promise.
    return loaded instanceof GeoDatabase ? lookupAll(loaded, texts) : loaded.then((database) => lookupAll(database, texts));
  }
  return lookupSharded(services, request, texts, { kind: 'records', formats, view }) as Promise<Outcome[]>;
}

/**
 * The position of each text, with names in `language` where found (an address without one is
 * `no-location`): `positions[i]` answers `texts[i]`.
 *
 * @throws DataUnavailableError (as a rejected promise) as {@link lookupRecords} does.
 */
export async function lookupPositions(request: LookupRequest, texts: readonly string[], language: LanguageIndex): Promise<(GeoPosition | LookupFailure)[]> {
  const services = shardServices(request.env);
  if (services === undefined) {
    const database = await loadDatabase(request.env, request.ctx, request.place);
    return lookupAll(database, texts, { positions: true }).map((outcome) => (outcome.kind === 'found' ? positionOf(outcome, language) : outcome));
  }
  const outcomes = await lookupSharded(services, request, texts, { kind: 'positions', language });
  return outcomes.map((outcome) => (outcome.kind === 'position' ? outcome.position : (outcome as LookupFailure)));
}

/** What a sharded lookup answers for one text. */
type ShardedOutcome = Exclude<ShardItem, { kind: 'not-found' | 'no-location' }> | LookupFailure;

/** Tries of a sharded lookup: a version gone on the first, the record is read again and every shard asked again. */
const SHARDED_TRIES = 2;

async function lookupSharded(services: ShardService[], request: LookupRequest, texts: readonly string[], ask: ShardAsk): Promise<ShardedOutcome[]> {
  const { outcomes, publicAt, addresses } = parseAll(texts);
  const answered = outcomes as ShardedOutcome[];
  const colo = coloOf(request.place);
  let set = await currentSet(services, request);
  for (let attempt = 1; ; attempt++) {
    const routed = services.map(() => ({ at: [] as number[], addresses: [] as IpAddress[] }));
    for (let k = 0; k < addresses.length; k++) {
      const address = addresses[k] as IpAddress;
      const shard = routed[shardIndexOf(set.ranges, address)] as (typeof routed)[number];
      shard.at.push(publicAt[k] as number);
      shard.addresses.push(address);
    }
    const version = set.version;
    const answers = await Promise.all(
      routed.map((shard, index) =>
        shard.addresses.length === 0
          ? undefined
          : called(index, () => (services[index] as ShardService).lookup({ version, addresses: shard.addresses, ask, colo })),
      ),
    );
    const gone = answers.find((answer) => answer?.kind === 'gone');
    if (gone !== undefined && attempt < SHARDED_TRIES) {
      set = await shardSet.moved(request.env, services.length, version);
      continue;
    }
    routed.forEach((shard, index) => {
      const answer = answers[index];
      shard.at.forEach((i, k) => {
        const address = (shard.addresses[k] as IpAddress).canonical;
        const item = answer?.kind === 'answered' ? answer.value[k] : undefined;
        answered[i] =
          item === undefined
            ? { kind: 'unavailable', address }
            : item.kind === 'not-found' || item.kind === 'no-location'
              ? { kind: item.kind, address }
              : item;
      });
    });
    return answered;
  }
}

/** The version the deployment's shards answer from now (see {@link ShardSet.get}). */
function currentSet(services: ShardService[], request: LookupRequest): ShardedVersion | Promise<ShardedVersion> {
  const colo = coloOf(request.place);
  return shardSet.get(request.env, request.ctx, services.length, (next) =>
    Promise.all(services.map((service, index) => called(index, () => service.status(next.version, colo)))),
  );
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

function coloOf(place: RequestPlace | undefined): string {
  const colo = (place?.cf as { readonly colo?: unknown } | undefined)?.colo;
  return typeof colo === 'string' ? colo : '';
}

/**
 * The version the lookups of this isolate answer from now (`X-Database-Version`), if any: the loaded
 * database's, or the sharded set's.
 */
export function answeringVersion(env: ShardBindings): string | undefined {
  return env.SHARD_0 === undefined ? databaseIdentity()?.version : shardSet.version;
}

/** One shard in the status endpoint's `database.shards` (see `schemas/status.ts`). */
interface ShardStatus {
  /** The first and last position of its range in the database's IPv6 space (RFC 5952). */
  readonly first: string;
  readonly last: string;
  readonly bytes: number;
  readonly sha256: string;
  /** The version it answers from; null while it cannot answer. */
  readonly version: string | null;
  /** Whether a switch of it makes requests wait: two versions of its size do not fit the isolate budget. */
  readonly switchWaits: boolean;
  /** Why it cannot answer, when it cannot. */
  readonly unavailable?: string;
}

/** The data a deployment answers from: the identity of the whole, and each shard's status in address order. */
export interface DataStatus {
  readonly identity: DatabaseIdentity;
  readonly shards: readonly ShardStatus[];
}

/** Whether a switch of a file of `bytes` makes requests wait (a next version of the same size assumed). */
function switchWaits(bytes: number): boolean {
  return !sideBySideFit(bytes, bytes).fits;
}

/**
 * The status of the data: in a deployment that does not shard, its database as one shard covering
 * everything; in one that shards, every shard asked for the current version (loading it if needed).
 *
 * @throws DataUnavailableError when no data can be had at all (no shard answers).
 */
export async function dataStatus(request: LookupRequest): Promise<DataStatus> {
  const services = shardServices(request.env);
  if (services === undefined) {
    await loadDatabase(request.env, request.ctx, request.place);
    const identity = databaseIdentity();
    // loadDatabase resolved, so the identity of what it loaded is there.
    if (identity === undefined) throw new Error('the database is loaded but has no identity');
    const { bytes, sha256, version } = identity;
    return { identity, shards: [{ ...WHOLE_RANGE, bytes, sha256, version, switchWaits: switchWaits(bytes) }] };
  }
  const colo = coloOf(request.place);
  let set = await currentSet(services, request);
  for (let attempt = 1; ; attempt++) {
    const version = set.version;
    const answers = await Promise.all(services.map((service, index) => called(index, () => service.status(version, colo))));
    if (answers.some((answer) => answer.kind === 'gone') && attempt < SHARDED_TRIES) {
      set = await shardSet.moved(request.env, services.length, version);
      continue;
    }
    const shards = set.shards.map((file, index): ShardStatus => {
      const answer = answers[index] as ShardAnswer<DatabaseIdentity>;
      const { first, last, bytes, sha256 } = file;
      const facts = { first, last, bytes, sha256, switchWaits: switchWaits(bytes) };
      if (answer.kind === 'answered') return { ...facts, version };
      return { ...facts, version: null, unavailable: answer.kind === 'gone' ? `it no longer holds ${version}; ${answer.current} is current` : answer.reason };
    });
    const identities = answers.flatMap((answer) => (answer.kind === 'answered' ? [answer.value] : []));
    const identity = await composedIdentity(version, set.shards, identities);
    if (identities.length === services.length) shardSet.keepIdentity(version, identity);
    return { identity, shards };
  }
}

/**
 * The identity of this isolate's data for the pages: the loaded database's, or the sharded set's as
 * the status composed it last; undefined when none is known yet. Never starts a load.
 */
export function knownIdentity(env: ShardBindings): DatabaseIdentity | undefined {
  if (env.SHARD_0 === undefined) return databaseIdentity();
  const version = shardSet.version;
  return version === undefined ? undefined : shardSet.identityOf(version);
}

/**
 * The identity of this isolate's data for the pages, loading it (in a deployment that shards, asking
 * every shard for its status) when it is not known yet.
 *
 * @throws DataUnavailableError when no data can be had at all.
 */
export async function dataIdentity(request: LookupRequest): Promise<DatabaseIdentity> {
  return knownIdentity(request.env) ?? (await dataStatus(request)).identity;
}

/**
 * The identity of a sharded version from its shards' (those that answered): its version, the build
 * date, sources and corrections that every shard carries, counts and bytes summed, and as `sha256` the digest of the
 * shards' digests in order (whose first eight hex digits end the version).
 *
 * @throws DataUnavailableError when no shard answered.
 */
async function composedIdentity(version: string, shards: readonly ShardFile[], identities: readonly DatabaseIdentity[]): Promise<DatabaseIdentity> {
  const [first] = identities;
  if (first === undefined) throw unavailable(`no shard of version ${version} can answer`);
  // As the build computes it (`data/output.ts`): each digest in hex followed by a newline.
  const digests = new TextEncoder().encode(shards.map((shard) => `${shard.sha256}\n`).join(''));
  const sha256 = hex(await crypto.subtle.digest('SHA-256', digests));
  return {
    version,
    builtAt: first.builtAt,
    networks: identities.reduce((sum, identity) => sum + identity.networks, 0),
    records: identities.reduce((sum, identity) => sum + identity.records, 0),
    bytes: shards.reduce((sum, shard) => sum + shard.bytes, 0),
    sha256,
    sources: first.sources,
    flags: first.flags,
    corrections: first.corrections,
  };
}

/**
 * Forgets this isolate's view of the sharded database.
 *
 * @internal for tests that start from a cold isolate.
 */
export function resetShardSetForTests(): void {
  shardSet.reset();
}
