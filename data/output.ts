/**
 * @module What a build writes into its folder (docs/sharding.md): the database as the `--shards N` files
 * by address range that were asked, or as the fewest that fit the isolate budget (`budget.ts`), and the
 * manifest that lists them. Files go under temporary names first and are renamed into place, the manifest
 * last, so that a reader that goes by the manifest finds the files it names.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { budgetFit } from '../src/geo/budget.ts';
import type { StoredFlag } from '../src/geo/schema.ts';
import { FIRST_POSITION, formatPosition, LAST_POSITION, type ShardRange, WHOLE_SPACE } from '../src/geo/shard-ranges.ts';
import type { AsnObjectInfo } from './asn/object.ts';
import { checkBudget, mib } from './budget.ts';
import type { CompileCounts, Overlay } from './compile.ts';
import type { CorrectionsInfo } from './corrections/corrections.ts';
import type { SourceInfo } from './sources/source.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The most shards a build makes: a bulk request may call every shard, and Workers allow a request 32 calls to other Workers. */
const MAX_SHARDS = 32;

/** The `--shards` option as `parseArgs` declares it (`data:build`, `data:update`). */
export const SHARDS_OPTION = { shards: { type: 'string' } } as const;

/** What {@link SHARDS_OPTION} sets, for the usage texts. */
export const SHARDS_HELP = `split the database into N files by address range (1 to ${MAX_SHARDS}), each served by a
                               Worker of its own; without it, the fewest that fit the budget (1 when the whole
                               database fits: one file, ipgeo.mmdb)`;

/** `--shards` as a number of shards (undefined without it), or an error message. */
export function shardsFromOption(value: string | undefined): number | undefined | { error: string } {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > MAX_SHARDS)
    return { error: `--shards must be a whole number from 1 to ${MAX_SHARDS}, not ${JSON.stringify(value)}` };
  return count;
}

/** A file of a build, ready to write: its path, bytes and range of positions. */
interface BuildOutput {
  readonly file: string;
  readonly bytes: Uint8Array;
  readonly range: ShardRange;
}

/**
 * The files of `shards` shards (the fewest that fit `budgetBytes` when undefined), each checked
 * against the budget, and the counts of the database.
 *
 * @throws BudgetError when a file would not fit: with `shards` given, naming how many would; without,
 *   when the budget leaves no room for data or even {@link MAX_SHARDS} shards would not fit.
 */
export function shardsFitting(
  compiled: Overlay,
  shards: number | undefined,
  budgetBytes: number,
  outDir: string,
  log: (line: string) => void,
): { files: BuildOutput[]; counts: CompileCounts } {
  const attempt = (count: number) => {
    if (count === 1) {
      const { bytes, counts } = compiled.whole();
      return { files: [{ file: join(outDir, 'ipgeo.mmdb'), bytes, range: WHOLE_SPACE[0] as ShardRange }], counts };
    }
    const split = compiled.split(count);
    return { files: split.shards.map(({ bytes, range }, k) => ({ file: join(outDir, shardFileName(k, count)), bytes, range })), counts: split.counts };
  };
  const room = budgetFit(0, budgetBytes).largestFileBytes;
  let count = shards ?? 1;
  for (;;) {
    const result = attempt(count);
    const largest = result.files.reduce((a, b) => (b.bytes.length > a.bytes.length ? b : a));
    if (budgetFit(largest.bytes.length, budgetBytes).fits) return result;
    const total = result.files.reduce((sum, f) => sum + f.bytes.length, 0);
    // Shards repeat some data (a location used on both sides of a boundary): at least the total over the room, and one more than tried.
    const next = room > 0 ? Math.max(count + 1, Math.ceil(total / room)) : Number.POSITIVE_INFINITY;
    const remedy =
      room === 0
        ? `No number of shards helps: an isolate needs ${mib(budgetFit(0, budgetBytes).neededBytes)} before it holds any data. Give a larger budget with --budget-mib.`
        : next > MAX_SHARDS
          ? `Even ${MAX_SHARDS} shards, the most a build makes, would not fit: build from smaller sources, or give a larger budget with --budget-mib.`
          : `Build more shards: --shards ${next} or more, or leave --shards out to get the fewest that fit.`;
    if (shards !== undefined || room === 0 || next > MAX_SHARDS) checkBudget(relative(ROOT, largest.file), largest.bytes.length, budgetBytes, remedy);
    log(
      `  ${count === 1 ? 'The whole database' : `${count} shards: the largest`} (${mib(largest.bytes.length)}) would not fit the budget; trying ${next} shards.`,
    );
    count = next;
  }
}

/** The file name of shard `index` of `count` (`ipgeo.shard-0-of-3.mmdb`). */
function shardFileName(index: number, count: number): string {
  return `ipgeo.shard-${index}-of-${count}.mmdb`;
}

/** The database files a build of any number of shards writes into its folder. */
const BUILD_FILE = /^ipgeo(\.shard-\d+-of-\d+)?\.mmdb$/;

