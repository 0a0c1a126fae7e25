/**
 * @module `data:publish` and `data:rollback`: the CLI end to end against wrangler's local R2 (a state
 * folder of the test's own), and the record's rules (current, rollback, 30-day expiry) against
 * Miniflare's R2 with the clock passed in.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BudgetError } from '../../data/budget.ts';
import { build, DATABASE_FILE } from '../../data/build.ts';
import { OVER_THRESHOLDS } from '../../data/diff/gate.ts';
import { readBuildFile } from '../../data/publish/build-file.ts';
import { CHANGES_PENDING, readBuild, runCommand } from '../../data/publish/cli.ts';
import { type R2Like, r2Bucket } from '../../data/publish/r2-bucket.ts';
import { expireVersions, PublishError, publishTo, readRecord, rollBack, wholeFilePublication } from '../../data/publish/record.ts';
import { wranglerBucket } from '../../data/publish/wrangler-bucket.ts';
import { CURRENT_RECORD_KEY } from '../../src/geo/published.ts';
import { FIXTURES } from '../support/fixtures.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * A small build of MaxMind's test databases, with a proxy list of one address when `proxy` is given:
 * builds with other lists differ in their digest, so in their versions (the same sources give the same bytes).
 */
/** MaxMind's test databases: the sources of the small builds. */
const SMALL_SOURCES = { maxmindCity: `${FIXTURES}/test-data/GeoIP2-City-Test.mmdb`, maxmindAsn: `${FIXTURES}/test-data/GeoLite2-ASN-Test.mmdb` };

function smallBuild(dir: string, proxy?: string) {
  const proxyLists: string[] = [];
  if (proxy !== undefined) {
    mkdirSync(dir, { recursive: true });
    const list = join(dir, 'proxies.txt');
    writeFileSync(list, `${proxy}\n`);
    // A list's build date is its file's: fixed, so that the same list gives the same build.
    utimesSync(list, new Date('2026-01-02T00:00:00Z'), new Date('2026-01-02T00:00:00Z'));
    proxyLists.push(list);
  }
  const manifest = build({ ...SMALL_SOURCES, proxyLists }, () => {}, dir);
  const file = join(dir, 'ipgeo.mmdb');
  return { file, sha256: manifest.shards[0]?.sha256 ?? '', version: manifest.version };
}

