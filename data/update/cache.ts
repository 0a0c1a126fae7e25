/**
 * @module The download cache of `data:update` (`data/cache/`, outside git): one folder per source, with
 * a `source.json` saying what was fetched and the SHA-256 of each file as written. New downloads go to a
 * staging folder first and replace the cached ones only once every source has been fetched and checked
 * and the build has succeeded. A cached source is reused only when its folder holds exactly the files
 * recorded, each with its recorded SHA-256; otherwise it is fetched again, and the update says why. An
 * archive kept beside its files (npm's tarball, MaxMind's `.tar.gz`) is checked again against what its
 * publisher states now, and extracted again ({@link DownloadCache.fromArchive}).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
  /** Where it was downloaded from, for sources named by their URL (geofeeds): origin and path only. */
  readonly url?: string;
  /** The SHA-256 of each file of the folder but `source.json`, by its path in the folder, as written. */
  readonly files?: Readonly<Record<string, string>>;
}

/** What {@link DownloadCache.stage} records: the files' digests are added by it. */
type SourceToStage = Omit<CachedSource, 'files'>;

/** The files under `dir` but `source.json`, by their path in it (`/`-separated), sorted. */
function filesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else found.push(relative(dir, path).split(sep).join('/'));
    }
  };
  if (existsSync(dir)) walk(dir);
  return found.filter((path) => path !== 'source.json').sort();
}

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

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

  /** @param log says why a cached source is not reused (altered, or written before digests were kept). */
  constructor(
    readonly root: string,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.staging = join(root, `.staging-${process.pid}`);
  }

  /** The cached folder of a source. */
  dirOf(id: string): string {
    return join(this.root, id);
  }

  /**
   * What the cache holds of a source, checked: undefined when it holds nothing, or when its folder is
   * not exactly the files recorded with their SHA-256 (then it is logged, and the source fetched again).
   */
  cached(id: string): CachedSource | undefined {
    const dir = this.dirOf(id);
    const file = join(dir, 'source.json');
    if (!existsSync(file)) return undefined;
    let source: CachedSource;
    try {
      source = JSON.parse(readFileSync(file, 'utf8')) as CachedSource;
    } catch {
      this.log(`${id}: the cache's source.json is not JSON; fetching it again`);
      return undefined;
    }
    if (source.files === undefined) {
      this.log(`${id}: the cached copy was written before the cache kept its files' SHA-256; fetching it again`);
      return undefined;
    }
    const digests = source.files;
    const recorded = Object.keys(digests).sort();
    const mismatched = recorded.find((name) => !existsSync(join(dir, name)) || sha256Of(readFileSync(join(dir, name))) !== digests[name]);
    const why =
      mismatched !== undefined
        ? `its ${mismatched} is not the file whose SHA-256 was recorded when it was written`
        : filesUnder(dir).join('\n') !== recorded.join('\n')
          ? `its folder holds other files than the ${recorded.length} recorded when it was written`
          : undefined;
    if (why === undefined) return source;
    this.log(`${id}: the cached copy was altered after download (${why}); fetching it again`);
    return undefined;
  }

  /** The source as cached, unchanged. */
  unchanged(id: string, source: CachedSource): StagedSource {
    return { id, dir: this.dirOf(id), changed: false, source };
  }

  /**
   * A cached source (as {@link cached} found it) whose archive is kept in its folder as `archive`: the
   * archive is checked by `verify` against what its publisher states now (the registry's integrity,
   * MaxMind's `.sha256`), then extracted again. Files and digests that whoever can write the cache could
   * have rewritten together are so held to the publisher's word.
   *
   * @param verify why the archive is not the publisher's, or undefined when it is.
   * @param extract the files the archive holds, by their path in the folder.
   * @returns the source as cached when its files are exactly the archive's; staged anew from the archive
   *   when they are not (and said); undefined, to fetch it again, when the archive is missing or `verify` refuses it.
   * @throws UpdateError from `extract` (a damaged archive).
   */
  async fromArchive(
    id: string,
    cached: CachedSource,
    archive: string,
    verify: (bytes: Buffer) => string | undefined,
    extract: (bytes: Buffer) => Promise<ReadonlyMap<string, Uint8Array>>,
  ): Promise<StagedSource | undefined> {
    const dir = this.dirOf(id);
    if (cached.files?.[archive] === undefined || !existsSync(join(dir, archive))) {
      this.log(`${id}: the cached copy was written before the cache kept its archive; fetching it again`);
      return undefined;
    }
    const bytes = readFileSync(join(dir, archive));
    const refused = verify(bytes);
    if (refused !== undefined) {
      this.log(`${id}: the cached archive ${refused}; fetching it again`);
      return undefined;
    }
    const files = await extract(bytes);
    const recorded = Object.keys(cached.files).filter((name) => name !== archive);
    const differs =
      recorded.length !== files.size || [...files].some(([name, content]) => !recorded.includes(name) || !readFileSync(join(dir, name)).equals(content));
    if (!differs) return this.unchanged(id, cached);
    this.log(`${id}: the cached files are not those of its archive, which is the publisher's; extracted again from the archive`);
    const { files: _digests, ...source } = cached;
    return this.stage(id, new Map([...files, [archive, bytes]]), source);
  }

  /**
   * Writes a new download into the staging folder.
   *
   * @throws UpdateError when a file's name would put it outside the source's folder (archives that hold
   *   such names are refused before this, `archive.ts`).
   */
  stage(id: string, files: ReadonlyMap<string, Uint8Array>, toStage: SourceToStage): StagedSource {
    const dir = join(this.staging, id);
    for (const name of files.keys()) {
      const inside = relative(dir, join(dir, name));
      if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
        throw new UpdateError(`${id}: a file's name would put it outside its folder`);
    }
    mkdirSync(dir, { recursive: true });
    const digests: Record<string, string> = {};
    for (const [name, bytes] of files) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), bytes);
      digests[relative(dir, join(dir, name)).split(sep).join('/')] = sha256Of(bytes);
    }
    const source: CachedSource = { ...toStage, files: digests };
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
