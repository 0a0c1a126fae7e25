/**
 * @module The ASN object's part of a diff table (`asn-diff.ts`'s section) in Markdown: whether the new
 * build's object agrees with its database, the measures against their thresholds, the totals, the ASNs
 * that appeared, disappeared or were renamed, and those whose holdings changed most. Organisation names
 * come from the routing source: a cell shows at most {@link NAME_CHARACTERS} characters of one, in one line.
 */
import { BROKEN_BASIS, prefixWorth, totalChange, totalsOf } from './asn-breaches.ts';
import type { AsnConsistency, AsnDiff, HoldingChange } from './asn-diff.ts';
import { cellText, count, FAMILY, percent, sized, UNIT } from './format.ts';
import { type Breach, THRESHOLDS } from './thresholds.ts';

const NAME_CHARACTERS = 60;

/** An organisation's name as one table cell (`cellText`). */
const named = (text: string) => cellText(text, NAME_CHARACTERS);

const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

/** Whether the new build's ASN object agrees with its database, with examples where it does not. */
function consistencyLines(consistency: AsnConsistency): string[] {
  if (consistency.mismatches === 0) {
    return [
      `The new build's ASN object agrees with its database at every one of the ${count(consistency.checked)} sampled addresses that either gives an ASN.`,
      '',
    ];
  }
  return [
    `**The new build's ASN object disagrees with its database** at ${count(consistency.mismatches)} of ${count(consistency.checked)} sampled addresses, among them:`,
    '',
    "| address | the database's ASN | the ASN object's |",
    '|---|---|---|',
    ...consistency.examples.map((e) => `| ${e.address} | ${e.database ? `AS${e.database}` : 'none'} | ${e.object ? `AS${e.object}` : 'none'} |`),
    '',
  ];
}

/** A build's ASN object against its own database, as a table of its own: what the gate prints of a build it compares with no other. */
export function consistencyTable(label: string, version: string, consistency: AsnConsistency | null): string {
  const lines = [`### data:diff: ${label} ${version} against itself`, ''];
  if (consistency === null) lines.push('It has no ASN object.', '');
  else {
    if (consistency.mismatches > 0) lines.push(`**Broken build:** no \`--accept-diff\` publishes it. ${BROKEN_BASIS}`, '');
    lines.push(...consistencyLines(consistency));
  }
  return lines.join('\n');
}

/** The ASN section's lines. */
export function asnTable(section: AsnDiff, breaches: readonly Breach[]): string[] {
  const lines = ['#### ASN object', ''];
  const { before, after, consistency, changes } = section;
  if (before === null || after === null) {
    lines.push(
      before === null && after === null
        ? 'Neither build has an ASN object (versions published before builds had one): nothing of it is compared.'
        : before === null
          ? "The old build has no ASN object (a version published before builds had one): only the new build's is checked."
          : 'The new build has no ASN object: nothing of it is compared.',
      '',
    );
  }
  if (consistency !== null) lines.push(...consistencyLines(consistency));
  if (changes === null || before === null || after === null) return lines;
  const bold = (field: Breach['field'], family: 'ipv4' | 'ipv6' | undefined, text: string) =>
    breaches.some((b) => b.object === 'asn' && b.field === field && b.family === family) ? `**${text}**` : text;
  const { asn: limits } = THRESHOLDS;
  const sampled = (family: 'ipv4' | 'ipv6') => {
    const { answered, changed } = changes.sample[family];
    return bold('sampledAsn', family, `${percent(share(changed, answered))} (${count(changed)} of ${count(answered)})`);
  };
  const gained = (family: 'ipv4' | 'ipv6') => {
    const gain = changes.largestGain[family];
    return gain === null ? 'none' : bold('largestGain', family, `AS${gain.asn}: ${sized(gain.gained, family)}`);
  };
  const moved = (family: 'ipv4' | 'ipv6') => {
    const { addresses, moved: away } = changes.countries[family];
    return bold('countries', family, `${percent(share(away, addresses))} (${sized(away, family)} of ${sized(addresses, family)})`);
  };
  lines.push(
    '| measure | IPv4 | IPv6 | threshold |',
    '|---|---:|---:|---:|',
    `| sampled addresses whose ASN changed (of those either object holds) | ${sampled('ipv4')} | ${sampled('ipv6')} | ${percent(limits.sampledAsn.share)} |`,
    `| most gained by one ASN (addresses; /64s) | ${gained('ipv4')} | ${gained('ipv6')} | ${prefixWorth(limits.largestGain.ipv4, 'ipv4')}; ${prefixWorth(limits.largestGain.ipv6, 'ipv6')} |`,
    `| addresses of sampled unchanged ASNs placed in another country (addresses; /64s) | ${moved('ipv4')} | ${moved('ipv6')} | ${percent(limits.countries.share)} |`,
    '',
    '| total | before | after | change | threshold |',
    '|---|---:|---:|---:|---:|',
  );
  for (const { name, was, is } of totalsOf(before, after)) {
    const change = totalChange(was, is);
    const text = `${is > was ? '+' : is < was ? '−' : ''}${percent(change)}`;
    const size = (n: number) => (name.endsWith('/64s held') ? sized(n, 'ipv6') : count(n));
    lines.push(`| ${name} | ${size(was)} | ${size(is)} | ${change > limits.totals.share ? `**${text}**` : text} | ${percent(limits.totals.share)} |`);
  }
  const { asns } = changes;
  const churn = share(asns.appeared + asns.disappeared, before.asns);
  lines.push(
    '',
    `ASNs: ${count(asns.appeared)} appeared, ${count(asns.disappeared)} disappeared (${bold('asnsChanged', undefined, percent(churn))} of ${count(before.asns)}; threshold ${percent(limits.asnsChanged.share)}); ` +
      `organisation changed for ${count(asns.renamed)} of the ${count(asns.inBoth)} in both (${bold('renamed', undefined, percent(share(asns.renamed, asns.inBoth)))}; threshold ${percent(limits.renamed.share)})` +
      (asns.renamedExamples.length === 0
        ? '.'
        : `, among them ${asns.renamedExamples.map((r) => `AS${r.asn} "${named(r.before)}" → "${named(r.after)}"`).join(', ')}.`),
    `Countries compared for ${count(changes.countries.asns)} sampled ASNs whose prefixes did not change (one ASN number in eight by a fixed hash, and each build's largest of each family; ${count(changes.countries.rerouted)} more sampled whose prefixes changed).`,
  );
  for (const family of ['ipv4', 'ipv6'] as const) {
    const largest = changes.largest[family];
    if (largest.length === 0) continue;
    lines.push(
      '',
      `ASNs whose ${FAMILY[family]} holdings changed most (${UNIT[family]}):`,
      '',
      '| ASN | organisation | before | after | gained | lost |',
      '|---|---|---:|---:|---:|---:|',
    );
    const size = (n: number) => sized(n, family);
    lines.push(
      ...largest.map(
        (c: HoldingChange) => `| AS${c.asn} | ${named(c.organization)} | ${size(c.before)} | ${size(c.after)} | ${size(c.gained)} | ${size(c.lost)} |`,
      ),
    );
  }
  return lines;
}
