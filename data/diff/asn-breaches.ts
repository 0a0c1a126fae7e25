/**
 * @module The ASN object's section of a diff (`asn-diff.ts`) against its thresholds (`thresholds.ts`):
 * each measure over its threshold as a breach, said in words with its basis; a new build whose object
 * disagrees with its database first, as a breach no threshold allows.
 */

import type { AsnDiff } from './asn-diff.ts';
import type { AsnTotals } from './asn-view.ts';
import { count, FAMILY, percent, UNIT } from './format.ts';
import { type AsnMeasure, type Breach, THRESHOLDS } from './thresholds.ts';

/** Why a mismatch of the new build's ASN object with its database stops it whatever the thresholds, and whatever `--accept-diff` says. */
export const BROKEN_BASIS =
  'A build writes its database and its ASN object from the same routing source in one run: where they disagree, one of them is not what was built, so no --accept-diff publishes it; build it again.';

/** A share of `whole`, 0 when `whole` is 0. */
const shareOf = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

/** How much a total changed, as a share of the old one (1 when it was 0 and is no longer). */
export function totalChange(was: number, is: number): number {
  return was === 0 ? (is === 0 ? 0 : 1) : Math.abs(is - was) / was;
}

/** The totals compared, in the order tables list them. */
export function totalsOf(before: AsnTotals, after: AsnTotals): { name: string; was: number; is: number; family?: 'ipv4' | 'ipv6' }[] {
  return [
    { name: 'ASNs', was: before.asns, is: after.asns },
    { name: 'IPv4 prefixes', was: before.prefixes.ipv4, is: after.prefixes.ipv4, family: 'ipv4' },
    { name: 'IPv6 prefixes', was: before.prefixes.ipv6, is: after.prefixes.ipv6, family: 'ipv6' },
    { name: 'IPv4 addresses held', was: before.addresses.ipv4, is: after.addresses.ipv4, family: 'ipv4' },
    { name: 'IPv6 /64s held', was: before.addresses.ipv6, is: after.addresses.ipv6, family: 'ipv6' },
  ];
}

/** The measures of an ASN section over their thresholds; `consistency` first when the new build is broken. */
export function asnBreaches(section: AsnDiff): Breach[] {
  const breaches: Breach[] = [];
  /** Adds the measure when `value` is over `threshold`; `said` words it. */
  const over = (field: AsnMeasure, value: number, threshold: number, said: () => string, family?: 'ipv4' | 'ipv6') => {
    if (value <= threshold) return;
    const basis = field === 'consistency' ? BROKEN_BASIS : field === 'largestGain' ? THRESHOLDS.asn.largestGain.basis : THRESHOLDS.asn[field].basis;
    breaches.push({ object: 'asn', field, ...(family ? { family } : {}), value, threshold, said: said(), basis });
  };
  const { consistency, changes, before, after } = section;
  if (consistency !== null) {
    const { mismatches, checked } = consistency;
    over(
      'consistency',
      mismatches,
      0,
      () => `the new build's ASN object disagrees with its database at ${count(mismatches)} of ${count(checked)} sampled addresses`,
    );
  }
  if (changes === null || before === null || after === null) return breaches;
  const { asn: limits } = THRESHOLDS;
  for (const family of ['ipv4', 'ipv6'] as const) {
    const share = shareOf(changes.sample[family].changed, changes.sample[family].answered);
    const { share: most } = limits.sampledAsn;
    over(
      'sampledAsn',
      share,
      most,
      () => `ASN (by the ASN object) of ${percent(share)} of sampled ${FAMILY[family]} addresses (threshold ${percent(most)})`,
      family,
    );
    const gain = changes.largestGain[family];
    const ceiling = limits.largestGain[family];
    over(
      'largestGain',
      gain?.gained ?? 0,
      ceiling,
      () =>
        `AS${gain?.asn} gained ${count(gain?.gained ?? 0)} ${FAMILY[family]} ${UNIT[family]} (threshold ${count(ceiling)}, ${prefixWorth(ceiling, family)})`,
      family,
    );
  }
  const { appeared, disappeared, renamed, inBoth } = changes.asns;
  const churn = shareOf(appeared + disappeared, before.asns);
  const { share: most } = limits.asnsChanged;
  over(
    'asnsChanged',
    churn,
    most,
    () => `${count(appeared)} ASNs appeared and ${count(disappeared)} disappeared, ${percent(churn)} of ${count(before.asns)} (threshold ${percent(most)})`,
  );
  const renames = shareOf(renamed, inBoth);
  over('renamed', renames, limits.renamed.share, () => `organisation of ${percent(renames)} of the ASNs in both (threshold ${percent(limits.renamed.share)})`);
  for (const { name, was, is, family } of totalsOf(before, after)) {
    const change = totalChange(was, is);
    over(
      'totals',
      change,
      limits.totals.share,
      () => `${name} from ${count(was)} to ${count(is)}, ${percent(change)} (threshold ${percent(limits.totals.share)})`,
      family,
    );
  }
  for (const family of ['ipv4', 'ipv6'] as const) {
    const share = shareOf(changes.countries[family].moved, changes.countries[family].addresses);
    const { share: most } = limits.countries;
    over(
      'countries',
      share,
      most,
      () => `${percent(share)} of the sampled unchanged ASNs' ${FAMILY[family]} ${UNIT[family]} placed in another country (threshold ${percent(most)})`,
      family,
    );
  }
  return breaches;
}

/** `a /10's worth`: the prefix length whose network holds `size` addresses (IPv4) or /64s (IPv6). */
export function prefixWorth(size: number, family: 'ipv4' | 'ipv6'): string {
  const length = (family === 'ipv4' ? 32 : 64) - Math.log2(size);
  return `a /${Number(length.toFixed(1))}'s worth`;
}
