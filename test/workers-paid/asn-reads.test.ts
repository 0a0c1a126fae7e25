/**
 * @module What an ASN answer reads (docs/storage.md, "The ASN object"): on a cold cache the current record,
 * the index and one block, then nothing more while warm; a cold isolate of a warm location the record
 * alone; a cached copy that fails its check read again from R2; a block whose R2 bytes fail their check
 * refused (503) and logged as damage once, then neither read nor logged until the retry delay has
 * passed, as a record that cannot be read; R2 failing read once for every block; damaged blocks read
 * once each, one damage line for all. MaxMind's test data (`data/out/small`; for many blocks, the
 * default build's ASN object) under versions of this file's own, since the Workers cache is shared by
 * the files running at once.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AsnEnv, AsnStore } from '../../src/asn/store.ts';
import { parseAsnIndex } from '../../src/geo/asn-layout.ts';
import { CACHE_NAME, cachedCopy, cacheKey } from '../../src/geo/bucket.ts';
import { asnObjectKey, CURRENT_RECORD_KEY, type PublishedAsn } from '../../src/geo/published.ts';
import { RETRY_AFTER_SECONDS } from '../../src/geo/retry-after.ts';
import { DataUnavailableError } from '../../src/geo/unavailable.ts';
import { compiledAsnObject, compiledBuild, epochVariant, publish } from '../support/publish.ts';

const VERSION = '2026-10-21.5a0d0021';
const DAMAGED = '2026-10-22.5a0d0022';
const R2_DOWN = '2026-10-23.5a0d0023';

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

/** Page `page` (from 0) of `asn` (AS237's first by default) from `store`, the context's work (the cache's fills) done before it returns. */
async function find(store: AsnStore, asn = 237, page = 0, on: AsnEnv = bindings) {
  const ctx = createExecutionContext();
  try {
    return await store.find(on, ctx, undefined, asn, page);
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
    // Each piece cached under the key docs/storage.md gives (the whole object's digest, then the range), as the database's copies are.
    const cache = await caches.open(CACHE_NAME);
    for (const [offset, length] of [
      [0, asn.indexBytes],
      [asn.indexBytes, asn.blockBytes],
    ]) {
      const copy = await cache.match(`https://ipgeo-data.invalid/ipgeo-${VERSION}.asn?sha256=${asn.sha256}&offset=${offset}&length=${length}`);
      expect(copy?.headers.get('Cache-Control')).toBe('public, max-age=2592000, immutable');
      expect((await copy?.arrayBuffer())?.byteLength).toBe(length);
    }
    reads.length = 0;
    expect((await find(isolate)).kind).toBe('found');
    expect(reads).toEqual([]);
    expect((await find(new AsnStore())).kind).toBe('found');
    expect(reads).toEqual([{ key: CURRENT_RECORD_KEY }]);
  });

  it('reads a block again from R2 when its cached copy fails its check, and caches it anew', async () => {
    const cache = await caches.open(CACHE_NAME);
    const block = { offset: asn.indexBytes, length: asn.blockBytes };
    await cache.put(cacheKey(asn, block), cachedCopy(new Uint8Array(asn.blockBytes), asn.blockBytes));
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect((await find(new AsnStore())).kind).toBe('found');
    expect(reads.map((read) => read.range?.offset)).toEqual([undefined, asn.indexBytes]);
    expect(log.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      expect.objectContaining({ event: 'damage', version: VERSION, source: 'cache', why: expect.stringContaining('block 0') }),
    ]);
    const cached = await cache.match(cacheKey(asn, block));
    expect(new Uint8Array((await cached?.arrayBuffer()) ?? new ArrayBuffer(0)).some((byte) => byte !== 0)).toBe(true);
  });

  it('refuses a block whose R2 bytes fail their check: one R2 read and one damage line for 10 requests, read again only after the retry delay', async () => {
    const object = await compiledAsnObject('data/out/small');
    await publish(epochVariant(small, 22), DAMAGED, new Date(), undefined, object);
    const good = new Uint8Array(object.body);
    const spoilt = good.slice();
    spoilt[object.indexBytes + 100] = (spoilt[object.indexBytes + 100] as number) ^ 0xff;
    await env.GEO_DATA.put(asnObjectKey(DAMAGED), spoilt);
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    let now = Date.now();
    const store = new AsnStore(() => now);
    const blockReads = () => reads.filter((read) => read.range?.offset === object.indexBytes).length;
    for (let i = 0; i < 10; i++) {
      await expect(find(store)).rejects.toThrow(DataUnavailableError);
      now += 100;
    }
    expect(blockReads()).toBe(1);
    expect(reads).toHaveLength(3); // the record, the index and the block, once each
    expect(log.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      expect.objectContaining({ event: 'damage', version: DAMAGED, source: 'r2', why: expect.stringContaining('block 0 of object') }),
    ]);
    // Mended, but the failure stands until RETRY_AFTER_SECONDS after it: no read meanwhile.
    await env.GEO_DATA.put(asnObjectKey(DAMAGED), good);
    await expect(find(store)).rejects.toThrow(/block 0 of .* failed \d+ ms ago .*waiting before the next read/);
    expect(blockReads()).toBe(1);
    now += RETRY_AFTER_SECONDS * 1000;
    expect((await find(store)).kind).toBe('found');
    expect(blockReads()).toBe(2);
    expect(log).toHaveBeenCalledTimes(1);
  });

  it('reads R2 once and logs one refusal for 10 requests of 10 blocks while R2 fails, kept blocks answering; damaged blocks each read once, logged once', async () => {
    // The default build's ASN object, of many blocks (the database under it is MaxMind's: the store reads none of it).
    const object = await compiledAsnObject();
    await publish(epochVariant(small, 23), R2_DOWN, new Date(), undefined, object);
    const index = parseAsnIndex(new Uint8Array(object.body).subarray(0, object.indexBytes), object);
    expect(index.firstAsn.length).toBeGreaterThan(11);
    let failing = false;
    let spoiling = false;
    let blockReads = 0;
    const flaky: AsnEnv = {
      ...bindings,
      GEO_DATA: {
        get: ((key: string, options?: { range: { offset: number; length: number } }) => {
          if (options !== undefined && options.range.offset >= object.indexBytes) {
            blockReads++;
            if (failing) return Promise.reject(new Error('R2 is down'));
            if (spoiling)
              return bucket.get(key, options).then((real) => real && { size: real.size, arrayBuffer: async () => new ArrayBuffer(options.range.length) });
          }
          return bucket.get(key, options);
        }) as AsnEnv['GEO_DATA']['get'],
      },
    };
    const first = (k: number) => [index.firstAsn[k] as number, index.firstPage[k] as number] as const;
    let now = Date.now();
    const store = new AsnStore(() => now);
    expect((await find(store, ...first(0), flaky)).kind).toBe('found');
    failing = true;
    blockReads = 0;
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    for (let k = 1; k <= 10; k++) {
      await expect(find(store, ...first(k), flaky)).rejects.toThrow(DataUnavailableError);
      now += 100;
    }
    expect(blockReads).toBe(1);
    expect(log.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      expect.objectContaining({ event: 'refusal', version: R2_DOWN, why: expect.stringContaining('R2 is down') }),
    ]);
    // A block the isolate keeps answers meanwhile, without R2.
    expect((await find(store, ...first(0), flaky)).kind).toBe('found');
    failing = false;
    now += RETRY_AFTER_SECONDS * 1000;
    expect((await find(store, ...first(1), flaky)).kind).toBe('found');
    expect(blockReads).toBe(2);
    expect(log).toHaveBeenCalledTimes(1);
    // Blocks whose own bytes are wrong fail each on its own (one read each, then none), one damage line for them all.
    spoiling = true;
    blockReads = 0;
    for (let k = 2; k <= 4; k++) {
      await expect(find(store, ...first(k), flaky)).rejects.toThrow(/another SHA-256/);
      await expect(find(store, ...first(k), flaky)).rejects.toThrow(new RegExp(`block ${k} of .* failed \\d+ ms ago`));
    }
    expect(blockReads).toBe(3);
    expect(log.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      expect.objectContaining({ event: 'refusal', version: R2_DOWN }),
      expect.objectContaining({ event: 'damage', version: R2_DOWN, source: 'r2', why: expect.stringContaining('block 2 of object') }),
    ]);
    expect((await find(store, ...first(1), flaky)).kind).toBe('found');
  });

  it('reads the current record once for 10 requests while it cannot be read, and again after the retry delay', async () => {
    let failing = true;
    let recordReads = 0;
    const flaky: AsnEnv = {
      ...bindings,
      GEO_DATA: {
        get: ((key: string, options?: { range: { offset: number; length: number } }) => {
          if (key === CURRENT_RECORD_KEY) {
            recordReads++;
            if (failing) return Promise.reject(new Error('R2 is down'));
          }
          return bucket.get(key, options);
        }) as AsnEnv['GEO_DATA']['get'],
      },
    };
    let now = Date.now();
    const store = new AsnStore(() => now);
    for (let i = 0; i < 10; i++) {
      const ctx = createExecutionContext();
      await expect(store.find(flaky, ctx, undefined, 237, 0)).rejects.toThrow(DataUnavailableError);
      await waitOnExecutionContext(ctx);
      now += 100;
    }
    expect(recordReads).toBe(1);
    failing = false;
    now += RETRY_AFTER_SECONDS * 1000;
    const ctx = createExecutionContext();
    expect((await store.find(flaky, ctx, undefined, 237, 0)).kind).toBe('found');
    await waitOnExecutionContext(ctx);
    expect(recordReads).toBe(2);
  });
});