/**
 * Writes the files and the manifest of a build into `outDir`: every file under a temporary name
 * first, then each renamed into place, the manifest last (a reader that goes by the manifest finds
 * the files it names, checked by their SHA-256), then removes the files of another build.
 *
 * @param others the build's files beside the database's (its ASN object), written the same way.
 */
export function writeBuild(outDir: string, files: readonly BuildOutput[], manifest: Manifest, others: readonly Omit<BuildOutput, 'range'>[] = []): void {
  mkdirSync(outDir, { recursive: true });
  const manifestFile = join(outDir, 'ipgeo.manifest.json');
  const temporary = (file: string) => `${file}.tmp`;
  const written = [...files, ...others];
  try {
    for (const f of written) writeFileSync(temporary(f.file), f.bytes);
    writeFileSync(temporary(manifestFile), `${JSON.stringify(manifest, null, 2)}\n`);
    for (const f of written) renameSync(temporary(f.file), f.file);
    renameSync(temporary(manifestFile), manifestFile);
  } finally {
    for (const file of [...written.map((f) => f.file), manifestFile]) rmSync(temporary(file), { force: true });
  }
  const kept = new Set(files.map((f) => basename(f.file)));
  for (const name of readdirSync(outDir)) if (BUILD_FILE.test(name) && !kept.has(name)) rmSync(join(outDir, name), { force: true });
}

/**
 * The digest a sharded build's version is made of: the SHA-256 of its files' SHA-256s, as lower-case
 * hex, each followed by a newline, in shard order (what `sha256sum` of the files, cut to the digests,
 * piped into `sha256sum` again prints).
 */
export function shardSetDigest(sha256s: readonly string[]): string {
  return createHash('sha256')
    .update(sha256s.map((sha256) => `${sha256}\n`).join(''))
    .digest('hex');
}

/** One file of a build, as its manifest lists it. */
export interface ManifestShard {
  /** Its place in address order, 0 to N-1. */
  index: number;
  /** Its file name, in the manifest's folder: `ipgeo.mmdb` for N = 1, else `ipgeo.shard-<index>-of-<N>.mmdb`. */
  file: string;
  /** The first and last position it answers (RFC 5952 text, `src/geo/shard-ranges.ts`): `::` and `ffff:…:ffff` for N = 1. */
  first: string;
  last: string;
  bytes: number;
  /** SHA-256 of the file, lower-case hex. */
  sha256: string;
}

/**
 * The files a manifest names, in address order: its `shards`, or for a manifest written before shards
 * its one `output`, which covers everything.
 */
export function manifestShards(manifest: Pick<Partial<Manifest>, 'shards' | 'output'>): ManifestShard[] {
  if (manifest.shards) return manifest.shards;
  if (!manifest.output) return [];
  const { bytes, sha256 } = manifest.output;
  return [{ index: 0, file: basename(manifest.output.file), first: formatPosition(FIRST_POSITION), last: formatPosition(LAST_POSITION), bytes, sha256 }];
}

/** The manifest written beside the database's files (`data/out/ipgeo.manifest.json`). */
export interface Manifest {
  /**
   * `YYYY-MM-DD.hhhhhhhh`: the newest location source's build date and 8 hex digits of the file's
   * SHA-256 (`src/geo/identity.ts`), or with N > 1 of the SHA-256 of the files' SHA-256s ({@link shardSetDigest}).
   */
  version: string;
  databaseType: string;
  schemaVersion: number;
  /** ISO 8601, also the database's build_epoch: the newest source's build date (`newestSourceEpoch`, `build.ts`), not the clock's. */
  builtAt: string;
  /** How long the build took; the one figure of the manifest that differs between two builds of the same sources. */
  buildSeconds: number;
  /** With one shard only: the database file (its path from the repository), as manifests before shards had it. */
  output?: { file: string; bytes: number; sha256: string };
  /** Every file of the build in address order, their ranges tiling the address space. Absent in manifests written before shards. */
  shards: ManifestShard[];
  /** Total size of the source files read, in bytes. */
  sourceBytes: number;
  counts: CompileCounts;
  /** The flags the flag sources can set, in the order of `FLAGS` (`src/geo/schema.ts`): every other flag is false everywhere. */
  flags: StoredFlag[];
  /** Whether a flag source can set isProxy (a flag of `flags` other than `hosting`): without one, every isProxy is false. */
  isProxyConfigured: boolean;
  /** Every source with its name, version, build date, licence, attribution, notice and files; a flag source with the flags it can set. */
  sources: (SourceInfo & { flags?: StoredFlag[] })[];
  /**
   * The ASN object of the build (`data/asn/object.ts`): networks by ASN, read by range from R2 (docs/storage.md).
   * Absent in manifests written before it was built.
   */
  asn?: AsnObjectInfo;
  /**
   * The operator's corrections in precedence order (a later file wins for the same prefix), each with
   * its SHA-256, lines and prefixes; empty without any. Absent in manifests written before corrections.
   */
  corrections?: CorrectionsInfo[];
}
