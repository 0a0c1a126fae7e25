/**
 * @module `data:publish` and `data:rollback`: the CLI end to end against wrangler's local R2 (a state
 * folder of the test's own), and the record's rules (current, rollback, 30-day expiry) against
 * Miniflare's R2 with the clock passed in.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { build } from '../../data/build.ts';
import { runCommand } from '../../data/publish/cli.ts';
import { type R2Like, r2Bucket } from '../../data/publish/r2-bucket.ts';
import { PublishError, publishTo, readRecord, rollBack, versionOf } from '../../data/publish/record.ts';
import { wranglerBucket } from '../../data/publish/wrangler-bucket.ts';
import { CURRENT_RECORD_KEY } from '../../src/geo/published.ts';
import { FIXTURES } from '../support/fixtures.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A small build of MaxMind's test databases; two a second apart differ in their digest, so in their versions. */
function smallBuild(dir: string) {
  const manifest = build(
    { maxmindCity: `${FIXTURES}/test-data/GeoIP2-City-Test.mmdb`, maxmindAsn: `${FIXTURES}/test-data/GeoLite2-ASN-Test.mmdb`, proxyLists: [] },
    () => {},
    dir,
  );
  const file = join(dir, 'ipgeo.mmdb');
  return { file, sha256: manifest.output.sha256, version: versionOf(manifest) };
}

describe('npm run data:publish and data:rollback', () => {
  const work = mkdtempSync(join(tmpdir(), 'ipgeo-publish-'));
  const state = join(work, 'state');
  /** Runs a command in this process (each of its R2 operations is a wrangler run); its output and exit code. */
  const cli = async (command: 'publish' | 'rollback', options: { env: string[]; file?: string }) => {
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

  it('uploads the build as ipgeo-{version}.mmdb, makes it current, and rolls back to the one before', async () => {
    const first = smallBuild(join(work, 'a'));
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a build's epoch is in whole seconds
    const second = smallBuild(join(work, 'b'));
    expect(second.version).not.toBe(first.version);

    expect((await cli('publish', { env: ['free'], file: first.file })).output).toMatch(`current version ${first.version}`);
    expect((await cli('publish', { env: ['free'], file: second.file })).output).toContain(`current version ${second.version} (was ${first.version})`);
    const published = await readRecord(bucket);
    const raw = JSON.parse((await bucket.getText(CURRENT_RECORD_KEY)) ?? '{}') as { current: object };
    expect(Object.keys(raw.current).sort()).toEqual(['bytes', 'key', 'publishedAt', 'retiredAt', 'sha256', 'version']);
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

    expect((await cli('rollback', { env: ['free'] })).output).toContain(`current version ${first.version} (was ${second.version})`);
    expect((await readRecord(bucket))?.current.version).toBe(first.version);
    expect(await cli('rollback', { env: ['free'] })).toEqual({ code: 1, output: expect.stringMatching(/no version published before/) });
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
  const version = (day: number, bytes: Uint8Array) => ({
    version: `2026-01-${String(day).padStart(2, '0')}.${sha256(bytes).slice(0, 8)}`,
    bytes: bytes.length,
    sha256: sha256(bytes),
    body: bytes,
  });
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

  it('refuses to publish a version string again with other bytes', async () => {
    const a = version(5, new Uint8Array([5]));
    await publishTo(bucket, a, at(5), () => {});
    await expect(publishTo(bucket, { ...a, sha256: 'f'.repeat(64) }, at(6), () => {})).rejects.toThrow(/already published with SHA-256/);
    expect(JSON.parse((await (await raw.get(CURRENT_RECORD_KEY))?.text()) ?? '{}').current.version).toBe(a.version);
  });
});
