/** @module Small statistics and formatting helpers for the benchmarks. */

/** The median of `values` (the mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The `p`-th percentile (0..100, nearest rank) of `values`, which it sorts in place. */
export function percentile(values: number[] | Float64Array, p: number): number {
  if (values.length === 0) return Number.NaN;
  values.sort((a, b) => a - b);
  const rank = Math.min(values.length - 1, Math.max(0, Math.ceil((p / 100) * values.length) - 1));
  return values[rank] as number;
}

/** `1234567` → `1.23 M`, `12345` → `12.3 k`. */
export function si(value: number): string {
  if (!Number.isFinite(value)) return '–';
  if (Math.abs(value) >= 1e6) return `${(value / 1e6).toFixed(2)} M`;
  if (Math.abs(value) >= 1e4) return `${(value / 1e3).toFixed(1)} k`;
  if (Math.abs(value) >= 1e3) return `${(value / 1e3).toFixed(2)} k`;
  return value.toFixed(0);
}

/** Bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : '–';
}

/** A ratio as `1.23×`. */
export function times(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '–';
}

/** A share as `85%`. */
export function percent(share: number, digits = 0): string {
  return Number.isFinite(share) ? `${(share * 100).toFixed(digits)}%` : '–';
}
