/**
 * @module The versions a shard Worker is asked for (docs/sharding.md, "Switching without waiting"): it answers the version the app asks for and no other,
 * loads the current one when asked for it, keeps the old one beside the new one while it is asked for
 * (when both fit the budget) and lets it go once nobody has asked for a minute, or releases it first
 * when two do not fit; a version neither held nor current is answered as gone, naming the current one.
 * The data is the small build of MaxMind's test databases with its `build_epoch` moved, so that each
 * version is a valid file of its own SHA-256; the clock is the test's.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AskedVersions, VersionGoneError } from '../../src/geo/asked-versions.ts';
import { GeoDatabase } from '../../src/geo/database.ts';
import { versionObjectKey } from '../../src/geo/published.ts';
import { WHOLE } from '../../src/geo/shard-files.ts';
import { DataUnavailableError } from '../../src/geo/unavailable.ts';
import { compiledBuild, forgetCachedCopies, publish, epochVariant as variant } from '../support/publish.ts';

/** How long a shard keeps a version nobody asks for, as docs/sharding.md states it (a minute). */
const RETIRE_MS = 60_000;

// Versions of this file only: the Workers cache is shared by the test files running at once.
const OLD = '2026-10-01.5a0d0001';
const NEW = '2026-10-02.5a0d0002';
let old: Uint8Array;
let next: Uint8Array;
beforeAll(async () => {
  const small = new Uint8Array((await compiledBuild('data/out/small')).bytes);
  old = variant(small, 11);
  next = variant(small, 13);
}, 120_000);

const slots: AskedVersions[] = [];
afterEach(async () => {
  for (const slot of slots.splice(0)) slot.reset();
  await forgetCachedCopies();
});

/** A shard's versions on the test's clock, asking by version as the shard Worker does. */
async function shard(budgetBytes?: number) {
  await publish(old, OLD);
  await forgetCachedCopies();
  const clock = { now: Date.parse('2026-11-24T12:00:00Z') };
  const slot = new AskedVersions(WHOLE, { now: () => clock.now, ...(budgetBytes === undefined ? {} : { budgetBytes }) });
  slots.push(slot);
  const ctx = { waitUntil: () => undefined };
  /** The answer for `version`: its database's build date, or the error's name and what it says. */
  const ask = async (version: string): Promise<string> => {
    try {
      const database: GeoDatabase = await slot.get(env, ctx, undefined, version);
      return `epoch ${database.buildEpoch}`;
    } catch (error) {
      if (error instanceof VersionGoneError) return `gone, ${error.current} current`;
      if (error instanceof DataUnavailableError) return 'unavailable';
      throw error;
    }
  };
  return { clock, slot, ask };
}

/** The build date of a version's own bytes, as its answers must show it. */
function epochOf(bytes: Uint8Array): string {
  return `epoch ${new GeoDatabase(bytes).buildEpoch}`;
}

describe('a shard asked by version', () => {
  it('loads the current version when asked for it, and answers a version that is not current as gone', async () => {
    const { slot, ask } = await shard();
    expect(await ask(OLD)).toBe(epochOf(old));
    expect(await ask('2026-09-30.00000000')).toBe(`gone, ${OLD} current`);
    expect(slot.versions).toEqual([OLD]);
  });

  it('loads a new version beside the old one when both fit, answering each from its own until the old is not asked for', async () => {
    const { clock, slot, ask } = await shard();
    await ask(OLD);
    await publish(next, NEW);
    expect(await ask(NEW)).toBe(epochOf(next));
    expect(slot.versions).toEqual([OLD, NEW]);
    // Apps still on the old version are answered from it, not from the new one.
    clock.now += RETIRE_MS - 1;
    expect(await ask(OLD)).toBe(epochOf(old));
    clock.now += RETIRE_MS - 1;
    expect(await ask(NEW)).toBe(epochOf(next));
    expect(slot.versions).toEqual([OLD, NEW]); // asked for within the minute
    clock.now += 1;
    expect(await ask(NEW)).toBe(epochOf(next));
    expect(slot.versions).toEqual([NEW]);
    expect(await ask(OLD)).toBe(`gone, ${NEW} current`);
  });

  it('releases the old version before loading the new one when two do not fit', async () => {
    const { slot, ask } = await shard(0);
    await ask(OLD);
    await publish(next, NEW);
    expect(await ask(NEW)).toBe(epochOf(next));
    expect(slot.versions).toEqual([NEW]);
    expect(await ask(OLD)).toBe(`gone, ${NEW} current`);
  });

  it('keeps answering the old version when the new one was uploaded damaged', async () => {
    const { slot, ask } = await shard();
    await ask(OLD);
    await publish(next, NEW);
    const damaged = next.slice();
    damaged.fill(0x5a, 1024, 2048);
    await env.GEO_DATA.put(versionObjectKey(NEW), damaged);
    expect(await ask(NEW)).toBe('unavailable');
    expect(await ask(OLD)).toBe(epochOf(old));
    expect(slot.versions).toEqual([OLD]);
    // Within the 5 s after a failure, the new version is not tried again; the old one is still there.
    expect(await ask(NEW)).toBe('unavailable');
    await env.GEO_DATA.put(versionObjectKey(NEW), next);
  });
});
