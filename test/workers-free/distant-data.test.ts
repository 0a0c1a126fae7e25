/**
 * @module The database read from a distant R2 (`distantBucket`: 150 ms to the first byte, then about
 * 10 KB/s, so that the small build takes some 2.8 s to arrive, longer than the 2 s a waiting request
 * was once given): a cold start and a switch under a steady stream of requests, none failing; the
 * Workers cache in front of R2; and the data events, each one line of JSON on the console. The clock
 * is the real one (the wait is bounded by time), moved forward by the test only past the minute check.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AskedVersions } from '../../src/geo/asked-versions.ts';
import { CACHE_NAME, CHECK_INTERVAL_MS, cacheKey } from '../../src/geo/bucket.ts';
import { DEFAULT_BUDGET_BYTES } from '../../src/geo/budget.ts';
import { CurrentDatabase } from '../../src/geo/current-database.ts';
import type { GeoDatabase } from '../../src/geo/database.ts';
import { type CurrentRecord, type PublishedShard, versionObjectKey } from '../../src/geo/published.ts';
import { WHOLE } from '../../src/geo/shard-files.ts';
import { type IpAddress, parseIp } from '../../src/ip/address.ts';
import { type BucketClock, distantBucket, mostAtOnce } from '../support/distant-r2.ts';
import { compiledBuild, forgetCachedCopies, publish, epochVariant as variant } from '../support/publish.ts';

const DISTANCE = { latencyMs: 150, megabytesPerSecond: 0.01 };
/** Requests arrive this often during a load. */
const EVERY_MS = 50;

let good: Uint8Array;
let next: Uint8Array;
const goodVersion = '2026-11-21.d150a417';
const nextVersion = '2026-11-22.d150a418';
beforeAll(async () => {
  const small = new Uint8Array((await compiledBuild('data/out/small')).bytes);
  good = variant(small, 3);
  next = variant(small, 5);
}, 120_000);

let record: CurrentRecord;
beforeEach(async () => {
  record = await publish(good, goodVersion);
  await forgetCachedCopies();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await env.GEO_DATA.put(versionObjectKey(goodVersion), good);
  await publish(good, goodVersion);
  await forgetCachedCopies();
});

/**
 * A cold isolate's slot over the distant bucket; the clock is real, plus what the test adds.
 *
 * @param budgetBytes the isolate budget: the default holds two of the small build, 0 holds none beside another.
 */
function isolate(budgetBytes?: number) {
  const clock = { ahead: 0 };
  const slot = new CurrentDatabase(WHOLE, { now: () => Date.now() + clock.ahead, ...(budgetBytes === undefined ? {} : { budgetBytes }) });
  const background: Promise<unknown>[] = [];
  const ctx = { waitUntil: (promise: Promise<unknown>) => void background.push(promise) };
  const far = { ...env, GEO_DATA: distantBucket(env.GEO_DATA, DISTANCE) };
  const get = () => slot.get(far, ctx);
  return { clock, slot, get, settle: () => Promise.all(background.splice(0)) };
}

/**
 * Starts a request every {@link EVERY_MS} ms until `until()` holds (at least `min` of them), each
 * awaiting the database by itself; resolves with what each one got.
 */
async function steadyRequests(get: () => GeoDatabase | Promise<GeoDatabase>, until: () => boolean, min = 10): Promise<string[]> {
  const answers: Promise<string>[] = [];
  while (answers.length < min || !until()) {
    answers.push(
      Promise.resolve()
        .then(get)
        .then(
          () => 'a database',
          (error: Error) => `${error.name}: ${error.message}`,
        ),
    );
    await new Promise((resolve) => setTimeout(resolve, EVERY_MS));
    if (answers.length > 400) break;
  }
  return Promise.all(answers);
}

