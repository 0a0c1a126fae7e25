/**
 * @module The diff gate's thresholds as docs/operations.md tables them, written from
 * `data/diff/thresholds.ts` by `npm run docs:examples`, so that the document states what the gate holds.
 */
import { BROKEN_BASIS, prefixWorth } from '../../data/diff/asn-breaches.ts';
import { percent } from '../../data/diff/format.ts';
import { THRESHOLDS } from '../../data/diff/thresholds.ts';

/** A table cell: the text on one line, its pipes escaped. */
const cell = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|');

/** A Markdown table of `rows` under `header`. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return `${[line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n')}\n`;
}

/** The database's thresholds, a row per compared field: its name, its share, its basis. */
export function databaseThresholdTable(): string {
  return table(
    ['field', 'threshold', 'why'],
    Object.entries(THRESHOLDS.database).map(([field, { share, basis }]) => [field, percent(share), basis]),
  );
}

/** The ASN object's thresholds, a row per measure, ending with the consistency check that no override passes. */
export function asnThresholdTable(): string {
  const { largestGain, ...shares } = THRESHOLDS.asn;
  const gain = `${prefixWorth(largestGain.ipv4, 'ipv4')} of IPv4 addresses; ${prefixWorth(largestGain.ipv6, 'ipv6')} of IPv6 /64s`;
  return table(
    ['measure', 'threshold', 'why'],
    [
      ...Object.entries(shares).map(([measure, { share, basis }]) => [measure, percent(share), basis]),
      ['largestGain', gain, largestGain.basis],
      ['consistency', 'none: any mismatch', BROKEN_BASIS],
    ],
  );
}
