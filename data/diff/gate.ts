/**
 * @module The diff gate of `data:publish` (docs/operations.md, "The diff gate"): before a build goes
 * out, it is compared with the version each deployment's bucket serves (they may differ: each distinct
 * one is compared once), and any measure over its threshold (`thresholds.ts`) stops the publish to every
 * bucket. Only `--accept-diff VERSION`, naming the build's version, lets such a build through; a broken
 * build (its ASN object disagrees with its database) never goes through, compared with a bucket or not.
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CURRENT_RECORD_KEY, CurrentRecordSchema } from '../../src/geo/published.ts';
import { buildConsistency } from './asn-diff.ts';
import { consistencyTable } from './asn-table.ts';
import { buildOnDisk, currentBuild, type ReadableBucket } from './builds.ts';
import { type DiffReport, diffBuilds, diffTable } from './report.ts';

/** The exit code of `data:diff`, `data:publish` and `data:publish --check` when a share is over its threshold. */
export const OVER_THRESHOLDS = 4;

/** What the gate found: a report per distinct version served, whether any crosses a threshold, and whether the build is broken. */
export interface GateVerdict {
  readonly reports: readonly DiffReport[];
  readonly stopped: boolean;
  /** Its ASN object disagrees with its database: stopped whatever `--accept-diff` says. */
  readonly broken: boolean;
}

/**
 * Compares the build of `manifest` with the current version of each bucket that serves another one,
 * printing each table (and appending it to `summary`, a file, when given). A build compared with none
 * (no bucket given, as with `--accept-diff`; every bucket empty or serving it already) is still checked
 * against itself: its ASN object against its database.
 *
 * @throws DiffError when a build or a bucket's version cannot be read; PublishError from the bucket.
 */
export async function diffGate(manifest: string, buckets: readonly ReadableBucket[], log: (line: string) => void, summary?: string): Promise<GateVerdict> {
  const build = buildOnDisk(manifest);
  const compared = new Set<string>([build.version]);
  const reports: DiffReport[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'ipgeo-gate-'));
  try {
    for (const bucket of buckets) {
      const text = await bucket.getText(CURRENT_RECORD_KEY);
      const served = text === null ? undefined : CurrentRecordSchema.safeParse(JSON.parse(text)).data?.current.version;
      if (served === undefined || compared.has(served)) continue;
      compared.add(served);
      const current = await currentBuild(bucket, mkdtempSync(join(dir, 'served-')), text);
      if (current === null) continue;
      const report = diffBuilds(current, build);
      reports.push(report);
      const table = diffTable(report);
      log(table);
      if (summary) appendFileSync(summary, `${table}\n`);
    }
    if (reports.length === 0) {
      const consistency = buildConsistency(build);
      const table = consistencyTable(build.label, build.version, consistency);
      log(table);
      if (summary) appendFileSync(summary, `${table}\n`);
      const broken = (consistency?.mismatches ?? 0) > 0;
      return { reports, stopped: broken, broken };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { reports, stopped: reports.some((report) => report.breaches.length > 0), broken: reports.some((report) => report.broken) };
}
