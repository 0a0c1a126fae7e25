/**
 * @module The status endpoint's body (`schemas/status.ts`) from the status of the data a deployment
 * answers from (`data-status.ts`): one pure function, so that the server (`routes/status.ts`) and the
 * docs' examples of a build (`scripts/examples/status-answer.ts`) write the same members in the same
 * order. It reads nothing of the Worker's runtime, so Node runs it too.
 */
import { sideBySideFit } from '../geo/budget.ts';
import { type DatabaseIdentity, isStale } from '../geo/identity.ts';
import { WHOLE_RANGE } from '../geo/shard-ranges.ts';

/** One shard in the status endpoint's `database.shards` (see `schemas/status.ts`). */
export interface ShardStatus {
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
export function switchWaits(bytes: number): boolean {
  return !sideBySideFit(bytes, bytes).fits;
}

/** The status of a database that does not shard, loaded with `identity`: one shard covering everything. */
export function wholeStatus(identity: DatabaseIdentity): DataStatus {
  const { bytes, sha256, version } = identity;
  return { identity, shards: [{ ...WHOLE_RANGE, bytes, sha256, version, switchWaits: switchWaits(bytes) }] };
}

/**
 * The status answer of a server of `plan` in `region` answering from `status`, at `now` (ms since the
 * epoch; it decides `stale`), members in the order the server writes them.
 */
export function statusBody(plan: 'free' | 'paid', region: string, status: DataStatus, now: number) {
  const { identity, shards } = status;
  const { version, builtAt, networks, records, bytes, sha256, sources, flags, corrections } = identity;
  return {
    plan,
    region,
    database: {
      version,
      builtAt,
      networks,
      records,
      bytes,
      sha256,
      sources: sources.map(({ name, version, builtAt, licence, attribution, flags }) => ({
        name,
        version,
        builtAt,
        licence,
        attribution,
        ...(flags ? { flags: [...flags] } : {}),
      })),
      flags: [...flags],
      corrections: corrections.map(({ name, sha256, lines, prefixes }) => ({ name, sha256, lines, prefixes })),
      shards: [...shards],
    },
    stale: isStale(identity, now),
  };
}