describe('npm run data:publish and data:rollback', () => {
  const work = mkdtempSync(join(tmpdir(), 'ipgeo-publish-'));
  const state = join(work, 'state');
  /** Runs a command in this process (its buckets start workerd through wrangler's platform proxy); its output and exit code. */
  const cli = async (
    command: 'publish' | 'rollback',
    options: { env: string[]; file?: string; budgetBytes?: number; check?: boolean; 'accept-diff'?: string },
  ) => {
    const output: string[] = [];
    const spies = [vi.spyOn(console, 'log'), vi.spyOn(console, 'error')];
    for (const spy of spies) spy.mockImplementation((line: string) => void output.push(line));
    try {
      const code = await runCommand(command, { ...options, 'persist-to': state });
      return { code, output: output.join('\n') };
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  };
  const bucket = wranglerBucket({ environment: 'free', bucket: 'ipgeo-data', remote: false, persistTo: state });
  afterAll(() => bucket.dispose());

  it('uploads the build as ipgeo-{version}.mmdb, makes it current, and rolls back to the one before', async () => {
    const first = smallBuild(join(work, 'a'));
    const second = smallBuild(join(work, 'b'), '203.0.113.7');
    expect(second.version).not.toBe(first.version);

    expect((await cli('publish', { env: ['free'], file: first.file })).output).toMatch(`current version ${first.version}`);
    expect((await cli('publish', { env: ['free'], file: second.file })).output).toContain(`current version ${second.version} (was ${first.version})`);
    const published = await readRecord(bucket);
    const raw = JSON.parse((await bucket.getText(CURRENT_RECORD_KEY)) ?? '{}') as { current: object };
    expect(Object.keys(raw.current).sort()).toEqual(['asn', 'bytes', 'key', 'publishedAt', 'retiredAt', 'sha256', 'shards', 'version']);
    expect(published?.current).toMatchObject({ version: second.version, key: `ipgeo-${second.version}.mmdb`, sha256: second.sha256 });
    expect(published?.versions.map((v) => [v.version, v.retiredAt === null])).toEqual([
      [first.version, false],
      [second.version, true],
    ]);
    // The object is the file, byte for byte (read back through wrangler).
    const object = execFileSync('npx', [
      'wrangler',
      'r2',
      'object',
      'get',
      `ipgeo-data/ipgeo-${second.version}.mmdb`,
      '--pipe',
      '--local',
      '--env',
      'free',
      '--persist-to',
      state,
    ]);
    expect(sha256(object)).toBe(sha256(readFileSync(second.file)));

    // Published again while current: nothing uploaded, the record as it was.
    const recordText = await bucket.getText(CURRENT_RECORD_KEY);
    const again = await cli('publish', { env: ['free'], file: second.file });
    expect(again.output).toContain(`version ${second.version} is current already; nothing uploaded, the record unchanged`);
    expect(again.output).toContain(`Nothing published: version ${second.version} was current in every bucket already.`);
    expect(again.output).not.toMatch(/uploading/);
    expect(await bucket.getText(CURRENT_RECORD_KEY)).toBe(recordText);

    expect((await cli('rollback', { env: ['free'] })).output).toContain(`current version ${first.version} (was ${second.version})`);
    expect((await readRecord(bucket))?.current.version).toBe(first.version);
    expect(await cli('rollback', { env: ['free'] })).toEqual({
      code: 1,
      output: expect.stringMatching(/no version that was current before .* is left to roll back to/),
    });
  }, 240_000);

  it('says with --check what publishing would change, changing nothing: exit 0 for nothing, 3 for something', async () => {
    const first = smallBuild(join(work, 'a'));
    const second = smallBuild(join(work, 'b'), '203.0.113.7');
    const recordText = await bucket.getText(CURRENT_RECORD_KEY);
    expect(JSON.parse(recordText ?? '{}').current.version).toBe(first.version); // as the test before left it
    expect(await cli('publish', { env: ['free'], file: first.file, check: true })).toEqual({
      code: 0,
      output: expect.stringContaining(`Nothing to publish: version ${first.version} is current in every bucket.`),
    });
    expect(await cli('publish', { env: ['free'], file: second.file, check: true })).toEqual({
      code: CHANGES_PENDING,
      output: expect.stringContaining(`version ${second.version} is there already; publishing would make it current again`),
    });
    expect(await bucket.getText(CURRENT_RECORD_KEY)).toBe(recordText);
  }, 120_000);

  it('stops a build over a threshold of the diff gate, publishing nothing, until --accept-diff names its version', async () => {
    const first = smallBuild(join(work, 'a'));
    // A hosting list of a whole /8, within the list's own ceiling: over a tenth of the small build's answers change.
    const list = join(work, 'datacenter.txt');
    writeFileSync(list, '1.0.0.0/8\n');
    utimesSync(list, new Date('2026-01-02T00:00:00Z'), new Date('2026-01-02T00:00:00Z'));
    const poisonedDir = join(work, 'poisoned');
    const manifest = build({ ...SMALL_SOURCES, proxyLists: [], flagLists: [{ id: 'x4bnet-datacenter', paths: [list] }] }, () => {}, poisonedDir);
    const poisoned = { file: join(poisonedDir, 'ipgeo.mmdb'), version: manifest.version };
    const recordText = await bucket.getText(CURRENT_RECORD_KEY);
    expect(JSON.parse(recordText ?? '{}').current.version).toBe(first.version);

    const checked = await cli('publish', { env: ['free'], file: poisoned.file, check: true });
    expect(checked.code).toBe(OVER_THRESHOLDS);
    expect(checked.output).toContain(`### data:diff: ipgeo-data (local) ${first.version} → ${poisonedDir} ${poisoned.version}`);
    expect(checked.output).toMatch(/\*\*Over a threshold:\*\* isHosting of [\d.]+% of IPv4 addresses \(threshold 2%\)/);
    const stopped = await cli('publish', { env: ['free'], file: poisoned.file });
    expect(stopped.code).toBe(OVER_THRESHOLDS);
    expect(stopped.output).toContain(`The diff gate stops version ${poisoned.version}`);
    expect(stopped.output).toContain(
      `Nothing was published. Read the diff; to publish this build all the same: npm run data:publish -- … --accept-diff ${poisoned.version}`,
    );
    expect(await bucket.getText(CURRENT_RECORD_KEY)).toBe(recordText);

    expect(await cli('publish', { env: ['free'], file: poisoned.file, 'accept-diff': first.version })).toEqual({
      code: 1,
      output: expect.stringContaining(`--accept-diff ${first.version} names another version than the build's, ${poisoned.version}`),
    });
    const accepted = await cli('publish', { env: ['free'], file: poisoned.file, 'accept-diff': poisoned.version });
    expect(accepted.code).toBe(0);
    expect(accepted.output).toContain(`The diff gate is overridden for version ${poisoned.version} (--accept-diff).`);
    expect((await readRecord(bucket))?.current.version).toBe(poisoned.version);
  }, 240_000);

  it('refuses the default build with --budget-mib 40, naming the figures, before touching any bucket', async () => {
    const state = await bucket.getText(CURRENT_RECORD_KEY);
    const size = statSync(DATABASE_FILE).size;
    const refused = await cli('publish', { env: ['free', 'de'], file: DATABASE_FILE, budgetBytes: 40 * 1_048_576 });
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(
      new RegExp(`data:publish refused: .*\\(${(size / 1_048_576).toFixed(1)} MiB\\) would need \\d+\\.\\d MiB .* over the isolate budget of 40\\.0 MiB`),
    );
    expect(await bucket.getText(CURRENT_RECORD_KEY)).toBe(state);
  }, 120_000);

  it('refuses a file that is not its manifest’s, and an unknown deployment', async () => {
    const withoutManifest = await cli('publish', { env: ['free'], file: `${FIXTURES}/test-data/GeoIP2-City-Test.mmdb` });
    expect(withoutManifest).toEqual({ code: 1, output: expect.stringMatching(/or its manifest .* is missing/) });
    const unknown = await cli('publish', { env: ['moon'], file: join(work, 'a', 'ipgeo.mmdb') });
    expect(unknown).toEqual({ code: 1, output: expect.stringMatching(/unknown deployment moon; one of free, de, us, sg, au/) });
  }, 60_000);
});

describe('versions in a bucket', () => {
  let miniflare: Miniflare;
  let bucket: ReturnType<typeof r2Bucket>;
  let raw: R2Like & { head(key: string): Promise<unknown> };
  beforeAll(async () => {
    miniflare = new Miniflare(
      convertV4MiniflareOptions({
        workers: [{ name: 'main', modules: true, script: 'export default { fetch: () => new Response(null) }', r2Buckets: ['GEO_DATA'] }],
      } as Parameters<typeof convertV4MiniflareOptions>[0]),
    );
    raw = (await miniflare.getR2Bucket('GEO_DATA', 'main')) as unknown as typeof raw;
    bucket = r2Bucket(raw, 'GEO_DATA');
  });
  afterAll(() => miniflare.dispose());
  const version = (day: number, bytes: Uint8Array, size = bytes.length) =>
    wholeFilePublication(`2026-01-${String(day).padStart(2, '0')}.${sha256(bytes).slice(0, 8)}`, { bytes: size, sha256: sha256(bytes), body: bytes });
  const at = (day: number) => new Date(Date.UTC(2026, 0, day, 12));

  it('deletes versions that stopped being current more than 30 days ago, and only those', async () => {
    const [a, b, c] = [1, 2, 3].map((n) => version(n, new Uint8Array([n, n, n])));
    if (!a || !b || !c) throw new Error('three versions');
    await publishTo(bucket, a, at(1), () => {});
    await publishTo(bucket, b, at(2), () => {}); // a stops being current on day 2
    await publishTo(bucket, c, at(20), () => {}); // b on day 20
    expect((await readRecord(bucket))?.versions.length).toBe(3);
    const deleted: string[] = [];
    await publishTo(bucket, c, at(32), (line) => void (/deleting/.test(line) && deleted.push(line))); // day 32: a retired 30.0 days ago
    expect(deleted).toEqual([]);
    await publishTo(bucket, c, at(33), (line) => void (/deleting/.test(line) && deleted.push(line)));
    expect(deleted).toEqual([expect.stringContaining(`deleting ipgeo-${a.version}.mmdb, not current since ${at(2).toISOString()}`)]);
    expect(await raw.head(`ipgeo-${a.version}.mmdb`)).toBeNull();
    expect(await raw.head(`ipgeo-${b.version}.mmdb`)).not.toBeNull();
    expect((await readRecord(bucket))?.versions.map((v) => v.version)).toEqual([b.version, c.version]);
    // A rollback goes to the version published before the current one; after that there is none left.
    await rollBack(bucket, at(34), () => {});
    expect((await readRecord(bucket))?.current.version).toBe(b.version);
    await expect(rollBack(bucket, at(34), () => {})).rejects.toThrow(PublishError);
  });

  it('deletes the expired versions alone, publishing nothing, when the diff gate stops a build', async () => {
    await raw.delete(CURRENT_RECORD_KEY);
    const [a, b] = [41, 42].map((n) => version(n, new Uint8Array([n, 1, n])));
    if (!a || !b) throw new Error('two versions');
    await publishTo(bucket, a, at(1), () => {});
    await publishTo(bucket, b, at(2), () => {}); // a stops being current on day 2
    const lines: string[] = [];
    await expireVersions(bucket, at(31), (line) => lines.push(line));
    expect(lines).toEqual([]);
    await expireVersions(bucket, at(33), (line) => lines.push(line));
    expect(lines).toEqual([expect.stringContaining(`deleting ipgeo-${a.version}.mmdb`)]);
    expect(await raw.head(`ipgeo-${a.version}.mmdb`)).toBeNull();
    const record = await readRecord(bucket);
    expect(record?.current.version).toBe(b.version);
    expect(record?.versions.map((v) => v.version)).toEqual([b.version]);
  });

  it('rolls back to the version that was current before, never to one rolled back from', async () => {
    await raw.delete(CURRENT_RECORD_KEY);
    const [a, b, c, d] = [11, 12, 13, 14].map((n) => version(n, new Uint8Array([n, 0, n])));
    if (!a || !b || !c || !d) throw new Error('four versions');
    const current = async () => (await readRecord(bucket))?.current.version;
    await publishTo(bucket, a, at(11), () => {});
    await publishTo(bucket, b, at(12), () => {});
    await rollBack(bucket, at(13), () => {});
    expect(await current()).toBe(a.version);
    await publishTo(bucket, c, at(14), () => {});
    await rollBack(bucket, at(15), () => {});
    expect(await current()).toBe(a.version); // not b, which was rolled back from
    // The record says when each version was current, and how it became so.
    expect((await readRecord(bucket))?.history).toEqual([
      { version: a.version, by: 'publish', from: at(11).toISOString(), until: at(12).toISOString(), rolledBackAt: null },
      { version: b.version, by: 'publish', from: at(12).toISOString(), until: at(13).toISOString(), rolledBackAt: at(13).toISOString() },
      { version: a.version, by: 'rollback', from: at(13).toISOString(), until: at(14).toISOString(), rolledBackAt: null },
      { version: c.version, by: 'publish', from: at(14).toISOString(), until: at(15).toISOString(), rolledBackAt: at(15).toISOString() },
      { version: a.version, by: 'rollback', from: at(15).toISOString(), until: null, rolledBackAt: null },
    ]);
    await expect(rollBack(bucket, at(16), () => {})).rejects.toThrow(/no version that was current before/);
    // Rolled back twice, it goes back twice; publishing a version again makes it one to return to.
    await publishTo(bucket, b, at(16), () => {});
    await publishTo(bucket, c, at(17), () => {});
    await publishTo(bucket, d, at(18), () => {});
    await rollBack(bucket, at(19), () => {});
    expect(await current()).toBe(c.version);
    await rollBack(bucket, at(19), () => {});
    expect(await current()).toBe(b.version);
    await rollBack(bucket, at(19), () => {});
    expect(await current()).toBe(a.version);
  });

  it('reads a record written before the history was kept, and rolls it back to the version before, not to one rolled back from', async () => {
    const [a, b, c] = [21, 22, 23].map((n) => version(n, new Uint8Array([n, 1, n])));
    if (!a || !b || !c) throw new Error('three versions');
    for (const v of [a, b, c]) await raw.put(`ipgeo-${v.version}.mmdb`, v.shards[0]?.body ?? new Uint8Array());
    const entry = (v: typeof a, publishedAt: Date, retiredAt: Date | null) => ({
      version: v.version,
      key: `ipgeo-${v.version}.mmdb`,
      bytes: v.shards[0]?.bytes,
      sha256: v.shards[0]?.sha256,
      publishedAt: publishedAt.toISOString(),
      retiredAt: retiredAt?.toISOString() ?? null,
    });
    // As the publisher before this one wrote it: a, then b, then c published; rolled back from c to b.
    const legacy = { v: 1, current: entry(b, at(22), null), versions: [entry(a, at(21), at(22)), entry(b, at(22), null), entry(c, at(23), at(24))] };
    await raw.put(CURRENT_RECORD_KEY, JSON.stringify(legacy));
    expect((await readRecord(bucket))?.current.version).toBe(b.version);
    await rollBack(bucket, at(25), () => {});
    expect((await readRecord(bucket))?.current.version).toBe(a.version);
    await expect(rollBack(bucket, at(26), () => {})).rejects.toThrow(/no version that was current before/);
  });

  it('refuses to roll back to a version whose load would not fit the budget', async () => {
    await raw.delete(CURRENT_RECORD_KEY);
    const small = version(27, new Uint8Array([27]), 80 * 1_048_576);
    const other = version(28, new Uint8Array([28]));
    await publishTo(bucket, small, at(27), () => {});
    await publishTo(bucket, other, at(28), () => {});
    await expect(rollBack(bucket, at(29), () => {})).rejects.toThrow(BudgetError);
    expect((await readRecord(bucket))?.current.version).toBe(other.version);
  });

  it('refuses to publish a version string again with other bytes', async () => {
    const a = version(5, new Uint8Array([5]));
    await publishTo(bucket, a, at(5), () => {});
    const other = wholeFilePublication(a.version, { bytes: 1, sha256: 'f'.repeat(64), body: new Uint8Array([5]) });
    await expect(publishTo(bucket, other, at(6), () => {})).rejects.toThrow(/already published with SHA-256/);
    expect(JSON.parse((await (await raw.get(CURRENT_RECORD_KEY))?.text()) ?? '{}').current.version).toBe(a.version);
  });

  it('publishes a build of 3 shards as one version of 3 objects, refuses to change the number of shards without a deploy, and expires every object', async () => {
    await raw.delete(CURRENT_RECORD_KEY);
    const options = { maxmindCity: `${FIXTURES}/test-data/GeoIP2-City-Test.mmdb`, maxmindAsn: `${FIXTURES}/test-data/GeoLite2-ASN-Test.mmdb`, proxyLists: [] };
    const [oneDir, threeDir] = [mkdtempSync(join(tmpdir(), 'ipgeo-one-')), mkdtempSync(join(tmpdir(), 'ipgeo-three-'))];
    build({ ...options, shards: 1 }, () => {}, oneDir);
    const manifest = build({ ...options, shards: 3 }, () => {}, threeDir);
    const one = readBuildFile(join(oneDir, 'ipgeo.manifest.json'));
    const three = readBuildFile(join(threeDir, 'ipgeo.shard-1-of-3.mmdb'));
    const keys = [0, 1, 2].map((k) => `ipgeo-${manifest.version}.shard-${k}-of-3.mmdb`);
    const lines: string[] = [];
    const log = (line: string) => void lines.push(line);

    await publishTo(bucket, one, at(1), log);
    const before = await raw.get(CURRENT_RECORD_KEY).then((object) => object?.text());
    await expect(publishTo(bucket, three, at(2), log, undefined, { deployment: 'de' })).rejects.toThrow(
      new RegExp(`version ${manifest.version} is 3 shards, its current version ${one.version} one file.*npm run deploy -- --env de`),
    );
    expect(await raw.get(CURRENT_RECORD_KEY).then((object) => object?.text())).toBe(before);
    for (const key of keys) expect(await raw.head(key)).toBeNull();

    // As a deploy that has deployed the Workers of 3 shards publishes it: every object, then the record once.
    await publishTo(bucket, three, at(2), log, undefined, { newShardCount: true });
    const written = JSON.parse((await raw.get(CURRENT_RECORD_KEY).then((object) => object?.text())) ?? '{}');
    const { file: _file, asns: _asns, prefixes: _prefixes, ...asn } = manifest.asn ?? expect.fail('the build has an ASN object');
    expect(written.current).toEqual({
      version: manifest.version,
      shards: manifest.shards.map((shard, k) => ({ key: keys[k], first: shard.first, last: shard.last, bytes: shard.bytes, sha256: shard.sha256 })),
      asn: { key: `ipgeo-${manifest.version}.asn`, ...asn },
      publishedAt: at(2).toISOString(),
      retiredAt: null,
    });
    for (const [k, key] of keys.entries()) {
      const object = await raw.get(key);
      expect(sha256(new Uint8Array(await (object as unknown as Response).arrayBuffer())), key).toBe(manifest.shards[k]?.sha256);
    }
    // The version of one file keeps its object at the top too, for Workers deployed before shards.
    expect(written.versions[0]).toMatchObject({ key: `ipgeo-${one.version}.mmdb`, shards: [{ key: `ipgeo-${one.version}.mmdb`, first: '::' }] });

    await expect(rollBack(bucket, at(3), () => {}, undefined, { deployment: 'de' })).rejects.toThrow(
      /one file, its current version .* 3 shards.*npm run deploy -- --env de/,
    );
    await rollBack(bucket, at(3), () => {}, undefined, { newShardCount: true });
    expect((await readRecord(bucket))?.current.version).toBe(one.version);

    lines.length = 0;
    await publishTo(bucket, one, at(34), log); // the version of 3 shards retired on day 3, over 30 days before
    // Every object of the version: its shards, and its ASN object.
    const objects = [...keys, `ipgeo-${manifest.version}.asn`];
    expect(lines.filter((line) => /deleting/.test(line))).toEqual(
      objects.map((key) => expect.stringContaining(`deleting ${key}, not current since ${at(3).toISOString()}`)),
    );
    for (const key of objects) expect(await raw.head(key)).toBeNull();
  });
});

describe('data:publish reading a build of 3 shards', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ipgeo-read-three-'));
  const options = { maxmindCity: `${FIXTURES}/test-data/GeoIP2-City-Test.mmdb`, maxmindAsn: `${FIXTURES}/test-data/GeoLite2-ASN-Test.mmdb`, proxyLists: [] };

  it('reads every shard whole, says per shard what it needs and whether two versions fit side by side, and refuses a shard that is not its manifest’s range', () => {
    const manifest = build({ ...options, shards: 3 }, () => {}, dir);
    const lines: string[] = [];
    const read = readBuild(join(dir, 'ipgeo.manifest.json'), undefined, (line) => lines.push(line));
    expect(read.shards.map((shard) => shard.body)).toEqual(manifest.shards.map((shard) => join(dir, shard.file)));
    expect(lines).toEqual([
      ...manifest.shards.map((shard, k) =>
        expect.stringMatching(
          new RegExp(`^Version ${manifest.version}, shard ${k} \\(${shard.first} to ${shard.last}\\) .* needs .* side by side need .* no request waits\\.$`),
        ),
      ),
      `Its ASN object (0.0 MiB): ${manifest.asn?.asns} ASNs in ${manifest.asn?.asns} pages of 1 blocks, each checked against its SHA-256.`,
    ]);
    // A manifest whose ranges are not the files' own: the shards' metadata says otherwise.
    const moved = {
      ...manifest,
      shards: manifest.shards.map((shard, k) => (k === 0 ? { ...shard, last: '::1' } : k === 1 ? { ...shard, first: '::2' } : shard)),
    };
    writeFileSync(join(dir, 'ipgeo.manifest.json'), JSON.stringify(moved));
    expect(() => readBuild(join(dir, 'ipgeo.manifest.json'))).toThrow(/ipgeo\.shard-0-of-3\.mmdb says it is shard .* not the manifest's/);
  });
});
