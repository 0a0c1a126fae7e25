/**
 * @module A diff report of two builds: a section per data object of a version (the geolocation database,
 * the ASN object), the measures over their thresholds (`thresholds.ts`), and its table in Markdown for a
 * person (the refresh workflow's summary) beside its JSON for the gate.
 */
import { asnBreaches } from './asn-breaches.ts';
import { type AsnDiff, asnDiff } from './asn-diff.ts';
import { asnTable } from './asn-table.ts';
import type { ComparedBuild } from './builds.ts';
import { type DatabaseDiff, databaseDiff, sampledAnswers } from './database-diff.ts';
import { DIFF_FIELDS, type DiffField, MOVED_KM } from './facts.ts';
import { cellText, count, FAMILY, percent, sized, UNIT } from './format.ts';
import { addressSample } from './sample.ts';
import { type Breach, THRESHOLDS } from './thresholds.ts';

/** What `data:diff` finds, as its JSON gives it. */
export interface DiffReport {
  readonly before: { readonly label: string; readonly version: string };
  readonly after: { readonly label: string; readonly version: string };
  /** One section per data object of a version. */
  readonly sections: readonly [DatabaseDiff, AsnDiff];
  /** Empty when every measure is within its threshold: the gate lets the build through. */
  readonly breaches: readonly Breach[];
  /** The new build's objects disagree with each other: the gate stops it, and no `--accept-diff` lets it through. */
  readonly broken: boolean;
}

/** Answered and changed counts of one family: over every address (`exact`) or on the fixed sample. */
type Counts = { readonly answered: number; readonly changed: Readonly<Record<DiffField, number>> };

/** The share of answered addresses whose `field` changed, 0 when none was answered. */
function shareOf({ answered, changed }: Counts, field: DiffField): number {
  return answered === 0 ? 0 : changed[field] / answered;
}

/** Compares two builds: the database's verdict over every address, each object on the same fixed address sample. */
export function diffBuilds(before: ComparedBuild, after: ComparedBuild): DiffReport {
  const sample = addressSample();
  const answers = { before: sampledAnswers(before, sample), after: sampledAnswers(after, sample) };
  const database = databaseDiff(before, after, sample, answers);
  const asn = asnDiff(before, after, sample, answers.after);
  const breaches: Breach[] = [];
  for (const family of ['ipv4', 'ipv6'] as const) {
    for (const field of DIFF_FIELDS) {
      const share = shareOf(database.exact[family], field);
      const { share: threshold, basis } = THRESHOLDS.database[field];
      const said = `${field} of ${percent(share)} of ${FAMILY[family]} ${UNIT[family]} (threshold ${percent(threshold)})`;
      if (share > threshold) breaches.push({ object: 'database', field, family, value: share, threshold, said, basis });
    }
  }
  const asnOver = asnBreaches(asn);
  return {
    before: { label: before.label, version: before.version },
    after: { label: after.label, version: after.version },
    sections: [database, asn],
    breaches: [...breaches, ...asnOver],
    broken: asnOver.some((breach) => breach.field === 'consistency'),
  };
}

/** The report as Markdown: the verdict, then each section (the database's shares, networks and largest changes; the ASN object's, `asn-table.ts`). */
export function diffTable(report: DiffReport): string {
  const lines = [`### data:diff: ${report.before.label} ${report.before.version} → ${report.after.label} ${report.after.version}`, ''];
  const broken = report.breaches.filter((b) => b.field === 'consistency');
  const over = report.breaches.filter((b) => b.field !== 'consistency');
  if (broken.length > 0) lines.push(`**Broken build:** ${broken.map((b) => b.said).join('; ')}. No \`--accept-diff\` publishes it.`, '');
  if (over.length > 0 || broken.length === 0) {
    lines.push(
      over.length === 0
        ? '**Within every threshold.**'
        : `**Over ${over.length === 1 ? 'a threshold' : `${over.length} thresholds`}:** ${over.map((b) => b.said).join('; ')}.`,
      '',
    );
  }
  const bases = new Map(report.breaches.map((b) => [b.field, b.basis]));
  for (const [field, basis] of bases) lines.push(`- ${field}: ${basis}`);
  if (bases.size > 0) lines.push('');
  const [database, asn] = report.sections;
  lines.push(...databaseTable(database, report.breaches), '', ...asnTable(asn, report.breaches));
  return `${lines.join('\n')}\n`;
}

/** An answer's words (`describeFacts`) as a table cell: their names (city, organisation) are the sources' text. */
const answerCell = (words: string) => cellText(words, 160);

/** The database section's lines. */
function databaseTable(section: DatabaseDiff, breaches: readonly Breach[]): string[] {
  const { exact, sample } = section;
  const lines = [
    `Changed answers over every address either build answers, the verdict: ${count(exact.ipv4.answered)} IPv4 addresses and ${sized(exact.ipv6.answered, 'ipv6')} IPv6 /64s (coordinates: moved over ${MOVED_KM} km). Beside them, for reading only, the fixed sample: ${count(sample.ipv4.answered)} of ${count(sample.ipv4.sampled)} IPv4 and ${count(sample.ipv6.answered)} of ${count(sample.ipv6.sampled)} IPv6 addresses answered.`,
    '',
    '| field | IPv4 (verdict) | IPv6 (verdict) | threshold | IPv4, sample | IPv6, sample |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const field of DIFF_FIELDS) {
    const verdict = (family: 'ipv4' | 'ipv6') => {
      const over = breaches.some((b) => b.object === 'database' && b.family === family && b.field === field);
      const text = `${percent(shareOf(exact[family], field))} (${sized(exact[family].changed[field], family)})`;
      return over ? `**${text}**` : text;
    };
    const sampled = (family: 'ipv4' | 'ipv6') => `${percent(shareOf(sample[family], field))} (${count(sample[family].changed[field])})`;
    lines.push(
      `| ${field} | ${verdict('ipv4')} | ${verdict('ipv6')} | ${percent(THRESHOLDS.database[field].share)} | ${sampled('ipv4')} | ${sampled('ipv6')} |`,
    );
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
    for (const n of largest) lines.push(`| ${n.network} | ${count(n.size)} | ${n.fields.join(', ')} | ${answerCell(n.before)} | ${answerCell(n.after)} |`);
  }
  lines.push('');
  if (section.wellKnown.length === 0) lines.push('Well-known networks: none changed.');
  else {
    lines.push('Well-known networks that changed:', '', '| network | whose | fields | before | after |', '|---|---|---|---|---|');
    for (const n of section.wellKnown) lines.push(`| ${n.network} | ${n.name} | ${n.fields.join(', ')} | ${answerCell(n.before)} | ${answerCell(n.after)} |`);
  }
  return lines;
}
