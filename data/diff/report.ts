/**
 * @module A diff report of two builds: a section per data object of a version (the geolocation
 * database now), the thresholds it crosses (`thresholds.ts`), and its table in Markdown for a person
 * (the refresh workflow's summary) beside its JSON for the gate.
 */
import type { ComparedBuild } from './builds.ts';
import { type DatabaseDiff, databaseDiff } from './database-diff.ts';
import { DIFF_FIELDS, type DiffField, MOVED_KM } from './facts.ts';
import { THRESHOLDS } from './thresholds.ts';

/** A share of the sample over its threshold. */
interface Breach {
  /** The data object of the section: `database`. */
  readonly object: string;
  readonly field: DiffField;
  readonly family: 'ipv4' | 'ipv6';
  /** Changed addresses over answered ones, 0 to 1. */
  readonly share: number;
  readonly threshold: number;
}

/** What `data:diff` finds, as its JSON gives it. */
export interface DiffReport {
  readonly before: { readonly label: string; readonly version: string };
  readonly after: { readonly label: string; readonly version: string };
  /** One section per data object of a version. */
  readonly sections: readonly DatabaseDiff[];
  /** Empty when every share is within its threshold: the gate lets the build through. */
  readonly breaches: readonly Breach[];
}

/** The share of answered addresses of a family whose `field` changed, 0 when none was answered. */
function shareOf(section: DatabaseDiff, family: 'ipv4' | 'ipv6', field: DiffField): number {
  const { answered, changed } = section.sample[family];
  return answered === 0 ? 0 : changed[field] / answered;
}

/** Compares two builds. */
export function diffBuilds(before: ComparedBuild, after: ComparedBuild): DiffReport {
  const database = databaseDiff(before, after);
  const breaches: Breach[] = [];
  for (const family of ['ipv4', 'ipv6'] as const) {
    for (const field of DIFF_FIELDS) {
      const share = shareOf(database, family, field);
      const threshold = THRESHOLDS.database[field].share;
      if (share > threshold) breaches.push({ object: 'database', field, family, share, threshold });
    }
  }
  return {
    before: { label: before.label, version: before.version },
    after: { label: after.label, version: after.version },
    sections: [database],
    breaches,
  };
}

/** `0.412%`: three significant digits, or `0%`. */
function percent(share: number): string {
  if (share === 0) return '0%';
  return `${Number((share * 100).toPrecision(3))}%`;
}

const count = (n: number) => Math.round(n).toLocaleString('en-US');
const FAMILY = { ipv4: 'IPv4', ipv6: 'IPv6' } as const;
const UNIT = { ipv4: 'addresses', ipv6: '/64s' } as const;

/** The report as Markdown: the verdict, the shares against their thresholds, the networks, the largest changes. */
export function diffTable(report: DiffReport): string {
  const lines = [`### data:diff: ${report.before.label} ${report.before.version} → ${report.after.label} ${report.after.version}`, ''];
  lines.push(
    report.breaches.length === 0
      ? '**Within every threshold.**'
      : `**Over ${report.breaches.length === 1 ? 'a threshold' : `${report.breaches.length} thresholds`}:** ${report.breaches
          .map((b) => `${b.field} of ${percent(b.share)} of ${FAMILY[b.family]} addresses (threshold ${percent(b.threshold)})`)
          .join('; ')}.`,
    '',
  );
  for (const field of new Set(report.breaches.map((b) => b.field))) lines.push(`- ${field}: ${THRESHOLDS.database[field].basis}`);
  if (report.breaches.length > 0) lines.push('');
  for (const section of report.sections) {
    const { ipv4, ipv6 } = section.sample;
    lines.push(
      `Changed answers of the fixed sample: ${count(ipv4.answered)} of ${count(ipv4.sampled)} IPv4 and ${count(ipv6.answered)} of ${count(ipv6.sampled)} IPv6 addresses answered by either build (coordinates: moved over ${MOVED_KM} km).`,
      '',
      '| field | IPv4 | IPv6 | threshold |',
      '|---|---:|---:|---:|',
    );
    for (const field of DIFF_FIELDS) {
      const cell = (family: 'ipv4' | 'ipv6') => {
        const over = report.breaches.some((b) => b.family === family && b.field === field);
        const text = `${percent(shareOf(section, family, field))} (${count(section.sample[family].changed[field])})`;
        return over ? `**${text}**` : text;
      };
      lines.push(`| ${field} | ${cell('ipv4')} | ${cell('ipv6')} | ${percent(THRESHOLDS.database[field].share)} |`);
    }
    lines.push('');
    for (const family of ['ipv4', 'ipv6'] as const) {
      const n = section.networks[family];
      lines.push(
        `${FAMILY[family]} networks: ${count(n.appeared)} appeared (${count(n.appearedSize)} ${UNIT[family]}), ${count(n.disappeared)} disappeared (${count(n.disappearedSize)} ${UNIT[family]}).`,
      );
    }
    for (const family of ['ipv4', 'ipv6'] as const) {
      const largest = section.largest[family];
      if (largest.length === 0) continue;
      lines.push(
        '',
        `Largest changed ${FAMILY[family]} networks:`,
        '',
        `| network | ${UNIT[family]} changed | fields | before | after |`,
        '|---|---:|---|---|---|',
      );
      for (const n of largest) lines.push(`| ${n.network} | ${count(n.size)} | ${n.fields.join(', ')} | ${n.before} | ${n.after} |`);
    }
    lines.push('');
    if (section.wellKnown.length === 0) lines.push('Well-known networks: none changed.');
    else {
      lines.push('Well-known networks that changed:', '', '| network | whose | fields | before | after |', '|---|---|---|---|---|');
      for (const n of section.wellKnown) lines.push(`| ${n.network} | ${n.name} | ${n.fields.join(', ')} | ${n.before} | ${n.after} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
