/**
 * @module The ids the overlay (`compile.ts`) gives what it reads: each distinct location, set of
 * routing facts and set of flags once, and each (location, accuracy radius, network, flags) combination
 * once, whose id is a leaf of the search tree. Ids are indices into the arrays kept here, stable for the whole build.
 */

import type { StoredLocation, StoredNetwork, StoredRecord } from '../src/geo/schema.ts';

/** The flags of a record as the overlay keeps them (`compile.ts`): their bits (`FLAG_BIT`, not 0), and the hosting provider's name if any. */
export type RecordFlags = Required<Pick<StoredRecord, 'flags'>> & Pick<StoredRecord, 'hosting_provider'>;

/** The id of a part a combination lacks (no location, no routing facts, no flags). */
export const NONE = -1;

/** Each distinct value once, by its contents: `values[id]` is the value of `id`. */
export class Interner<T extends object> {
  readonly values: T[] = [];
  private readonly ids = new Map<string, number>();
  /**
   * Sources hand out one object per distinct value they read: known objects skip the serialisation.
   * Weak, so that the many equal copies a source makes (one per record of its own) are not kept alive.
   */
  private readonly objects = new WeakMap<T, number>();
  id(value: T): number {
    let id = this.objects.get(value);
    if (id !== undefined) return id;
    const key = JSON.stringify(value);
    id = this.ids.get(key);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(key, id);
    }
    this.objects.set(value, id);
    return id;
  }
}

/** Combinations of (location id, accuracy radius in km or 0, network id, flags id), each with a stable id used as a tree leaf. */
export class Combinations {
  readonly location: number[] = [];
  readonly radius: number[] = [];
  readonly network: number[] = [];
  readonly flags: number[] = [];
  private readonly ids = new Map<string, number>();
  id(location: number, radius: number, network: number, flags: number): number {
    const key = `${location},${radius},${network},${flags}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.location.length;
      this.location.push(location);
      this.radius.push(radius);
      this.network.push(network);
      this.flags.push(flags);
      this.ids.set(key, id);
    }
    return id;
  }

  /** The id of combination `id` with its network or flags replaced. */
  with(id: number, changes: { readonly network?: number; readonly flags?: number }): number {
    return this.id(
      this.location[id] as number,
      this.radius[id] as number,
      changes.network ?? (this.network[id] as number),
      changes.flags ?? (this.flags[id] as number),
    );
  }
}

/** What the overlay's leaves are made of: the distinct parts, and their combinations (the leaf ids). */
export interface Parts {
  readonly locations: Interner<StoredLocation>;
  readonly networks: Interner<StoredNetwork>;
  readonly flagSets: Interner<RecordFlags>;
  readonly combos: Combinations;
}
