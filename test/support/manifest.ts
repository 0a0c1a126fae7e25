/**
 * @module The build's manifest (`data/out/ipgeo.manifest.json`), read in workerd: the expected values
 * of the status endpoint and the `X-Database-Version` header, computed by the build in Node (its
 * SHA-256 with `node:crypto`), not by the Worker.
 */

import type { StoredFlag } from '../../src/geo/schema.ts';
import { repoFile } from './repo.ts';

/** The parts of the manifest the tests read (`data/output.ts`, `Manifest`). */
export interface ManifestForTests {
  version: string;
  builtAt: string;
  output: { bytes: number; sha256: string };
  counts: { networks: number; records: number };
  sources: Array<{
    name: string;
    provides: 'location' | 'network' | 'proxy';
    version: string;
    builtAt: string;
    licence: string;
    attribution: string;
    flags?: StoredFlag[];
  }>;
  /** The flags the data can set. */
  flags: StoredFlag[];
  corrections?: Array<{ name: string; sha256: string; lines: number; prefixes: number }>;
}

/** The manifest of the compiled database the tests load, or of the build in `dir`. */
export async function readManifest(dir = 'data/out'): Promise<ManifestForTests> {
  return JSON.parse(new TextDecoder().decode(await repoFile(`${dir}/ipgeo.manifest.json`))) as ManifestForTests;
}

/** The isolate budget of `docs/operations.md`: 96 MiB. */
const BUDGET_BYTES = 96 * 1024 * 1024;

/**
 * What `GET …/status` must answer for `database`, from the manifest: a database that is not sharded is
 * one shard covering the whole IPv6 space (docs/sharding.md, "Status"), whose switch waits where two of its files alone
 * exceed the budget (the default build's 65 MB do).
 */
export function expectedDatabase(manifest: ManifestForTests) {
  const whole = {
    first: '::',
    last: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    bytes: manifest.output.bytes,
    sha256: manifest.output.sha256,
    version: manifest.version,
    switchWaits: 2 * manifest.output.bytes > BUDGET_BYTES,
  };
  return {
    shards: [whole],
    version: manifest.version,
    builtAt: manifest.builtAt,
    networks: manifest.counts.networks,
    records: manifest.counts.records,
    bytes: manifest.output.bytes,
    sha256: manifest.output.sha256,
    sources: manifest.sources.map(({ name, version, builtAt, licence, attribution, flags }) => ({
      name,
      version,
      builtAt,
      licence,
      attribution,
      ...(flags ? { flags } : {}),
    })),
    flags: manifest.flags,
    corrections: (manifest.corrections ?? []).map(({ name, sha256, lines, prefixes }) => ({ name, sha256, lines, prefixes })),
  };
}
