/**
 * @module Networks by ASN on a paid deployment whose database is three shards (`data/out/small-3/`): the
 * app reads the version's ASN object itself, so every ASN answers as the same data built as one file
 * (`data/out/small/`, its ASN object read with the layout's own reader) and as its source, MaxMind's
 * GeoLite2-ASN-Test JSON, says, under the sharded version.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { asnAnswer } from '../../src/asn/answer.ts';
import { blockOf, findInBlock, parseAsnIndex } from '../../src/geo/asn-layout.ts';
import { AsnSourceOracle, type ExpectedAsn } from '../support/asn-oracle.ts';
import { paidFetch } from '../support/paid-fetch.ts';
import { repoFile } from '../support/repo.ts';
import { SMALL_SHARDED_DIR } from '../support/sharded-build.ts';

interface Manifest {
  version: string;
  asn: { file: string; indexBytes: number; blockBytes: number; blocks: number };
}

let manifest: Manifest;
let oneFile: { manifest: Manifest; bytes: Uint8Array };
let source: AsnSourceOracle;
beforeAll(async () => {
  const read = async (path: string) => JSON.parse(new TextDecoder().decode(await repoFile(path))) as Manifest;
  manifest = await read(`${SMALL_SHARDED_DIR}/ipgeo.manifest.json`);
  const whole = await read('data/out/small/ipgeo.manifest.json');
  oneFile = { manifest: whole, bytes: new Uint8Array(await repoFile(`data/out/small/${whole.asn.file}`)) };
  source = AsnSourceOracle.fromMaxMindJson(JSON.parse(new TextDecoder().decode(await repoFile('test/fixtures/maxmind-db/source-data/GeoLite2-ASN-Test.json'))));
});

/** Page 1 of `asn` in the one-file build, as the route answers it. */
function oneFileAnswer(asn: number) {
  const { indexBytes, blockBytes } = oneFile.manifest.asn;
  const at = blockOf(parseAsnIndex(oneFile.bytes.subarray(0, indexBytes), oneFile.manifest.asn), asn, 0);
  const found = findInBlock(oneFile.bytes.subarray(indexBytes + at * blockBytes, indexBytes + (at + 1) * blockBytes), asn, 0);
  if (found.kind !== 'found') throw new Error(`AS${asn} is not in the one-file build`);
  return asnAnswer(found.page);
}

describe('networks by ASN with a sharded database', () => {
  it('answers the ASNs of the test data as the one-file build and its source do, under the sharded version', async () => {
    // Every third ASN of the source (a third of the requests, each checked against the OpenAPI document).
    const asns = [...source.sizes().keys()].filter((_, i) => i % 3 === 0);
    expect(asns.length).toBeGreaterThan(30);
    for (const asn of asns) {
      const response = await paidFetch(`/api/asn/${asn}`);
      expect(response.status, `AS${asn}`).toBe(200);
      expect(response.headers.get('X-Database-Version')).toBe(manifest.version);
      const answer = (await response.json()) as ReturnType<typeof asnAnswer>;
      expect(answer, `AS${asn}`).toEqual(JSON.parse(JSON.stringify(oneFileAnswer(asn))));
      const expected = source.expected(asn) as ExpectedAsn;
      expect([answer.prefixes.ipv4, answer.prefixes.ipv6, answer.addresses], `AS${asn}`).toEqual([expected.ipv4, expected.ipv6, expected.addresses]);
    }
    const missing = await paidFetch('/api/asn/64512');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('X-Database-Version')).toBe(manifest.version);
  });
});