/** The data events logged to `console.log` and `console.error` while `run` ran, parsed. */
async function events<T>(run: () => Promise<T>): Promise<{ result: T; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const capture = (...args: unknown[]) => {
    const text = args.map(String).join(' ');
    if (text.includes('"event"')) lines.push(JSON.parse(text) as Record<string, unknown>);
  };
  vi.spyOn(console, 'log').mockImplementation(capture);
  vi.spyOn(console, 'error').mockImplementation(capture);
  const result = await run();
  vi.restoreAllMocks();
  return { result, lines };
}

describe('a cold start from a distant R2', () => {
  it('answers every request that arrives during the load, and logs the load as one JSON line', async () => {
    const { slot, get, settle } = isolate();
    const { result: answers, lines } = await events(async () => {
      const answers = await steadyRequests(get, () => slot.version !== undefined);
      await settle();
      return answers;
    });
    expect(new Set(answers)).toEqual(new Set(['a database']));
    expect(lines).toEqual([
      {
        event: 'load',
        version: goodVersion,
        bytes: good.byteLength,
        source: 'r2',
        ms: expect.any(Number),
        deployment: `${env.PLAN}/${env.REGION}`,
        region: env.REGION,
        colo: '',
      },
    ]);
    // By the Worker's clock, which moves with I/O: longer than the 2 s a waiting request was once given.
    expect(lines[0]?.ms).toBeGreaterThan(2000);
  });

  it('reads the copy the first isolate left in the cache, not R2', async () => {
    const first = isolate();
    const loaded = await first.get();
    await first.settle(); // the cache is filled in the load's waitUntil, from the buffer that answers
    expect(loaded.offsetsOf([parseIp('81.2.69.142') as IpAddress])[0]).toBeGreaterThanOrEqual(0); // still there
    expect(first.slot.identity()?.bytes).toBe(good.byteLength);
    first.slot.reset();
    const cached = await (await caches.open(CACHE_NAME)).match(cacheKey(record.current.shards[0] as PublishedShard));
    expect(new Uint8Array(await (cached as Response).arrayBuffer())).toEqual(good);

    await env.GEO_DATA.put(versionObjectKey(goodVersion), good.slice(0, 100)); // R2 would now fail
    const second = isolate();
    const { result: database, lines } = await events(async () => second.get());
    expect(database.offsetsOf([parseIp('81.2.69.142') as IpAddress])[0]).toBeGreaterThanOrEqual(0);
    expect(lines.map((line) => [line.event, line.source])).toEqual([['load', 'cache']]);
    second.slot.reset();
  });

  it('drops a damaged cached copy, logs the damage, and loads from R2, refilling the cache', async () => {
    const damaged = good.slice();
    damaged[1000] = (damaged[1000] as number) ^ 0xff;
    const cache = await caches.open(CACHE_NAME);
    await cache.put(cacheKey(record.current.shards[0] as PublishedShard), new Response(damaged, { headers: { 'Cache-Control': 'max-age=3600' } }));
    const { slot, get, settle } = isolate();
    const { lines } = await events(async () => {
      await get();
      await settle();
    });
    expect(lines.map((line) => [line.event, line.source])).toEqual([
      ['damage', 'cache'],
      ['load', 'r2'],
    ]);
    expect(lines[0]?.version).toBe(goodVersion);
    const refilled = await cache.match(cacheKey(record.current.shards[0] as PublishedShard));
    expect(new Uint8Array(await (refilled as Response).arrayBuffer())).toEqual(good);
    slot.reset();
  });
});

