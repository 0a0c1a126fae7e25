/**
 * @module The data events of an isolate (a database loaded, switched, refused or found damaged), each
 * written as one line of JSON on the console, which Workers Logs indexes field by field
 * (`docs/production.md`, "Observability"). Every event names the deployment, its region and the
 * Cloudflare location (`colo`) whose isolate wrote it, and a shard Worker's events its shard.
 */
import { coloOf, type RequestPlace } from '../events/place.ts';

/** Where a database's bytes came from: the Workers cache of this location, or the R2 bucket. */
export type DataSource = 'cache' | 'r2';

/** One data event, without the fields that say where it happened. */
export type DataEvent =
  /** A verified database now answers; `ms` is the load's duration by the Worker's clock (I/O waits, not CPU). */
  | { readonly event: 'load'; readonly version: string; readonly bytes: number; readonly source: DataSource; readonly ms: number }
  /**
   * Another version was verified and answers, its bytes read from `source`. `waits`: `from` was released
   * before it loaded, after `verifyMs` of verifying its object while `from` answered, and requests for
   * the data waited up to `waitMs` for it; else it loaded beside `from` (`waitMs` 0), which goes once
   * nobody asks for it. Durations by the Worker's clock, as `load`'s `ms`.
   */
  | {
      readonly event: 'switch';
      readonly from: string;
      readonly to: string;
      readonly waits: boolean;
      readonly source: DataSource;
      readonly verifyMs?: number;
      readonly waitMs: number;
    }
  /** A version was not loaded or not switched to; `version` is absent when no current record could be read. */
  | { readonly event: 'refusal'; readonly version?: string; readonly why: string }
  /** Bytes of `version` failed their check: the cached copy, the R2 object, or reads of the loaded database. */
  | { readonly event: 'damage'; readonly version: string; readonly source: DataSource | 'reads'; readonly why: string };

/** The deployment an isolate serves (its `wrangler.toml` variables). */
export interface Deployment {
  readonly PLAN: string;
  readonly REGION: string;
}

/** The shard whose file an isolate holds (a `ShardPlace` of `shard-files.ts`): its index from 0, and how many there are. */
interface IsolateShard {
  readonly index: number;
  readonly count: number;
}

/** Where a request arrived (`src/events/place.ts`): the data events' location. */
export type { RequestPlace };

/**
 * Writes `event` as one JSON line, with `deployment` (`plan/region`, e.g. `paid/de`), `region` and
 * `colo` (`''` where the request carries none, as under `wrangler dev`), and for a shard of a sharded
 * database `shard` (its index from 0) and `shards` (how many).
 *
 * @example logDataEvent({ event: 'switch', from: '2026-11-18.0a1b2c3d', to: '2026-11-22.4e5f6a7b', waits: true, source: 'cache', verifyMs: 3120, waitMs: 640 }, env, request)
 */
export function logDataEvent(event: DataEvent, deployment: Deployment, place: RequestPlace | undefined, shard?: IsolateShard): void {
  const line = {
    ...event,
    ...(shard !== undefined && shard.count > 1 ? { shard: shard.index, shards: shard.count } : {}),
    deployment: `${deployment.PLAN}/${deployment.REGION}`,
    region: deployment.REGION,
    colo: coloOf(place) ?? '',
  };
  // Damage and refusals are errors in Workers Logs' level filter; loads and switches are information.
  if (event.event === 'damage' || event.event === 'refusal') console.error(JSON.stringify(line));
  else console.log(JSON.stringify(line));
}
