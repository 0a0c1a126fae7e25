/**
 * @module The ids the overlay (`compile.ts`) gives what it reads: each distinct location and set of
 * routing facts once, and each (location, network, proxy) combination once, whose id is a leaf of the
 * search tree. Ids are indices into the arrays kept here, stable for the whole build.
 */

/** The id of a part a combination lacks (no location, no routing facts). */
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

/** Combinations of (location, network, proxy) ids, each with a stable id used as a tree leaf. */
export class Combinations {
  readonly location: number[] = [];
  readonly network: number[] = [];
  readonly proxy: boolean[] = [];
  private readonly ids = new Map<string, number>();
  id(location: number, network: number, proxy: boolean): number {
    const key = `${location},${network},${proxy ? 1 : 0}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.location.length;
      this.location.push(location);
      this.network.push(network);
      this.proxy.push(proxy);
      this.ids.set(key, id);
    }
    return id;
  }
}
