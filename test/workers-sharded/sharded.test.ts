/**
 * @module A paid deployment whose database is three shards (`data/out/small-3/`, MaxMind's test data),
 * each served by a shard Worker over Workers RPC: every answer equals the one of the same data as one
 * file (`data/out/small/`, looked up in this isolate), the status lists the shards as the manifest does,
 * a shard that cannot answer fails only its own addresses (each such failure one `data-unavailable`
 * event with the shard's reason), and a switch fails no request.
 */
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GeoDatabase } from '../../src/geo/database.ts';
import { distanceBetween } from '../../src/geo/distance.ts';
import { ENGLISH, LANGUAGES } from '../../src/geo/languages.ts';
import { shardObjectKey } from '../../src/geo/published.ts';
import { parseRanges, shardIndexOf } from '../../src/geo/shard-ranges.ts';
import { parseIp } from '../../src/ip/address.ts';
import { BULK_FIELDS, DEFAULT_FIELDS, EVERY_FIELD } from '../../src/lookup/fields.ts';
import { type Found, lookupAll, positionOf } from '../../src/lookup/pipeline.ts';
import { bulkBody, singleBody } from '../../src/lookup/render.ts';
import { resetShardSetForTests } from '../../src/lookup/sharded.ts';
import { PAID_ORIGIN, paidFetch, postJson } from '../support/paid-fetch.ts';
import { publishSharded, publishWithDamagedShard, type ShardedBuild, shardedBuild } from '../support/publish.ts';
import { repoFile } from '../support/repo.ts';
import { SMALL_SHARDED_DIR } from '../support/sharded-build.ts';
import { fromUtf8 } from '../support/utf8-text.ts';
import { workerFetch } from '../support/worker-fetch.ts';

/**
 * Addresses of MaxMind's test data (its source JSON) in each of the three shards, by their place in the
 * database's IPv6 space; the 6to4 ones embed 81.2.69.142 and 216.160.83.56, and are answered from
 * the shards of those, not from where `2002::` lies.
 */
const ADDRESSES = [
  '81.2.69.142',
  '89.160.20.112',
  '175.16.199.1',
  '214.1.1.1',
  '216.160.83.56',
  '2001:218::1',
  '2001:250::1',
  '2a02:cf40::1',
  '2a02:d280::1',
  '2002:5102:458e::1',
  '2002:d8a0:5338::1',
];

interface Manifest {
  version: string;
  shards: { first: string; last: string; bytes: number; sha256: string }[];
}

let manifest: Manifest;
let whole: GeoDatabase;
let build: ShardedBuild;
beforeAll(async () => {
  manifest = JSON.parse(new TextDecoder().decode(await repoFile(`${SMALL_SHARDED_DIR}/ipgeo.manifest.json`))) as Manifest;
  whole = new GeoDatabase(await repoFile('data/out/small/ipgeo.mmdb'));
  build = await shardedBuild(SMALL_SHARDED_DIR);
});

/** The record of `address` in the one-file build, as the routes render it. */
function expected(address: string): Found {
  const [outcome] = lookupAll(whole, [address]);
  if (outcome?.kind !== 'found') throw new Error(`${address} is not in the test data`);
  return outcome;
}

