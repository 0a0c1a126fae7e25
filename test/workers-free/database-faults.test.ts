/**
 * @module Faults of the database in R2 and how the Worker answers and recovers
 * (docs/storage.md, "What a running Worker does with it"; docs/decisions/0004-release-then-load-switching.md): the current record or object missing, empty, truncated, damaged with intact
 * metadata, a bad upload while a good version answers, damage found by a read, and a new version
 * switched to without a restart. Each case runs a {@link CurrentDatabase} of its own with a clock the
 * test moves, so no case sleeps; the routes' answer is checked through the Worker. The database is the
 * small build of MaxMind's test databases (the loader does not care which build it loads), so that each
 * case can spoil and replace whole objects cheaply.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/errors/problem.ts';
import { asProblem } from '../../src/errors/render.ts';
import { CurrentDatabase, resetDatabaseForTests } from '../../src/geo/current-database.ts';
import type { GeoDatabase } from '../../src/geo/database.ts';
import { CURRENT_RECORD_KEY, versionObjectKey } from '../../src/geo/published.ts';
import { WHOLE } from '../../src/geo/shard-files.ts';
import { DataUnavailableError } from '../../src/geo/unavailable.ts';
import { type IpAddress, parseIp } from '../../src/ip/address.ts';
import { lookupAll } from '../../src/lookup/pipeline.ts';
import { readMetadata } from '../../src/mmdb/metadata.ts';
import { compiledBuild, forgetCachedCopies, publish } from '../support/publish.ts';
import { workerFetch } from '../support/worker-fetch.ts';

/** How often an isolate reads the current record at most, as docs/storage.md states it ("at most once a minute"). */
const CHECK_MS = 60_000;

let good: Uint8Array;
let goodVersion: string;
beforeAll(async () => {
  const build = await compiledBuild('data/out/small');
  good = new Uint8Array(build.bytes);
  goodVersion = build.version;
}, 120_000);

/** A second valid build: the same data with another build_epoch in its metadata, so another SHA-256. */
function otherBuild(): Uint8Array {
  const bytes = good.slice();
  const key = new TextEncoder().encode('build_epoch');
  const from = Math.max(0, bytes.length - 20_000);
  for (let at = from; at < bytes.length - key.length; at++) {
    if (key.every((byte, i) => bytes[at + i] === byte)) {
      // The value follows the key: a control byte (and, for an extended type such as uint64, a type byte).
      const control = bytes[at + key.length] as number;
      const size = control & 0x1f;
      const last = at + key.length + (control >> 5 === 0 ? 2 : 1) + size - 1;
      bytes[last] = ((bytes[last] as number) + 1) & 0xff;
      return bytes;
    }
  }
  throw new Error('build_epoch not found in the metadata');
}

/**
 * A clock the test moves, a slot reading it, and the waitUntil promises of the requests made.
 *
 * @param budgetBytes the isolate budget: the default holds two of the small build, 0 holds none beside another.
 */
function harness(budgetBytes?: number) {
  const clock = { now: Date.parse('2026-11-23T12:00:00Z') };
  const slot = new CurrentDatabase(WHOLE, { now: () => clock.now, ...(budgetBytes === undefined ? {} : { budgetBytes }) });
  const background: Promise<unknown>[] = [];
  const ctx = { waitUntil: (promise: Promise<unknown>) => void background.push(promise) };
  const get = async (): Promise<GeoDatabase | ProblemError> => {
    try {
      return await slot.get(env, ctx);
    } catch (error) {
      // The domain's failure as the routes answer it (errors/render.ts): 503 with Retry-After.
      if (error instanceof DataUnavailableError) return asProblem(error);
      throw error;
    }
  };
  const settle = async () => {
    await Promise.all(background.splice(0));
  };
  return { clock, slot, get, settle };
}

/** What an answer was, in a few words (a failed assertion never prints a whole database). */
function kind(answer: GeoDatabase | ProblemError): string {
  return answer instanceof ProblemError ? `${answer.code}, Retry-After ${answer.options.headers?.['Retry-After']}` : 'a database';
}

function expectUnavailable(answer: GeoDatabase | ProblemError): void {
  expect(kind(answer)).toBe('DATA_UNAVAILABLE, Retry-After 5');
}

function expectDatabase(answer: GeoDatabase | ProblemError): GeoDatabase {
  expect(kind(answer)).toBe('a database');
  return answer as GeoDatabase;
}

const slots: CurrentDatabase[] = [];
beforeEach(forgetCachedCopies);
afterEach(async () => {
  for (const slot of slots.splice(0)) slot.reset();
  await forgetCachedCopies();
  // Cases spoil the object in place; publishing a version that is there already uploads nothing.
  await env.GEO_DATA.put(versionObjectKey(goodVersion), good);
  await publish(good, goodVersion);
});

