/**
 * @module What crosses the service binding between the app and a shard Worker (Workers RPC,
 * `src/shard.ts`), and how a shard answers a call from the file it holds. Only what the app puts into
 * its answer bodies crosses: per address its record rendered (the text `render.ts` writes), its position,
 * or a tag; the app keeps the plan gates, the parsing and the bodies.
 */
import type { Utf8 } from '../format/utf8.ts';
import type { GeoDatabase } from '../geo/database.ts';
import type { DatabaseIdentity } from '../geo/identity.ts';
import type { LanguageIndex } from '../geo/languages.ts';
import type { IpAddress } from '../ip/address.ts';
import type { Format } from './entries.ts';
import type { View } from './fields.ts';
import { type GeoPosition, locateAll, positionOf, type Rendered } from './pipeline.ts';
import { recordText } from './render.ts';

/** What a lookup needs of each found address: its record in each of `formats` for `view`, or its position with names in `language`. */
export type ShardAsk =
  | { readonly kind: 'records'; readonly formats: readonly Format[]; readonly view: View }
  | { readonly kind: 'positions'; readonly language: LanguageIndex };

/** The app's call of one shard: the public addresses routed to it, answered from `version` only. */
export interface ShardCall {
  /** The published version the app answers this request from. */
  readonly version: string;
  /** Parsed by the app, each in the shard's range. */
  readonly addresses: readonly IpAddress[];
  readonly ask: ShardAsk;
  /** The Cloudflare location of the app's request (`cf.colo`, '' where none), for the shard's data events. */
  readonly colo: string;
}

/** A shard's answer for one address, in the order of {@link ShardCall.addresses}. */
export type ShardItem =
  | Rendered
  | { readonly kind: 'position'; readonly position: GeoPosition }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'no-location' };

/**
 * A shard's answer to a call: `value` from the version asked; `gone` when it no longer holds that
 * version and another is current (the app reads the record again and asks for `current`); or
 * `unavailable` when it cannot answer at all (`reason` for the app's log, never for clients).
 */
export type ShardAnswer<T> =
  | { readonly kind: 'answered'; readonly value: T }
  | { readonly kind: 'gone'; readonly current: string }
  | { readonly kind: 'unavailable'; readonly reason: string };

/** A shard Worker as the app's service binding reaches it (the methods of `Shard` in `src/shard.ts`). */
export interface ShardService {
  /** Looks the call's addresses up in the shard's file of the call's version. */
  lookup(call: ShardCall): Promise<ShardAnswer<ShardItem[]>>;
  /** The identity of the shard's file of `version`, loading it if it is current and not held. */
  status(version: string, colo: string): Promise<ShardAnswer<DatabaseIdentity>>;
}

/**
 * The service bindings of a deployment whose database is sharded (`docs/sharding.md`): `SHARD_0` …
 * `SHARD_<N-1>`, each the `Shard` entrypoint of one shard Worker (`src/shard.ts`). They exist only in
 * the configurations that `npm run dev` and `npm run deploy` generate for a sharded build; a deployment
 * without them holds the whole database itself.
 */
export type ShardBindings = { readonly [binding in `SHARD_${number}`]?: ShardService };

/*
 * The Worker's bindings (`Env`, generated into `worker-configuration.d.ts`, and `Cloudflare.Env`, the
 * tests' `env`) include the shard bindings of a sharded deployment: declared here, beside their type,
 * so that `src/env.ts` imports nothing.
 */
declare global {
  interface Env extends ShardBindings {}
  namespace Cloudflare {
    interface Env extends ShardBindings {}
  }
}

/**
 * The items of `call`, looked up in `database` (the shard's file of `call.version`).
 *
 * @throws DataUnavailableError when the file is corrupt where a lookup read it.
 */
export function answerCall(database: GeoDatabase, call: ShardCall): ShardItem[] {
  const { ask } = call;
  return locateAll(database, call.addresses, { positions: ask.kind === 'positions' }).map((located): ShardItem => {
    if (located.kind !== 'found') return { kind: located.kind };
    if (ask.kind === 'positions') return { kind: 'position', position: positionOf(located, ask.language) };
    const rendered: { kind: 'rendered'; json?: Utf8; xml?: Utf8 } = { kind: 'rendered' };
    for (const format of ask.formats) rendered[format] = recordText(located, format, ask.view);
    return rendered;
  });
}
