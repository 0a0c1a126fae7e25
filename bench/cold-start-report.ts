/**
 * @module What `npm run bench:cold` reports of a cold start (`cold-start.ts` measures it, `report.ts`
 * tables it): medians of a fresh workerd process's steps until it answers, alone and through Miniflare.
 */

/** Medians in milliseconds. */
export interface ColdStartReport {
  readonly starts: number;
  /** Spawn until workerd accepts connections. */
  readonly spawnToListening: number;
  /** Listening until the first lookup is answered (status 200). */
  readonly listeningToLookup: number;
  /** Spawn until the first lookup is answered. */
  readonly spawnToLookup: number;
  /** Spawn until a first `/health` is answered, in the other starts. */
  readonly spawnToHealth: number;
  readonly listeningToHealth: number;
  /** The lookup's start through Miniflare: spawn until listening, then until the lookup is answered. */
  readonly miniflare: { readonly spawnToListening: number; readonly listeningToLookup: number; readonly spawnToLookup: number };
  /** Every start, in order: [kind, spawn→listening, listening→answer]. */
  readonly samples: readonly (readonly [string, number, number])[];
}
