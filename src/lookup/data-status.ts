/**
 * @module The status of the data a deployment answers from (the status endpoint's `database`, the
 * pages' facts): in a deployment that does not shard, its loaded database as one shard covering
 * everything; in one that shards, each shard's answer for the current version, and the identity of the
 * whole composed from theirs as the build computes it (the body it is answered in: `status-body.ts`).
 * Speaks no HTTP.
 */
import { databaseIdentity, loadDatabase } from '../geo/current-database.ts';
import { type DatabaseIdentity, hex } from '../geo/identity.ts';
import type { ShardFile } from '../geo/shard-files.ts';
import { unavailable } from '../geo/unavailable.ts';
import type { LookupRequest } from './backend.ts';
import type { ShardAnswer, ShardBindings } from './shard-calls.ts';
import { shardServices, shardSet, shardStatuses } from './sharded.ts';
import { type DataStatus, type ShardStatus, switchWaits, wholeStatus } from './status-body.ts';

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
    return wholeStatus(identity);
  }
  const { set, answers } = await shardStatuses(services, request);
  const { version } = set;
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
 * date, sources and corrections that every shard carries, counts and bytes summed, and as `sha256` the
 * digest of the shards' digests in order (whose first eight hex digits end the version).
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
