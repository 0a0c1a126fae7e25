/**
 * @module What an ASN answer reads (docs/storage.md, "The ASN object"): on a cold cache the current record,
 * the index and one block, then nothing more while warm; a cold isolate of a warm location the record
 * alone; a cached copy that fails its check read again from R2; a block whose R2 bytes fail their check
 * refused (503) and logged as damage. MaxMind's test data (`data/out/small`) under versions of this
 * file's own, since the Workers cache is shared by the files running at once.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { pieceKey } from '../../src/asn/pieces.ts';
import { type AsnEnv, AsnStore } from '../../src/asn/store.ts';
import { CACHE_NAME } from '../../src/geo/bucket.ts';
import { asnObjectKey, CURRENT_RECORD_KEY, type PublishedAsn } from '../../src/geo/published.ts';
import { DataUnavailableError } from '../../src/geo/unavailable.ts';
import { compiledAsnObject, compiledBuild, epochVariant, publish } from '../support/publish.ts';

const VERSION = '2026-10-21.5a0d0021';
const DAMAGED = '2026-10-22.5a0d0022';

/** Every read of the bucket: its key, and the range asked for, if any. */
const reads: { key: string; range?: { offset: number; length: number } }[] = [];
const bucket = {
  get: (key: string, options?: { range: { offset: number; length: number } }) => {
    reads.push({ key, ...(options ? { range: options.range } : {}) });
    return options ? env.GEO_DATA.get(key, options) : env.GEO_DATA.get(key);
  },
};
const bindings: AsnEnv = { PLAN: 'paid', REGION: 'de', GEO_DATA: bucket };

let asn: PublishedAsn;
let small: Uint8Array;
beforeAll(async () => {
  small = new Uint8Array((await compiledBuild('data/out/small')).bytes);
  const object = await compiledAsnObject('data/out/small');
  const record = await publish(epochVariant(small, 21), VERSION, new Date(), undefined, object);
  asn = record.current.asn as PublishedAsn;
});

afterEach(() => {
  reads.length = 0;
  vi.restoreAllMocks();
});

/** Page 1 of AS237 from `store`, the context's work (the cache's fills) done before it returns. */
async function find(store: AsnStore) {
  const ctx = createExecutionContext();
  try {
    return await store.find(bindings, ctx, undefined, 237, 0);
  } finally {
    await waitOnExecutionContext(ctx);
  }
}

describe('the reads of an ASN answer', () => {
  it('reads the record, the index and one block on a cold cache, nothing more while warm, the record alone in a cold isolate', async () => {
    const isolate = new AsnStore();
    expect((await find(isolate)).kind).toBe('found');
    expect(reads).toEqual([
      { key: CURRENT_RECORD_KEY },
      { key: asnObjectKey(VERSION), range: { offset: 0, length: asn.indexBytes } },
      { key: asnObjectKey(VERSION), range: { offset: asn.indexBytes, length: asn.blockBytes } },
    ]);
    reads.length = 0;
    expect((await find(isolate)).kind).toBe('found');
    expect(reads).toEqual([]);
    expect((await find(new AsnStore())).kind).toBe('found');
    expect(reads).toEqual([{ key: CURRENT_RECORD_KEY }]);
  });

  it('reads a block again from R2 when its cached copy fails its check, and caches it anew', async () => {
    const cache = await caches.open(CACHE_NAME);
    const block = { offset: asn.indexBytes, length: asn.blockBytes };
    await cache.put(pieceKey(asn, block), new Response(new Uint8Array(asn.blockBytes), { headers: { 'Cache-Control': 'public, max-age=2592000, immutable' } }));
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect((await find(new AsnStore())).kind).toBe('found');
    expect(reads.map((read) => read.range?.offset)).toEqual([undefined, asn.indexBytes]);
    expect(log.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      expect.objectContaining({ event: 'damage', version: VERSION, source: 'cache', why: expect.stringContaining('block 0') }),
    ]);
    const cached = await cache.match(pieceKey(asn, block));
    expect(new Uint8Array((await cached?.arrayBuffer()) ?? new ArrayBuffer(0)).some((byte) => byte !== 0)).toBe(true);
  });

  it('refuses a block whose R2 bytes fail their check, logs the damage, and answers once they are mended', async () => {
    const object = await compiledAsnObject('data/out/small');
    await publish(epochVariant(small, 22), DAMAGED, new Date(), undefined, object);
    const good = new Uint8Array(object.body);
    const spoilt = good.slice();
    spoilt[object.indexBytes + 100] = (spoilt[object.indexBytes + 100] as number) ^ 0xff;
    await env.GEO_DATA.put(asnObjectKey(DAMAGED), spoilt);
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const store = new AsnStore();
    await expect(find(store)).rejects.toThrow(DataUnavailableError);
    expect(log.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      expect.objectContaining({ event: 'damage', version: DAMAGED, source: 'r2', why: expect.stringContaining('block 0 of object') }),
    ]);
    await env.GEO_DATA.put(asnObjectKey(DAMAGED), good);
    expect((await find(store)).kind).toBe('found');
  });
});