describe('a sharded deployment', () => {
  it('covers every shard with the addresses of these tests', () => {
    const ranges = parseRanges(manifest.shards);
    if ('error' in ranges) throw new Error(ranges.error);
    const shards = new Set(ADDRESSES.map((address) => shardIndexOf(ranges, parseIp(address) ?? expect.fail(address))));
    expect([...shards].sort()).toEqual([0, 1, 2]);
  });

  it('answers every single lookup, JSON and XML, as the same data in one file does', async () => {
    for (const address of ADDRESSES) {
      for (const format of ['json', 'xml'] as const) {
        const response = await paidFetch(`/api/${format}/${address}`);
        expect(response.status, address).toBe(200);
        expect(response.headers.get('X-Database-Version')).toBe(manifest.version);
        expect(await response.text(), `${format} ${address}`).toBe(
          fromUtf8(singleBody(expected(address), format, { fields: DEFAULT_FIELDS, language: ENGLISH })),
        );
      }
    }
  });

  it('answers a bulk request across the shards item by item as one file does, failures included', async () => {
    const response = await postJson('/api/bulk/json?lang=de', { ips: [...ADDRESSES, '10.0.0.1', 'nonsense', '1.1.1.1'] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, { code?: string }>;
    for (const address of ADDRESSES) {
      expect(body[address], address).toEqual(
        JSON.parse(fromUtf8(singleBody(expected(address), 'json', { fields: BULK_FIELDS, language: LANGUAGES.indexOf('de') }))),
      );
    }
    expect([body['10.0.0.1']?.code, body.nonsense?.code, body['1.1.1.1']?.code]).toEqual(['IP_ADDRESS_RESERVED', 'IP_ADDRESS_INVALID', 'IP_ADDRESS_NOT_FOUND']);
  });

  it('answers every field (fields=all), single and bulk, JSON and XML, as one file does at the instant of the request', async () => {
    // The app's clock, fixed hours away from the shards' own: they render the local time at the instant the app gives them.
    const now = Date.now() - 7 * 3_600_000 + 13_000;
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now);
    try {
      const view = { fields: EVERY_FIELD, language: LANGUAGES.indexOf('fr'), now };
      for (const address of ADDRESSES) {
        for (const format of ['json', 'xml'] as const) {
          const response = await paidFetch(`/api/${format}/${address}?fields=all&lang=fr`);
          expect(response.status, address).toBe(200);
          expect(await response.text(), `${format} ${address}`).toBe(fromUtf8(singleBody(expected(address), format, view)));
        }
      }
      for (const format of ['json', 'xml'] as const) {
        const response = await postJson(`/api/bulk/${format}?fields=all&lang=fr`, { ips: ADDRESSES });
        expect(response.status).toBe(200);
        const found = lookupAll(whole, ADDRESSES);
        const unexpected = () => expect.fail('every address of the test data is found');
        expect(await response.text(), format).toBe(fromUtf8(bulkBody(format, ADDRESSES, found, view, unexpected)));
      }
    } finally {
      clock.mockRestore();
    }
  });

  it('measures a distance between addresses of two shards from their positions in one file', async () => {
    const response = await postJson('/api/distance', { from: '81.2.69.142', to: '2a02:cf40::1' });
    expect(response.status).toBe(200);
    const from = positionOf(expected('81.2.69.142'), ENGLISH);
    const to = positionOf(expected('2a02:cf40::1'), ENGLISH);
    expect(await response.json()).toEqual({ from, to, distance: distanceBetween(from, to) });
  });

  it('lists its shards in the status, in address order, as the manifest does', async () => {
    const response = await workerFetch(`${PAID_ORIGIN}/api/status`);
    expect(response.status).toBe(200);
    const { database } = (await response.json()) as { database: { version: string; bytes: number; shards: unknown[] } };
    expect(database.version).toBe(manifest.version);
    expect(database.bytes).toBe(manifest.shards.reduce((sum, shard) => sum + shard.bytes, 0));
    expect(database.shards).toEqual(
      manifest.shards.map(({ first, last, bytes, sha256 }) => ({ first, last, bytes, sha256, version: manifest.version, switchWaits: false })),
    );
  });
});

describe('a shard that cannot answer', () => {
  const DAMAGED = '2026-11-25.dada0001';
  const REPAIRED = '2026-11-25.dada0002';
  afterAll(async () => {
    await publishSharded(build);
    resetShardSetForTests();
  });

  it('fails its own addresses with 503 DATA_UNAVAILABLE, answers the others, is named in the status, and recovers', async () => {
    await publishWithDamagedShard(build, DAMAGED, 1);
    resetShardSetForTests();

    const good = await paidFetch('/api/json/81.2.69.142');
    expect(good.status).toBe(200);
    expect(good.headers.get('X-Database-Version')).toBe(DAMAGED);
    const failed = await paidFetch('/api/json/216.160.83.56');
    expect(failed.status).toBe(503);
    expect(failed.headers.get('Retry-After')).not.toBeNull();
    expect(((await failed.json()) as { code: string }).code).toBe('DATA_UNAVAILABLE');

    // 2a02:d280::1 is in the third shard of this build, not in the damaged second one.
    const bulk = (await (await postJson('/api/bulk/json', { ips: ['81.2.69.142', '216.160.83.56', '2a02:d280::1'] })).json()) as Record<
      string,
      { code?: string }
    >;
    expect(bulk['81.2.69.142']).toEqual(JSON.parse(fromUtf8(singleBody(expected('81.2.69.142'), 'json', { fields: BULK_FIELDS, language: ENGLISH }))));
    expect(bulk['216.160.83.56']?.code).toBe('DATA_UNAVAILABLE');
    expect(bulk['2a02:d280::1']).toEqual(JSON.parse(fromUtf8(singleBody(expected('2a02:d280::1'), 'json', { fields: BULK_FIELDS, language: ENGLISH }))));

    const distance = await postJson('/api/distance', { from: '81.2.69.142', to: '216.160.83.56' });
    expect(distance.status).toBe(503);

    const status = (await (await workerFetch(`${PAID_ORIGIN}/api/status`)).json()) as {
      database: { shards: { version: string | null; unavailable?: string }[] };
    };
    expect(status.database.shards.map((shard) => shard.version)).toEqual([DAMAGED, null, DAMAGED]);
    expect(status.database.shards[1]?.unavailable).toMatch(/holds 1000 bytes/);

    await publishSharded(build, REPAIRED);
    resetShardSetForTests();
    const repaired = await paidFetch('/api/json/216.160.83.56');
    expect(repaired.status).toBe(200);
    expect(repaired.headers.get('X-Database-Version')).toBe(REPAIRED);
  });
});

describe('a shard whose file is missing', () => {
  const MISSING = '2026-11-25.dada0003';
  afterAll(async () => {
    vi.restoreAllMocks();
    await publishSharded(build);
    resetShardSetForTests();
  });

  it("writes one data-unavailable event with the shard's reason for each request it fails, and none for the others", async () => {
    await publishSharded(build, MISSING);
    await env.GEO_DATA.delete(shardObjectKey(MISSING, 1, build.shards.length));
    resetShardSetForTests();
    // A minute after any event of the tests before (the events' bound is three of a kind a minute per isolate).
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 120_000);
    const lines: unknown[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(line));

    const statuses = [];
    for (const path of ['/api/json/216.160.83.56', '/api/xml/216.160.83.56', '/api/json/81.2.69.142']) statuses.push((await paidFetch(path)).status);
    const bulk = (await (await postJson('/api/bulk/json', { ips: ['81.2.69.142', '216.160.83.56'] })).json()) as Record<string, { code?: string }>;
    expect(statuses).toEqual([503, 503, 200]);
    expect(bulk['216.160.83.56']?.code).toBe('DATA_UNAVAILABLE');

    const events = lines
      .filter((line): line is string => typeof line === 'string' && line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event?: string; status?: number; why?: string })
      .filter((event) => event.event === 'data-unavailable');
    // Two failed lookups and the bulk's failed item: three events, each naming the shard and why it could not answer.
    expect(events).toHaveLength(3);
    for (const event of events) {
      expect(event.status).toBe(503);
      expect(event.why).toMatch(new RegExp(`^shard 1: .*R2 has no object ${shardObjectKey(MISSING, 1, build.shards.length).replaceAll('.', '\\.')}`));
    }
  });
});

