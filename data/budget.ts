/**
 * @module The isolate budget where data is made: `--budget-mib N` of `data:build`, `data:update`,
 * `data:publish`, `data:rollback` and `npm run deploy`, and the refusal of a database whose load would
 * not fit it (the model is `src/geo/budget.ts`), in words that name the figures and the remedy.
 */
import { budgetFit, DEFAULT_BUDGET_BYTES, MIB, sideBySideFit } from '../src/geo/budget.ts';

/** The `--budget-mib` option as `parseArgs` declares it. */
export const BUDGET_OPTION = { 'budget-mib': { type: 'string' } } as const;

/** What {@link BUDGET_OPTION} sets, for the usage texts. */
export const BUDGET_HELP = `the isolate memory a database may need once loaded, in MiB (default ${DEFAULT_BUDGET_BYTES / MIB}; Workers allow 128 MB in all)`;

/** A database whose load would not fit the isolate budget. */
export class BudgetError extends Error {
  override readonly name = 'BudgetError';
}

/**
 * The budget in bytes that `--budget-mib` gives (its default without it), or an error message for a
 * value that is not a positive number of MiB.
 */
export function budgetFromOption(value: string | undefined): number | { error: string } {
  if (value === undefined) return DEFAULT_BUDGET_BYTES;
  const mib = Number(value);
  if (!(mib > 0) || !Number.isFinite(mib)) return { error: `--budget-mib must be a positive number of MiB, not ${JSON.stringify(value)}` };
  return Math.floor(mib * MIB);
}

/** `n` bytes in MiB, one decimal. */
export function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`;
}

/**
 * Checks that a database file (or one shard's file) of `fileBytes` bytes fits `budgetBytes` once loaded.
 *
 * @param what names the file in the message (`data/out/ipgeo.mmdb`, `version 2026-09-18.6f982ce9`).
 * @param remedy what to do when it does not fit; by default, sharding, smaller sources or a larger budget.
 * @returns one line for the operator: the memory it needs, the budget, the margin.
 * @throws BudgetError naming the figure, the budget and the remedy when it does not fit.
 */
export function checkBudget(what: string, fileBytes: number, budgetBytes: number, remedy = DEFAULT_REMEDY): string {
  const fit = budgetFit(fileBytes, budgetBytes);
  const budget = `the isolate budget of ${mib(budgetBytes)}`;
  if (fit.fits) {
    return `${what} (${mib(fileBytes)}) needs ${mib(fit.neededBytes)} of ${budget} once loaded with its caches full: margin ${mib(fit.marginBytes)} (files up to ${mib(fit.largestFileBytes)} fit).`;
  }
  throw new BudgetError(
    `${what} (${mib(fileBytes)}) would need ${mib(fit.neededBytes)} once loaded with its caches full, ${mib(-fit.marginBytes)} over ${budget} ` +
      `(files up to ${mib(fit.largestFileBytes)} fit): every isolate that loaded it would run out of memory. ${remedy}`,
  );
}

const DEFAULT_REMEDY =
  'Split the database into shards, each served by a Worker of its own (npm run data:build without --shards makes the fewest that fit; docs/sharding.md), ' +
  'build from smaller sources (GeoLite2 rather than GeoIP2 City, fewer editions or lists), or, where isolates have the room, ' +
  'give a larger budget with --budget-mib (Workers allow 128 MB per isolate, ArrayBuffers included).';

/**
 * Whether a file of `fileBytes` bytes can switch to a next version of about its size without a wait:
 * both loaded side by side within `budgetBytes` (`sideBySideFit`), as a shard Worker loads the next
 * version beside the one answering when they fit, and releases it first (requests wait) when not.
 *
 * @returns one line for the operator.
 */
export function switchLine(fileBytes: number, budgetBytes: number): string {
  const fit = sideBySideFit(fileBytes, fileBytes, budgetBytes);
  return fit.fits
    ? `two versions side by side need ${mib(fit.neededBytes)}: a switch loads the next beside it, no request waits`
    : `two versions side by side would need ${mib(fit.neededBytes)}: a switch releases it before loading the next, requests wait`;
}
