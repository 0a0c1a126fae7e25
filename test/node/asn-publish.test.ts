/**
 * @module Publishing the ASN object (`data/publish/`): uploaded with its version and named by the record,
 * added to a version published before builds had one without another switch, checked piece by piece
 * before any upload (a damaged block or index refused, naming it). MaxMind's test data, built here.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../../data/build.ts';
import { verifyAsnObject } from '../../data/publish/asn-check.ts';
import { readBuildFile } from '../../data/publish/build-file.ts';
import { PublishError, publishTo, readRecord, type VersionBucket } from '../../data/publish/record.ts';
import { FIXTURES } from '../support/fixtures.ts';

/** A bucket in memory: what publishing writes, and the keys it put, in order. */
function memoryBucket(): VersionBucket<Uint8Array> & { objects: Map<string, Uint8Array | string>; puts: string[] } {
  const objects = new Map<string, Uint8Array | string>();
  const puts: string[] = [];
  return {
    name: 'memory',
    objects,
    puts,
    getText: async (key) => {
      const value = objects.get(key);
      return typeof value === 'string' ? value : null;
    },
    putText: async (key, text) => {
      objects.set(key, text);
      puts.push(key);
    },
    putObject: async (key, body) => {
      objects.set(key, body);
      puts.push(key);
    },
    delete: async (key) => {
      objects.delete(key);
    },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'ipgeo-asn-publish-'));
const testData = join(FIXTURES, 'test-data');
build({ maxmindCity: join(testData, 'GeoIP2-City-Test.mmdb'), maxmindAsn: join(testData, 'GeoLite2-ASN-Test.mmdb'), proxyLists: [] }, () => {}, dir);
const local = readBuildFile(join(dir, 'ipgeo.manifest.json'));
const asn = local.asn ?? expect.fail('the build has an ASN object');

describe('publishing the ASN object', () => {
  it('uploads it before the record, which names it with the digests of the whole and of its index', async () => {
    const bucket = memoryBucket();
    const record = await publishTo(bucket, local, new Date('2026-12-01T00:00:00Z'), () => {});
    expect(bucket.puts).toEqual([`ipgeo-${local.version}.mmdb`, `ipgeo-${local.version}.asn`, 'ipgeo-current.json']);
    expect(record.current.asn).toEqual({
      key: `ipgeo-${local.version}.asn`,
      bytes: asn.bytes,
      sha256: asn.sha256,
      indexBytes: asn.indexBytes,
      indexSha256: asn.indexSha256,
      blockBytes: asn.blockBytes,
      blocks: asn.blocks,
    });
    expect(bucket.objects.get(`ipgeo-${local.version}.asn`)).toEqual(asn.body);
  });

  it('adds it to a current version published without one, uploading nothing else and switching nothing', async () => {
    const bucket = memoryBucket();
    const { asn: _asn, ...without } = local;
    await publishTo(bucket, without, new Date('2026-12-01T00:00:00Z'), () => {});
    expect((await readRecord(bucket))?.current.asn).toBeUndefined();
    bucket.puts.length = 0;
    const record = await publishTo(bucket, local, new Date('2026-12-02T00:00:00Z'), () => {});
    expect(bucket.puts).toEqual([`ipgeo-${local.version}.asn`, 'ipgeo-current.json']);
    expect(record.current.asn?.sha256).toBe(asn.sha256);
    expect(record.versions.map((version) => version.asn?.sha256)).toEqual([asn.sha256]);
    expect(record.history?.map((period) => period.from)).toEqual(['2026-12-01T00:00:00.000Z']);
    bucket.puts.length = 0;
    await publishTo(bucket, local, new Date('2026-12-03T00:00:00Z'), () => {});
    expect(bucket.puts).toEqual([]);
  });

  it('refuses another ASN object for a version that has one, current or not, before anything is uploaded', async () => {
    const bucket = memoryBucket();
    await publishTo(bucket, local, new Date('2026-12-01T00:00:00Z'), () => {});
    bucket.puts.length = 0;
    // The same database with an ASN object of other bytes (another builder, say): its SHA-256 differs.
    const other = { ...local, asn: { ...asn, sha256: 'f'.repeat(64), body: asn.body.slice() } };
    const refusal = new PublishError(
      `version ${local.version} is already published with another ASN object (SHA-256 ${asn.sha256}, not ${'f'.repeat(64)}); a published ASN object is never replaced: publish it with a build of another version`,
    );
    await expect(publishTo(bucket, other, new Date('2026-12-02T00:00:00Z'), () => {})).rejects.toThrow(refusal);
    // Not current any more (another version published after it): refused as well.
    const shard = local.shards[0] ?? expect.fail('the build has a file');
    const next = { version: '2026-12-02.0000beef', shards: [{ ...shard, sha256: '0'.repeat(64) }] };
    await publishTo(bucket, next, new Date('2026-12-02T00:00:00Z'), () => {});
    bucket.puts.length = 0;
    await expect(publishTo(bucket, other, new Date('2026-12-03T00:00:00Z'), () => {})).rejects.toThrow(refusal);
    expect(bucket.puts).toEqual([]);
    expect(bucket.objects.get(`ipgeo-${local.version}.asn`)).toEqual(asn.body);
    expect((await readRecord(bucket))?.versions.find((version) => version.version === local.version)?.asn?.sha256).toBe(asn.sha256);
  });

  it('checks every piece before publishing, and refuses a damaged block or index, naming it', () => {
    expect(verifyAsnObject(asn, 'ipgeo.asn')).toEqual({ asns: 95, pages: 95 });
    const block = new Uint8Array(asn.body);
    block[asn.indexBytes + 7] = (block[asn.indexBytes + 7] as number) ^ 1;
    expect(() => verifyAsnObject({ ...asn, body: block }, 'ipgeo.asn')).toThrow(new PublishError('ipgeo.asn: block 0 is not the one its index describes'));
    const index = new Uint8Array(asn.body);
    index[40] = (index[40] as number) ^ 1;
    expect(() => verifyAsnObject({ ...asn, body: index }, 'ipgeo.asn')).toThrow(/its index is not the one its manifest describes/);
    expect(() => verifyAsnObject({ ...asn, body: asn.body.subarray(1) }, 'ipgeo.asn')).toThrow(/not its index and 1 blocks/);
  });
});
