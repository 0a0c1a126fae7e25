/**
 * @module The download cache of `data:update` (`data/cache/`, outside git): one folder per source, with
 * a `source.json` saying what was fetched. New downloads go to a staging folder first and replace the
 * cached ones only once every source has been fetched and checked and the build has succeeded.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { UpdateError } from './download.ts';

/** What `source.json` records about a cached source. */
export interface CachedSource {
  /** The publisher's version: a package version, or the MMDB's build date. */
  readonly version: string;
  /** The MMDB's build_epoch (seconds), for sources that are MaxMind DBs. */
  readonly buildEpoch?: number;
  /** SHA-256 of the archive as downloaded (MaxMind's `.sha256`), to skip an unchanged edition. */
  readonly archiveSha256?: string;
  /** An npm package's tarball integrity: the registry's `dist.integrity` (SRI, `sha512-…`), which its bytes matched. */
  readonly integrity?: string;
  /** When it was downloaded, ISO 8601. */
  readonly fetchedAt: string;
  /** Where it was downloaded from, for sources named by their URL (geofeeds). */
  readonly url?: string;
}

/** A source fetched by this update: where the build reads it, and whether it is new. */
export interface StagedSource {
  /** The cache folder's name, e.g. `maxmind/GeoLite2-City`. */
  readonly id: string;
  /** The folder the build reads: the staging folder when new, else the cached one. */
  readonly dir: string;
  readonly changed: boolean;
  readonly source: CachedSource;
}

/** The cache under `root`, with its staging folder for this run. */
export class DownloadCache {
  readonly staging: string;

  constructor(readonly root: string) {
    this.staging = join(root, `.staging-${process.pid}`);
  }

  /** The cached folder of a source. */
  dirOf(id: string): string {
    return join(this.root, id);
  }

  /** What the cache holds of a source, if anything. */
  cached(id: string): CachedSource | undefined {
    const file = join(this.dirOf(id), 'source.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as CachedSource) : undefined;
  }

  /** The source as cached, unchanged. */
  unchanged(id: string, source: CachedSource): StagedSource {
    return { id, dir: this.dirOf(id), changed: false, source };
  }

  /**
   * Writes a new download into the staging folder.
   *
   * @throws UpdateError when a file's name would put it outside the source's folder (archives that hold
   *   such names are refused before this, `archive.ts`).
   */
  stage(id: string, files: ReadonlyMap<string, Uint8Array>, source: CachedSource): StagedSource {
    const dir = join(this.staging, id);
    for (const name of files.keys()) {
      const inside = relative(dir, join(dir, name));
      if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
        throw new UpdateError(`${id}: the file name ${JSON.stringify(name)} is outside its folder`);
    }
    mkdirSync(dir, { recursive: true });
    for (const [name, bytes] of files) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), bytes);
    }
    writeFileSync(join(dir, 'source.json'), `${JSON.stringify(source, null, 2)}\n`);
    return { id, dir, changed: true, source };
  }

  /** Moves the new downloads into the cache (after the build succeeded). */
  commit(sources: readonly StagedSource[]): void {
    for (const source of sources) {
      if (!source.changed) continue;
      const target = this.dirOf(source.id);
      rmSync(target, { recursive: true, force: true });
      mkdirSync(dirname(target), { recursive: true });
      renameSync(source.dir, target);
    }
    this.discard();
  }

  /** Drops this run's staging folder. */
  discard(): void {
    rmSync(this.staging, { recursive: true, force: true });
  }
}
