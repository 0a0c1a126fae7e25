/**
 * @module The ASNs the benchmarks ask for (`bench:ab` rows `asn`, `asnCache` and `asnLarge`), read from the
 * build's ASN object with the Worker's own layout: typical ASNs of a few dozen prefixes, few enough to
 * be kept by the isolate or spread over every block, the pages of the largest ASNs, and one page of
 * every block (to fill the Workers cache before a measure).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ASN_LAYOUT, pagesInBlock, parseAsnIndex } from '../src/geo/asn-layout.ts';

/** Prefixes of a typical ASN: "a few dozen". */
const TYPICAL = { least: 24, most: 60 } as const;

/** The paths to ask, each list a cycle. */
export interface AsnPaths {
  /** Typical ASNs of the first blocks, as many as the isolate keeps blocks of: answered from the isolate once warm. */
  readonly kept: string[];
  /** Every typical ASN, over every block: answered from the Workers cache once warm, the isolate keeping few of their blocks. */
  readonly typical: string[];
  /** Every full page of the ten largest ASNs. */
  readonly large: string[];
  /** One page of each block, in block order. */
  readonly everyBlock: string[];
}

export function asnPaths(outDir: string): AsnPaths {
  const manifest = JSON.parse(readFileSync(join(outDir, 'ipgeo.manifest.json'), 'utf8')) as {
    asn: { file: string; indexBytes: number; blockBytes: number; blocks: number };
  };
  const { file, indexBytes, blockBytes, blocks } = manifest.asn;
  const bytes = new Uint8Array(readFileSync(join(outDir, file)));
  const index = parseAsnIndex(bytes.subarray(0, indexBytes), manifest.asn);
  const sizes = new Map<number, { prefixes: number; pages: number; block: number }>();
  for (let k = 0; k < blocks; k++) {
    for (const page of pagesInBlock(bytes.subarray(indexBytes + k * blockBytes, indexBytes + (k + 1) * blockBytes))) {
      if (!sizes.has(page.asn)) sizes.set(page.asn, { prefixes: page.prefixTotals.ipv4 + page.prefixTotals.ipv6, pages: page.pages, block: k });
    }
  }
  const all = [...sizes];
  const typical = all.filter(([, size]) => size.prefixes >= TYPICAL.least && size.prefixes <= TYPICAL.most);
  const keptBlocks = [...new Set(typical.map(([, size]) => size.block))].slice(0, ASN_LAYOUT.keptBlocks);
  const largest = [...all].sort(([, a], [, b]) => b.prefixes - a.prefixes).slice(0, 10);
  return {
    kept: typical.filter(([, size]) => keptBlocks.includes(size.block)).map(([asn]) => `/api/asn/${asn}`),
    typical: typical.map(([asn]) => `/api/asn/${asn}`),
    large: largest.flatMap(([asn, size]) =>
      Array.from({ length: size.prefixes % 1000 === 0 ? size.pages : size.pages - 1 }, (_, page) => `/api/asn/${asn}?page=${page + 1}`),
    ),
    everyBlock: Array.from(index.firstAsn, (asn, k) => `/api/asn/${asn}?page=${(index.firstPage[k] as number) + 1}`),
  };
}

/**
 * Asks the deployment at `url` for one page of every block (`paths.everyBlock`), one request after
 * another, with `authorization`: its Workers cache then holds every block, as a location long in use has them.
 */
export async function askEveryBlock(url: URL, authorization: string, paths: AsnPaths): Promise<void> {
  for (const path of paths.everyBlock) await (await fetch(new URL(path, url), { headers: { Authorization: authorization } })).arrayBuffer();
}

/** A function that gives `paths` in turn, from the first again after the last. */
export function pathCycle(paths: readonly string[]): () => string {
  let next = 0;
  return () => paths[next++ % paths.length] as string;
}
