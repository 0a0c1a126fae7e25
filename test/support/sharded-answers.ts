/**
 * @module The shards' equality (docs/sharding.md, "Serving"): the answers of a build of N shards, each address answered by the
 * shard `shardIndexOf` picks, against the answers of the build of one file, through the lookup pipeline
 * and the renderer (`src/lookup/`): the default record and every field (`fields=all`, its network and
 * local time included), JSON and XML, single and bulk documents, positions, every language. Used by `test/node/sharded-answers.test.ts` and by `bench/sharded-answers.ts`.
 */

import { type Utf8, utf8 } from '../../src/format/utf8.ts';
import { GeoDatabase } from '../../src/geo/database.ts';
import { LANGUAGES } from '../../src/geo/languages.ts';
import { parseRanges, type ShardRange, shardIndexOf } from '../../src/geo/shard-ranges.ts';
import { parseIp } from '../../src/ip/address.ts';
import type { Format } from '../../src/lookup/entries.ts';
import { BULK_FIELDS, DEFAULT_FIELDS, EVERY_FIELD } from '../../src/lookup/fields.ts';
import { type LookupFailure, lookupAll, type Outcome, positionOf } from '../../src/lookup/pipeline.ts';
import { bulkBody, singleBody } from '../../src/lookup/render.ts';

/** A build of N shards as the app holds it: each shard's database, and the ranges that route to them. */
export interface ShardedDatabases {
  readonly ranges: readonly ShardRange[];
  readonly shards: readonly GeoDatabase[];
}

/**
 * Opens the shards of a build from their bytes and their manifest's ranges (`data/output.ts`, `shards`).
 *
 * @throws Error when the ranges do not tile the address space.
 */
export function openShards(files: readonly { readonly first: string; readonly last: string; readonly bytes: Uint8Array }[]): ShardedDatabases {
  const ranges = parseRanges(files);
  if ('error' in ranges) throw new Error(`the manifest's ranges: ${ranges.error}`);
  return { ranges, shards: files.map((file) => new GeoDatabase(file.bytes)) };
}

/** What {@link compareAnswers} found: how much it compared and the first differences, in words. */
export interface AnswerComparison {
  /** Addresses compared. */
  readonly addresses: number;
  /** Of those, the ones the build of one file found a record for. */
  readonly found: number;
  /** Documents compared (single, bulk and positions, per format and language). */
  readonly documents: number;
  /** Addresses each shard answered, by shard index. */
  readonly perShard: readonly number[];
  /** Up to `maxDifferences` differences, each naming the address or batch, the shape, format and language. */
  readonly differences: readonly string[];
}

const FORMATS: readonly Format[] = ['json', 'xml'];
const BATCH = 100;
/** The instant every view answers at: both sides render the local-time fields of `fields=all` at it. */
const NOW = Date.UTC(2026, 2, 29, 1, 30);

/** A failure as bulk items write it: the same text on both sides, so that a difference in kind or address shows. */
const failedText = (failure: LookupFailure): Utf8 => utf8(JSON.stringify(failure));

/**
 * Looks every address up as the app of N shards routes it (each public address to the shard of
 * {@link shardIndexOf}; invalid and reserved ones need no shard) and as the app of one file does, and
 * compares every document: single (the default record and every field) and bulk (batches of 100, the
 * bulk fields and every field) in JSON and XML, and the positions distance uses, in every language.
 *
 * @param maxDifferences how many differences to keep (the rest are only counted in none).
 */
export function compareAnswers(whole: GeoDatabase, sharded: ShardedDatabases, texts: readonly string[], maxDifferences = 20): AnswerComparison {
  const differences: string[] = [];
  const perShard = sharded.shards.map(() => 0);
  let documents = 0;
  let found = 0;
  const differ = (what: string, a: string, b: string) => {
    documents++;
    if (a !== b && differences.length < maxDifferences) differences.push(`${what}: ${a.slice(0, 300)} ≠ ${b.slice(0, 300)}`);
  };
  for (let start = 0; start < texts.length; start += BATCH) {
    const batch = texts.slice(start, start + BATCH);
    for (const positions of [false, true]) {
      const expected = lookupAll(whole, batch, { positions });
      const actual = routedLookup(sharded, batch, positions, positions ? undefined : perShard);
      if (!positions) found += expected.filter((outcome) => outcome.kind === 'found').length;
      for (const [language] of LANGUAGES.entries()) {
        batch.forEach((text, i) => {
          const a = expected[i] as Outcome;
          const b = actual[i] as Outcome;
          if (a.kind !== 'found' || b.kind !== 'found') {
            if (language === 0) differ(`${text} (${positions ? 'positions' : 'lookup'})`, JSON.stringify(a), JSON.stringify(b));
            return;
          }
          if (positions) {
            differ(`${text} position in ${LANGUAGES[language]}`, JSON.stringify(positionOf(a, language)), JSON.stringify(positionOf(b, language)));
            return;
          }
          for (const format of FORMATS) {
            for (const fields of [DEFAULT_FIELDS, EVERY_FIELD]) {
              differ(
                `${text} single ${format} in ${LANGUAGES[language]}${fields === EVERY_FIELD ? ', every field' : ''}`,
                singleBody(a, format, { fields, language, now: NOW }),
                singleBody(b, format, { fields, language, now: NOW }),
              );
            }
          }
        });
        if (positions) continue;
        for (const format of FORMATS) {
          for (const fields of [BULK_FIELDS, EVERY_FIELD]) {
            const view = { fields, language, now: NOW };
            differ(
              `bulk of ${batch[0]}… ${format} in ${LANGUAGES[language]}${fields === EVERY_FIELD ? ', every field' : ''}`,
              bulkBody(format, batch, expected, view, failedText),
              bulkBody(format, batch, actual, view, failedText),
            );
          }
        }
      }
    }
  }
  return { addresses: texts.length, found, documents, perShard, differences };
}

/** The outcomes of `texts` looked up in the shard each one routes to, in their order; counts the routed ones into `perShard`. */
function routedLookup(sharded: ShardedDatabases, texts: readonly string[], positions: boolean, perShard: number[] | undefined): Outcome[] {
  const byShard = sharded.shards.map((): { at: number[]; texts: string[] } => ({ at: [], texts: [] }));
  const outcomes: Outcome[] = new Array(texts.length);
  texts.forEach((text, i) => {
    const address = parseIp(text);
    const shard = byShard[address ? shardIndexOf(sharded.ranges, address) : 0];
    shard?.at.push(i);
    shard?.texts.push(text);
  });
  byShard.forEach((group, k) => {
    if (group.texts.length === 0) return;
    const answered = lookupAll(sharded.shards[k] as GeoDatabase, group.texts, { positions });
    group.at.forEach((at, j) => {
      outcomes[at] = answered[j] as Outcome;
    });
    if (perShard) perShard[k] = (perShard[k] as number) + group.texts.length;
  });
  return outcomes;
}
