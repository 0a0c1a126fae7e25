/**
 * @module The memory model of `src/geo/budget.ts` and its checks in the data tools (`data/budget.ts`):
 * the largest file that fits is the bound of what fits, the model holds for the caches it was fitted
 * with, and the default build fits the default budget with a margin.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BudgetError, budgetFromOption, checkBudget } from '../../data/budget.ts';
import { MANIFEST_FILE } from '../../data/build.ts';
import { budgetFit, DEFAULT_BUDGET_BYTES, MEMORY_MODEL, sideBySideFit } from '../../src/geo/budget.ts';

/** The memory a file of `bytes` needs once loaded, as the model says. */
const memoryNeeded = (bytes: number) => budgetFit(bytes).neededBytes;

import { CACHE_BITS } from '../../src/lookup/entry-caches.ts';
import { FORMATTER_SLOTS } from '../../src/reference/local-time.ts';

const MIB = 1_048_576;

describe('the memory model', () => {
  it('was fitted with the caches the lookup path has', () => {
    // Other cache sizes change what a full cache holds: bench:memory measures again, and the model is fitted anew.
    expect(CACHE_BITS).toEqual(MEMORY_MODEL.cacheBits);
    expect(FORMATTER_SLOTS).toBe(MEMORY_MODEL.zoneFormatters);
  });

  it('takes the largest file that fits as the bound of what fits', () => {
    for (const budget of [40 * MIB, DEFAULT_BUDGET_BYTES, 128 * MIB]) {
      const largest = budgetFit(0, budget).largestFileBytes;
      expect(memoryNeeded(largest)).toBeLessThanOrEqual(budget);
      expect(memoryNeeded(largest + 1024)).toBeGreaterThan(budget);
      expect(budgetFit(largest, budget).fits).toBe(true);
      expect(budgetFit(largest + 1024, budget).fits).toBe(false);
    }
    expect(budgetFit(0, MIB).largestFileBytes).toBe(0);
  });

  it('counts two versions side by side as two files and one set of caches', () => {
    const a = 30 * MIB;
    const b = 20 * MIB;
    expect(sideBySideFit(a, b).neededBytes).toBeGreaterThan(memoryNeeded(a) + b * 0.99);
    expect(sideBySideFit(a, b).neededBytes).toBeLessThan(memoryNeeded(a) + memoryNeeded(b));
  });
});

describe('the default build', () => {
  const bytes = (JSON.parse(readFileSync(MANIFEST_FILE, 'utf8')) as { output: { bytes: number } }).output.bytes;

  it('fits the default budget with a margin, and not 40 MiB', () => {
    expect(checkBudget('ipgeo.mmdb', bytes, DEFAULT_BUDGET_BYTES)).toMatch(/needs \d+\.\d MiB of the isolate budget of 96\.0 MiB .* margin \d+\.\d MiB/);
    expect(() => checkBudget('ipgeo.mmdb', bytes, 40 * MIB)).toThrow(BudgetError);
    expect(() => checkBudget('ipgeo.mmdb', bytes, 40 * MIB)).toThrow(/over the isolate budget of 40\.0 MiB/);
  });
});

describe('--budget-mib', () => {
  it('reads MiB, and refuses what is not a positive number', () => {
    expect(budgetFromOption(undefined)).toBe(DEFAULT_BUDGET_BYTES);
    expect(budgetFromOption('64')).toBe(64 * MIB);
    expect(budgetFromOption('0.5')).toBe(MIB / 2);
    for (const bad of ['0', '-1', 'lots', 'Infinity', '']) expect(budgetFromOption(bad), bad).toEqual({ error: expect.stringContaining('--budget-mib') });
  });
});