function tracked(budgetBytes?: number) {
  const h = harness(budgetBytes);
  slots.push(h.slot);
  return h;
}

describe('a database that cannot be trusted', () => {
  it('answers 503 while no version is published, and loads one once it is', async () => {
    const { clock, slot, get } = tracked();
    expect(typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer).toBe('function'); // release() frees at once
    await env.GEO_DATA.delete(CURRENT_RECORD_KEY);
    expectUnavailable(await get());
    await publish(good, goodVersion);
    clock.now += 4_000;
    expectUnavailable(await get()); // within the 5 s after a failure, no new attempt
    clock.now += 1_000;
    expectDatabase(await get());
    expect(slot.version).toBe(goodVersion);
  });

  it.each([
    ['missing', async (key: string) => env.GEO_DATA.delete(key)],
    ['empty', async (key: string) => void (await env.GEO_DATA.put(key, new Uint8Array(0)))],
    ['truncated', async (key: string) => void (await env.GEO_DATA.put(key, good.slice(0, good.length - 1000)))],
    [
      'damaged in its search tree with intact metadata',
      async (key: string) => {
        const damaged = good.slice();
        const { nodeCount, recordSize } = readMetadata(damaged);
        damaged.fill(0x5a, 0, (nodeCount * recordSize) / 8);
        await env.GEO_DATA.put(key, damaged);
      },
    ],
    [
      'damaged in its data section with intact metadata',
      async (key: string) => {
        const damaged = good.slice();
        const { nodeCount, recordSize } = readMetadata(damaged);
        const dataStart = (nodeCount * recordSize) / 4 + 16;
        damaged.fill(0x00, dataStart + 1000, dataStart + 2000);
        await env.GEO_DATA.put(key, damaged);
      },
    ],
  ])('answers 503 while the object is %s, and 200 within 5 s of a good one replacing it', async (_case, spoil) => {
    const { clock, slot, get } = tracked();
    await spoil(versionObjectKey(goodVersion));
    expectUnavailable(await get());
    clock.now += 5_000;
    expectUnavailable(await get()); // still bad: tried again, refused again
    await env.GEO_DATA.put(versionObjectKey(goodVersion), good);
    clock.now += 5_000;
    const database = expectDatabase(await get());
    expect(database.offsetsOf([parseIp('81.2.69.142') as IpAddress])[0]).toBeGreaterThanOrEqual(0);
    expect(slot.version).toBe(goodVersion);
  });

  it('answers the documented problem through the routes', async () => {
    await env.GEO_DATA.put(versionObjectKey(goodVersion), good.slice(0, 1000));
    resetDatabaseForTests();
    const response = await workerFetch('http://free.test/api/v1/json/81.2.69.142', { headers: { 'CF-Connecting-IP': '198.19.7.1' } });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await response.json()) as { code: string; detail: string };
    expect(body.code).toBe('DATA_UNAVAILABLE');
    expect(body.detail).not.toMatch(/ipgeo-|sha|bytes/i); // the reason is logged, never answered
    resetDatabaseForTests();
  });

  it('drops a database whose reads find damage, refuses that version, and loads the next one published', async () => {
    const { clock, slot, get } = tracked();
    const probe = expectDatabase(await get());
    const [offset] = probe.offsetsOf([parseIp('81.2.69.142') as IpAddress]) as [number];
    slot.reset();
    // A build that passes the digest (published as it is) but whose record for 81.2.69.142 is no map.
    const broken = good.slice();
    const { nodeCount, recordSize } = readMetadata(broken);
    broken[(nodeCount * recordSize) / 4 + 16 + offset] = 0x41; // a one-byte string
    await publish(broken, '2026-11-20.0badda7a');
    const database = expectDatabase(await get());
    let thrown: unknown;
    try {
      lookupAll(database, ['81.2.69.142']);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DataUnavailableError);
    expect(database.damage).toMatch(/not a map/);
    expectUnavailable(await get()); // dropped at once; that version is refused
    clock.now += 5_000;
    expectUnavailable(await get());
    await publish(otherBuild(), '2026-11-21.00c0ffee');
    clock.now += 5_000;
    expectDatabase(await get());
    expect(slot.version).toBe('2026-11-21.00c0ffee');
  });
});