describe('a switch to a new version', () => {
  const NEXT = '2026-11-25.5e1c0001';
  afterAll(async () => {
    vi.restoreAllMocks();
    await publishSharded(build);
    resetShardSetForTests();
  });

  it('fails no request while every shard loads the new version beside the old and the app adopts it', async () => {
    const before = await paidFetch('/api/json/81.2.69.142');
    const old = before.headers.get('X-Database-Version');
    await publishSharded(build, NEXT);
    // The app checks the record at most once a minute: a minute passes.
    const now = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => now + 61_000);
    const versions = new Set<string | null>();
    const failures: string[] = [];
    const deadline = performance.now() + 20_000;
    const client = async () => {
      while (!versions.has(NEXT) && performance.now() < deadline) {
        for (const address of ADDRESSES) {
          const response = await paidFetch(`/api/json/${address}`);
          versions.add(response.headers.get('X-Database-Version'));
          const body = await response.text();
          if (response.status !== 200 || body !== fromUtf8(singleBody(expected(address), 'json', { fields: DEFAULT_FIELDS, language: ENGLISH }))) {
            failures.push(`${address}: ${response.status} ${body.slice(0, 200)}`);
          }
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
    expect(failures.slice(0, 5)).toEqual([]);
    expect([...versions].sort()).toEqual([old, NEXT].sort());
  });
});
