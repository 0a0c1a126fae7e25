/**
 * @module The entry of a shard Worker (`docs/sharding.md`): one shard of a sharded database, loaded,
 * verified and switched like the whole one (`geo/asked-versions.ts`), answering the app of its deployment over a
 * service binding with Workers RPC (`lookup/shard-calls.ts`). It has no route and no address of its
 * own: its `fetch` answers nothing, and its configuration gives it no `workers.dev` name or preview URL.
 */
import { WorkerEntrypoint } from 'cloudflare:workers';
import type { ShardEnv } from './env.ts';
import { AskedVersions, VersionGoneError } from './geo/asked-versions.ts';
import type { GeoDatabase } from './geo/database.ts';
import type { DatabaseIdentity } from './geo/identity.ts';
import { DataUnavailableError } from './geo/unavailable.ts';
import { answerCall, type ShardAnswer, type ShardCall, type ShardItem } from './lookup/shard-calls.ts';

/** This isolate's shard, made on its first call (the shard it serves is in the bindings). */
let slot: AskedVersions | undefined;

function slotOf(env: ShardEnv): AskedVersions {
  slot ??= new AskedVersions({ index: Number(env.SHARD_INDEX), count: Number(env.SHARD_COUNT) });
  return slot;
}

/** The shard's RPC methods, which the app's `SHARD_<k>` binding names as its entrypoint. */
export class Shard extends WorkerEntrypoint<ShardEnv> {
  /** See `ShardService.lookup`. */
  lookup(call: ShardCall): Promise<ShardAnswer<ShardItem[]>> {
    return this.answer(call.version, call.colo, (database) => answerCall(database, call));
  }

  /** See `ShardService.status`. */
  status(version: string, colo: string): Promise<ShardAnswer<DatabaseIdentity>> {
    return this.answer(version, colo, () => {
      const identity = slotOf(this.env).identity(version);
      if (identity === undefined) throw new DataUnavailableError(`version ${version} was released while its status was read`);
      return identity;
    });
  }

  /** `work` done on the file of `version`, or why it cannot be: gone, or unavailable (a thrown error would reach the app as one without a reason). */
  private async answer<T>(version: string, colo: string, work: (database: GeoDatabase) => T): Promise<ShardAnswer<T>> {
    try {
      const database = await slotOf(this.env).get(this.env, this.ctx, { cf: { colo } }, version);
      return { kind: 'answered', value: work(database) };
    } catch (error) {
      if (error instanceof VersionGoneError) return { kind: 'gone', current: error.current };
      if (error instanceof DataUnavailableError) return { kind: 'unavailable', reason: error.message };
      throw error;
    }
  }
}

export default {
  /** Nothing answers here: the shard is reached through its entrypoint only. */
  fetch(): Response {
    return new Response(null, { status: 404 });
  },
} satisfies ExportedHandler<ShardEnv>;