describe('a new version', () => {
  it('is loaded beside the old one when both fit the budget, which answers until the new one does', async () => {
    const { clock, slot, get, settle } = tracked();
    const first = expectDatabase(await get());
    await publish(otherBuild(), '2026-11-22.0000beef');
    clock.now += CHECK_MS;
    expect((await get()) === first).toBe(true); // due: the check runs in waitUntil
    // Until the new one is verified, every request is answered at once, from the old one.
    const during: (GeoDatabase | Promise<GeoDatabase>)[] = [];
    while (slot.version === goodVersion) {
      during.push(slot.get(env, { waitUntil: () => undefined }));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await settle();
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((answer) => answer === first)).toBe(true);
    const second = expectDatabase(await get());
    expect(second === first).toBe(false);
    expect(slot.versions).toEqual(['2026-11-22.0000beef']); // the old one released at the swap
  });

  it('is switched to after the minute check when two do not fit, requests waiting for it', async () => {
    const { clock, slot, get, settle } = tracked(0);
    const first = expectDatabase(await get());
    expect(slot.version).toBe(goodVersion);
    await publish(otherBuild(), '2026-11-22.0000beef');

    clock.now += CHECK_MS - 1;
    expect((await get()) === first).toBe(true); // not due yet
    await settle();
    expect(slot.version).toBe(goodVersion);

    clock.now += 1;
    expect((await get()) === first).toBe(true); // due: answered from the old one, the check runs in waitUntil
    await settle();
    expect(slot.version).toBe(goodVersion); // the check verified the new one, and left the switch to the next request
    expect((await get()) === first).toBe(true); // answered from the old one, it begins the switch in waitUntil
    // Once the old database is released, requests wait for the new one (polling, with their own timers).
    while (slot.version === goodVersion) await new Promise((resolve) => setTimeout(resolve, 1));
    const during = await Promise.all(Array.from({ length: 20 }, () => get()));
    await settle();
    expect(during.map(kind)).toEqual(during.map(() => 'a database'));
    expect(slot.version).toBe('2026-11-22.0000beef');
    const second = expectDatabase(await get());
    expect(second === first).toBe(false);
    expect(second.buildEpoch).not.toBe(first.buildEpoch);
  });

  it('that was uploaded damaged is not switched to; the good version keeps answering until a good upload', async () => {
    const { clock, slot, get, settle } = tracked();
    await get();
    const next = otherBuild();
    await publish(next, '2026-11-22.0000beef');
    const damaged = next.slice();
    damaged.fill(0x5a, 1024, 1024 + (1 << 20));
    await env.GEO_DATA.put(versionObjectKey('2026-11-22.0000beef'), damaged);

    clock.now += CHECK_MS;
    expectDatabase(await get());
    await settle();
    expect(slot.version).toBe(goodVersion);
    expectDatabase(await get());

    await env.GEO_DATA.put(versionObjectKey('2026-11-22.0000beef'), next);
    clock.now += CHECK_MS;
    await get();
    await settle();
    expect(slot.version).toBe('2026-11-22.0000beef');
  });

  it('that was uploaded damaged is refused by its verification when two do not fit, the good version answering throughout', async () => {
    const { clock, slot, get, settle } = tracked(0);
    const first = expectDatabase(await get());
    const next = otherBuild();
    await publish(next, '2026-11-22.0000dead');
    const damaged = next.slice();
    damaged.fill(0x5a, 1024, 2048);
    await env.GEO_DATA.put(versionObjectKey('2026-11-22.0000dead'), damaged);

    clock.now += CHECK_MS;
    for (let i = 0; i < 3; i++) {
      expect((await get()) === first).toBe(true);
      await settle();
    }
    expect(slot.versions).toEqual([goodVersion]);

    await env.GEO_DATA.put(versionObjectKey('2026-11-22.0000dead'), next);
    clock.now += CHECK_MS;
    for (let i = 0; i < 3 && slot.version !== '2026-11-22.0000dead'; i++) {
      await get();
      await settle();
    }
    expect(slot.versions).toEqual(['2026-11-22.0000dead']);
  });

  it('is checked for at most once a minute, and rolled back to like any other', async () => {
    const { clock, slot, get, settle } = tracked();
    await get();
    await publish(otherBuild(), '2026-11-22.0000beef');
    clock.now += CHECK_MS;
    await get();
    await settle();
    expect(slot.version).toBe('2026-11-22.0000beef');
    // data:rollback writes the record naming the previous version: the next check goes back to it.
    await publish(good, goodVersion);
    clock.now += CHECK_MS / 2;
    await get();
    await settle();
    expect(slot.version).toBe('2026-11-22.0000beef');
    clock.now += CHECK_MS / 2;
    await get();
    await settle();
    expect(slot.version).toBe(goodVersion);
  });
});
