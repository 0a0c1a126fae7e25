/**
 * @module The isolate memory a compiled database costs once loaded, against the budget it must fit:
 * one model, fitted on `npm run bench:memory`, that the data tools enforce where data is made
 * (`data:build`, `data:update`, `data:publish`, `data:rollback`, `npm run deploy`). Pure arithmetic on
 * byte counts, so that a Worker can use it too. All sizes are bytes.
 */
import { ASN_LAYOUT } from './asn-layout.ts';

/** One mebibyte, 2^20 bytes: the unit of every figure the tools print. */
export const MIB = 1_048_576;

/**
 * What an isolate may hold, by default: 96 MiB of the 128 MB that Workers allow an isolate (ArrayBuffers
 * included), leaving the rest to what requests in flight allocate.
 */
export const DEFAULT_BUDGET_BYTES = 96 * MIB;

/**
 * The isolate (V8 heap in use after a full collection, plus ArrayBuffers) as a function of the database
 * file's size `N`: `fixedBytes + perFileByte × N + cacheBytes + asnBytes`.
 *
 * `fixedBytes` and `perFileByte` are fitted by least squares on the isolate just after the load of four
 * builds (`npm run bench:memory -- --file …`, the Worker of 2026-11-26), residuals within ±0.09 MiB:
 *
 *     build                                         file bytes   isolate after the load
 *     MaxMind's test databases                          27,349      7.53 MiB
 *     GeoIP2-City-Test with the default ASN ranges  10,947,915     17.84 MiB
 *     GeoLite2 City with the GeoLite2-ASN test     54,181,791     59.22 MiB
 *     the default build                             65,019,853     69.42 MiB
 *
 * (the isolate before any load: 4.72 MiB). `cacheBytes` is what the default build's lookup caches added
 * over 600,000 lookups in rounds of 100,000 (9.90, 3.55, 1.79, 0.95, 0.63, 0.43 MiB: 17.27 MiB), plus the
 * rest of that geometric series (0.90 MiB); their slots are fixed ({@link MEMORY_MODEL.cacheBits}), so a
 * larger file fills them no further. Lookups of every field (`--fields all`, schema 4's build) added the
 * same (10.1, 3.5, 1.8, 1.0, 0.6, 0.4 MiB). To it come the time-zone formatters that the local-time fields
 * keep ({@link MEMORY_MODEL.zoneFormatters}), whose ICU memory is outside the V8 heap that the benchmark
 * reads: 28,300 bytes each, measured in Node (resident memory over 400 formatters).
 *
 * @internal Exported for the tests that hold `cacheBits` to the lookup path's `CACHE_BITS`, and
 *   `zoneFormatters` to the formatters it keeps.
 */
export const MEMORY_MODEL = {
  /** The isolate with the Worker's code and no database (4.72 MiB), plus what a load keeps beside the file. */
  fixedBytes: 7_824_182,
  /** Isolate bytes per byte of file once loaded: the file's own buffer. */
  perFileByte: 1.00014,
  /** The lookup caches when full (19,052,928 bytes), and the time-zone formatters (32 × 28,300). */
  cacheBytes: 19_958_528,
  /** The cache sizes the model was fitted with (log2 of slots, `CACHE_BITS` of `src/lookup/entry-caches.ts`); other sizes need another fit. */
  cacheBits: { locations: 15, networks: 15, names: 15 },
  /** The time-zone formatters counted (`FORMATTER_SLOTS` of `src/reference/local-time.ts`). */
  zoneFormatters: 32,
  /**
   * What an isolate keeps of the current version's ASN object beside the database (`src/asn/store.ts`):
   * its index, at the bound the build and the Worker hold every index to (1 MiB), and its kept blocks (256 KiB).
   */
  asnBytes: ASN_LAYOUT.maxIndexBytes + ASN_LAYOUT.keptBlocks * ASN_LAYOUT.blockBytes,
} as const;

/**
 * The isolate memory, in bytes, that a database file of `fileBytes` bytes needs once loaded with its
 * lookup caches full ({@link MEMORY_MODEL}).
 *
 * @example memoryNeeded(64 * MIB) // 96,211,690 bytes (91.8 MiB) for a file of 64 MiB
 */
function memoryNeeded(fileBytes: number): number {
  return Math.ceil(MEMORY_MODEL.fixedBytes + MEMORY_MODEL.perFileByte * fileBytes + MEMORY_MODEL.cacheBytes + MEMORY_MODEL.asnBytes);
}

/** The largest database file, in bytes, whose load fits `budgetBytes` ({@link memoryNeeded} of it at most `budgetBytes`); 0 when none does. */
function largestFileFitting(budgetBytes: number): number {
  return Math.max(0, Math.floor((budgetBytes - MEMORY_MODEL.fixedBytes - MEMORY_MODEL.cacheBytes - MEMORY_MODEL.asnBytes) / MEMORY_MODEL.perFileByte));
}

/** How a load fits a budget: the memory it needs, the budget, and what is left (negative: over by that much). */
export interface BudgetFit {
  readonly neededBytes: number;
  readonly budgetBytes: number;
  /** `budgetBytes - neededBytes`. */
  readonly marginBytes: number;
  readonly fits: boolean;
}

function fitOf(neededBytes: number, budgetBytes: number): BudgetFit {
  return { neededBytes, budgetBytes, marginBytes: budgetBytes - neededBytes, fits: neededBytes <= budgetBytes };
}

/**
 * Whether a database file of `fileBytes` bytes fits `budgetBytes` once loaded with its caches full, and
 * the largest file that would ({@link largestFileFitting}).
 *
 * @example budgetFit(65_019_853).fits // true
 */
export function budgetFit(fileBytes: number, budgetBytes = DEFAULT_BUDGET_BYTES): BudgetFit & { readonly largestFileBytes: number } {
  return { ...fitOf(memoryNeeded(fileBytes), budgetBytes), largestFileBytes: largestFileFitting(budgetBytes) };
}

/**
 * Whether two database files fit `budgetBytes` loaded side by side: one version answering with its
 * caches full while the next one loads, which is what a switch without waiting holds at its peak. The
 * data tools say it of each shard (`data/budget.ts`); a shard Worker decides by it whether its switch waits.
 */
export function sideBySideFit(fileBytes: number, nextFileBytes: number, budgetBytes = DEFAULT_BUDGET_BYTES): BudgetFit {
  return fitOf(memoryNeeded(fileBytes) + Math.ceil(MEMORY_MODEL.perFileByte * nextFileBytes), budgetBytes);
}