describe('a switch with a distant R2', () => {
  it.each([
    ['with the Workers cache, loading beside the old one', true, undefined],
    ['without it', false, undefined],
    ['with the Workers cache, the old one released first (two do not fit)', true, 0],
    ['without it, the old one released first', false, 0],
  ])('answers every request while the new version is verified and loaded, %s', async (_case, cached, budgetBytes) => {
    const { clock, slot, get, settle } = isolate(budgetBytes);
    await get();
    await settle();
    await publish(next, nextVersion);
    if (!cached) vi.spyOn(caches, 'open').mockRejectedValue(new Error('no cache here'));
    clock.ahead = CHECK_INTERVAL_MS;
    const { result: answers, lines } = await events(async () => {
      const answers = await steadyRequests(get, () => slot.version === nextVersion, 20);
      await settle();
      return answers;
    });
    expect(new Set(answers)).toEqual(new Set(['a database']));
    expect(slot.version).toBe(nextVersion);
    // Released first, the old one waits for a verification whose read fills the cache; beside it, the load reads R2.
    const source = cached && budgetBytes === 0 ? 'cache' : 'r2';
    expect(lines.map((line) => [line.event, line.source])).toEqual([
      ['load', source],
      ['switch', source],
    ]);
    expect(lines[1]).toMatchObject({ from: goodVersion, to: nextVersion, waits: budgetBytes === 0 });
    // Beside the old one nobody waits; released first, the verification's read came before the wait.
    if (budgetBytes === 0) {
      expect(lines[1]?.verifyMs).toBeGreaterThan(0);
      expect(lines[1]?.waitMs).toBeGreaterThan(0);
    } else expect(lines[1]).toMatchObject({ waitMs: 0 });
    expect(slot.versions).toEqual([nextVersion]);
    slot.reset();
  });
});

/**
 * How long the slow bucket below takes to send a whole file, by its own clock: longer than a load may
 * go without reading anything before it is taken as stuck (5 s, docs/architecture.md, "Data path"),
 * so that a phase of a load that reported no progress would be.
 */
const SLOW_READ_MS = 8_000;

/**
 * A cold isolate's slot over a bucket 400 ms away that sends a file in {@link SLOW_READ_MS}, an eighth
 * at a time, with the isolate budget at 0 (two versions never fit) unless `budgetBytes` says otherwise,
 * and on a clock that moves only when the bucket waits: no real time passes. Each move of the clock is
 * a moment at which a request arrives, once `arriving` is set. The bucket's `stall.wait`-th wait for
 * the object `stall.key` (1: its first byte, 2: its first slice, …) lasts `stall.ms` longer, or, given
 * `stall.until`, until that promise resolves. `asks` is what its requests ask for: the current version
 * (the app's database, `CurrentDatabase`) or versions by name (a shard Worker's, `AskedVersions`).
 */
