/**
 * @module The ASNs the benchmarks ask for (`bench:ab` rows `asn` and `asnLarge`), read from the build's
 * ASN object with the Worker's own layout: typical ASNs of a few dozen prefixes, and the pages of the
 * largest ASNs, each a page of its full size.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pagesInBlock } from '../src/geo/asn-layout.ts';

/** Prefixes of a typical ASN: "a few dozen". */
const TYPICAL = { least: 24, most: 60 } as const;

/** The paths to ask: a cycle over typical ASNs, and over every page of the ten largest. */
export function asnPaths(outDir: string): { typical: string[]; large: string[] } {
  const manifest = JSON.parse(readFileSync(join(outDir, 'ipgeo.manifest.json'), 'utf8')) as {
    asn: { file: string; indexBytes: number; blockBytes: number; blocks: number };
  };
  const { file, indexBytes, blockBytes, blocks } = manifest.asn;
  const bytes = new Uint8Array(readFileSync(join(outDir, file)));
  const sizes = new Map<number, { prefixes: number; pages: number }>();
  for (let k = 0; k < blocks; k++) {
    for (const page of pagesInBlock(bytes.subarray(indexBytes + k * blockBytes, indexBytes + (k + 1) * blockBytes))) {
      sizes.set(page.asn, { prefixes: page.prefixTotals.ipv4 + page.prefixTotals.ipv6, pages: page.pages });
    }
  }
  const all = [...sizes];
  const typical = all.filter(([, size]) => size.prefixes >= TYPICAL.least && size.prefixes <= TYPICAL.most).map(([asn]) => `/api/asn/${asn}`);
  const largest = all.sort(([, a], [, b]) => b.prefixes - a.prefixes).slice(0, 10);
  const large = largest.flatMap(([asn, size]) =>
    Array.from({ length: size.pages - (size.prefixes % 1000 === 0 ? 0 : 1) }, (_, page) => `/api/asn/${asn}?page=${page + 1}`),
  );
  return { typical, large };
}
