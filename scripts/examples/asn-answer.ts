/**
 * @module The ASN answer of docs/api.md ("Networks by ASN"), from a build's ASN object: page 1 of
 * {@link EXAMPLE_ASN}, found with the Worker's own reader of the layout (`src/geo/asn-layout.ts`) and
 * rendered by the route's own `asnAnswer`, its lists cut to their first entries (`…` for the rest), one
 * line per group of members. Written by `npm run docs:examples`.
 */
import { readFileSync } from 'node:fs';
import { asnAnswer } from '../../src/asn/answer.ts';
import { blockOf, findInBlock, parseAsnIndex } from '../../src/geo/asn-layout.ts';

/** The AS number of the example: Cloudflare's, of two pages in the default build. */
const EXAMPLE_ASN = 13_335;

/** How many entries of each list the example shows. */
const SHOWN = { ipv4: 3, ipv6: 1, countries: 2 } as const;

/** What the example takes from a build's manifest (`Manifest['asn']` of `data/output.ts`). */
export interface AsnObjectFile {
  readonly indexBytes: number;
  readonly blockBytes: number;
  readonly blocks: number;
}

/** `items` as a JSON array of its first `shown`, `…` standing for the others. */
function cut(items: readonly unknown[], shown: number): string {
  const parts = items.slice(0, shown).map((item) => JSON.stringify(item));
  return `[${[...parts, ...(items.length > shown ? ['…'] : [])].join(',')}]`;
}

/**
 * The example's text: the JSON answer to `GET /api/asn/13335` from the ASN object `bytes` described by
 * `info`, its lists cut.
 *
 * @throws Error when the object does not hold AS13335.
 */
function asnExample(bytes: Uint8Array, info: AsnObjectFile): string {
  const index = parseAsnIndex(bytes.subarray(0, info.indexBytes), info);
  const at = blockOf(index, EXAMPLE_ASN, 0);
  const found =
    at < 0 ? undefined : findInBlock(bytes.subarray(info.indexBytes + at * info.blockBytes, info.indexBytes + (at + 1) * info.blockBytes), EXAMPLE_ASN, 0);
  if (found?.kind !== 'found') throw new Error(`the ASN object holds no AS${EXAMPLE_ASN}, the example of docs/api.md`);
  const answer = asnAnswer(found.page);
  // A member from the JSON text of its value.
  const member = (name: string, json: string) => `${JSON.stringify(name)}:${json}`;
  const value = (name: string, of: unknown) => member(name, JSON.stringify(of));
  return [
    `{${value('asn', answer.asn)},${value('organization', answer.organization)},`,
    ` ${member('prefixes', `{${member('ipv4', cut(answer.prefixes.ipv4, SHOWN.ipv4))},${member('ipv6', cut(answer.prefixes.ipv6, SHOWN.ipv6))}}`)},`,
    ` ${value('addresses', answer.addresses)},`,
    ` ${member('countries', cut(answer.countries, SHOWN.countries))},`,
    ` ${value('page', answer.page)},${value('pages', answer.pages)},${value('prefixTotals', answer.prefixTotals)}}`,
  ].join('\n');
}

/** {@link asnExample} of the ASN object in the file `path`. */
export function asnExampleOf(path: string, info: AsnObjectFile): string {
  return asnExample(new Uint8Array(readFileSync(path)), info);
}