function slowIsolate(
  stall?: { readonly key: string; readonly wait: number; readonly ms?: number; readonly until?: Promise<void> },
  budgetBytes = 0,
  asks: 'current' | 'versions' = 'current',
) {
  const time = { now: Date.parse('2026-11-27T12:00:00Z') };
  let arrive: (() => void) | undefined;
  let waits = 0;
  const held = { up: false };
  const clock: BucketClock = {
    now: () => time.now,
    sleep: async (ms, key) => {
      const stalls = key === stall?.key && ++waits === stall.wait;
      time.now += ms + (stalls ? (stall.ms ?? 0) : 0);
      arrive?.();
      if (stalls && stall.until) {
        held.up = true;
        await stall.until;
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
  };
  const bucket = distantBucket(
    env.GEO_DATA,
    { latencyMs: 400, megabytesPerSecond: next.byteLength / (SLOW_READ_MS * 1000) },
    { clock, sliceBytes: Math.ceil(next.byteLength / 8) },
  );
  const options = { now: () => time.now, budgetBytes };
  const slot = asks === 'current' ? new CurrentDatabase(WHOLE, options) : new AskedVersions(WHOLE, options);
  const background: Promise<unknown>[] = [];
  const ctx = { waitUntil: (promise: Promise<unknown>) => void background.push(promise) };
  const far = { ...env, GEO_DATA: bucket };
  const answers: Promise<string>[] = [];
  /** Sends one request for `version` (undefined: the current one), recording what it got. */
  const request = (version?: string) => {
    answers.push(
      Promise.resolve()
        .then(() => {
          if (slot instanceof CurrentDatabase && version === undefined) return slot.get(far, ctx);
          if (slot instanceof AskedVersions && version !== undefined) return slot.get(far, ctx, undefined, version);
          throw new Error(`this isolate asks for ${asks}, not for ${version ?? 'the current version'}`);
        })
        .then(
          () => 'a database',
          (error: Error) => `${error.name}: ${error.message}`,
        ),
    );
  };
  /** Until every request sent and every task in a waitUntil has settled (those may send more). */
  const settle = async () => {
    while (background.length > 0 || answers.length > settled) {
      settled = answers.length;
      await Promise.all([...background.splice(0), ...answers]);
    }
  };
  let settled = 0;
  return {
    time,
    slot,
    bucket,
    /** Whether the bucket is held up by `stall.until`. */
    held,
    /** The tasks in a waitUntil so far, which a held-up bucket keeps from settling. */
    background,
    request,
    settle,
    /** What every request got, once settled. */
    answers: async () => Promise.all(answers),
    /** Requests for `version` arrive at each move of the clock (at most 200 of them), or no longer. */
    arriving: (version: string | undefined, on: boolean) => {
      let left = 200;
      arrive = on ? () => void (left-- > 0 && request(version)) : undefined;
    },
  };
}

describe('a load over a slow bucket', () => {
  it('that stalls is replaced by the next request, and stops at its next step without keeping its bytes', async () => {
    // The object's second slice is held up longer than a load may go without progress.
    const isolate = slowIsolate({ key: versionObjectKey(goodVersion), wait: 3, ms: 6_000 });
    vi.spyOn(caches, 'open').mockRejectedValue(new Error('no cache here'));
    const { lines } = await events(async () => {
      isolate.arriving(undefined, true);
      isolate.request();
      await isolate.settle();
      isolate.arriving(undefined, false);
      await isolate.settle();
    });
    const [stalled, replacing, ...more] = isolate.bucket.reads.filter((read) => read.key === versionObjectKey(goodVersion));
    expect(more).toEqual([]);
    expect(stalled?.cancelled).toBe(true);
    expect(replacing?.cancelled).toBe(false);
    expect(isolate.slot.versions).toEqual([goodVersion]);
    expect(lines.map((line) => line.event)).toEqual(['load']);
    const answers = await isolate.answers();
    // The first request waited on its own load, which was given up; the others had the replacing one's.
    expect(answers[0]).toMatch(/^DataUnavailableError: the load made no progress for too long/);
    expect(new Set(answers.slice(1))).toEqual(new Set(['a database']));
    isolate.slot.reset();
  });
});

describe('a switch over a slow bucket when two versions fit', () => {
  it.each([
    ['its first byte', 1],
    ['its second slice', 3],
  ])('is begun again by the next minute’s check when the load beside the old version hangs before %s', async (_case, wait) => {
    let go = () => {};
    const until = new Promise<void>((resolve) => {
      go = resolve;
    });
    const isolate = slowIsolate({ key: versionObjectKey(nextVersion), wait, until }, DEFAULT_BUDGET_BYTES);
    vi.spyOn(caches, 'open').mockRejectedValue(new Error('no cache here'));
    isolate.request();
    await isolate.settle();
    await publish(next, nextVersion);
    const { lines } = await events(async () => {
      isolate.time.now += CHECK_INTERVAL_MS;
      isolate.request();
      while (!isolate.held.up) await new Promise((resolve) => setTimeout(resolve, 1));
      const hung = isolate.background.splice(0);
      // The old version answers meanwhile; a minute later its check finds the load stuck, and loads again.
      isolate.time.now += CHECK_INTERVAL_MS;
      isolate.request();
      await isolate.settle();
      expect(isolate.slot.versions).toEqual([nextVersion]);
      go();
      await Promise.all(hung);
      await isolate.settle();
      // The hung body ends when the load it was for gives up at its next step, cancelling it.
      for (let turn = 0; turn < 1000 && isolate.bucket.reads.some((read) => read.closed === undefined); turn++) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    });
    expect(new Set(await isolate.answers())).toEqual(new Set(['a database']));
    // The hung load's body, cancelled (its read is recorded once R2 answers), and the one that replaced it, read whole.
    const reads = isolate.bucket.reads.filter((read) => read.key === versionObjectKey(nextVersion));
    expect(reads.map((read) => [read.closed !== undefined, read.cancelled]).sort()).toEqual([
      [true, false],
      [true, true],
    ]);
    expect(lines.map((line) => [line.event, line.waits])).toEqual([
      ['load', undefined],
      ['switch', false],
    ]);
    isolate.slot.reset();
  });
});

describe('a switch over a slow bucket when two versions do not fit', () => {
  it.each([
    ['without the Workers cache', false],
    ['with it', true],
  ])('verifies the new version while the old one answers, then loads it once: one file read at a time, %s', async (_case, cached) => {
    const isolate = slowIsolate();
    isolate.request();
    await isolate.settle();
    expect(isolate.slot.versions).toEqual([goodVersion]);
    await publish(next, nextVersion);
    if (!cached) vi.spyOn(caches, 'open').mockRejectedValue(new Error('no cache here'));
    isolate.time.now += CHECK_INTERVAL_MS;
    const { lines } = await events(async () => {
      isolate.arriving(undefined, true);
      // A request now and then besides those arriving while the bucket sends: the minute's check, then the switch.
      for (let round = 0; round < 4 && isolate.slot.version !== nextVersion; round++) {
        isolate.request();
        await isolate.settle();
      }
      isolate.arriving(undefined, false);
      await isolate.settle();
    });
    // One file read at a time: the verification's read, then (where the cache kept nothing) the load's.
    expect(mostAtOnce(isolate.bucket.reads, (key) => key.endsWith('.mmdb'))).toBe(1);
    expect(isolate.bucket.reads.filter((read) => read.key === versionObjectKey(nextVersion))).toHaveLength(cached ? 1 : 2);
    expect(new Set(await isolate.answers())).toEqual(new Set(['a database']));
    expect(isolate.slot.versions).toEqual([nextVersion]);
    expect(lines.map((line) => [line.event, line.source])).toEqual([
      ['load', cached ? 'cache' : 'r2'],
      ['switch', cached ? 'cache' : 'r2'],
    ]);
    expect(lines[1]).toMatchObject({ from: goodVersion, to: nextVersion, waits: true });
    // By the bucket's clock: the verification read the object (its first byte, then the whole file);
    // requests then waited for the load's read of R2 again, or of the cache's copy, which took no time.
    expect(lines[1]?.verifyMs).toBeCloseTo(400 + SLOW_READ_MS);
    expect(lines[1]?.waitMs).toBeCloseTo(cached ? 0 : 400 + SLOW_READ_MS);
    isolate.slot.reset();
  });

  it('makes a shard asked for the new version verify it, then load it, every request for it waiting', async () => {
    const isolate = slowIsolate(undefined, 0, 'versions');
    isolate.request(goodVersion);
    await isolate.settle();
    await publish(next, nextVersion);
    vi.spyOn(caches, 'open').mockRejectedValue(new Error('no cache here'));
    isolate.arriving(nextVersion, true);
    isolate.request(nextVersion);
    await isolate.settle();
    isolate.arriving(nextVersion, false);
    await isolate.settle();
    expect(mostAtOnce(isolate.bucket.reads, (key) => key.endsWith('.mmdb'))).toBe(1);
    expect(isolate.bucket.reads.filter((read) => read.key === versionObjectKey(nextVersion))).toHaveLength(2);
    const answers = await isolate.answers();
    expect(answers.length).toBeGreaterThan(SLOW_READ_MS / 1000);
    expect(new Set(answers)).toEqual(new Set(['a database']));
    expect(isolate.slot.versions).toEqual([nextVersion]);
    isolate.slot.reset();
  });
});
