/**
 * @module What every data source gives the build: its networks with their facts, and a description
 * of itself for the manifest (files, version, licence, attribution).
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { StoredLocation, StoredNetwork } from '../../src/geo/schema.ts';
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
  /** Short identifier, e.g. `geolite2-city-mmdb`. */
  readonly name: string;
  /** What the source contributes to a record. */
  readonly provides: 'location' | 'network' | 'proxy';
  /** Package or database version, e.g. `2.3.2026061719` or `GeoIP2-City 2026-11-18`. */
  readonly version: string;
  /** Build date of the data itself (ISO 8601), when the source states it. */
  readonly dataDate?: string;
  readonly licence: string;
  /** The attribution line the licence asks for. */
  readonly attribution: string;
  readonly files: readonly SourceFile[];
}

/** A source of locations: visits each network with the location stored for it. */
export interface LocationSource {
  readonly info: SourceInfo;
  forEach(visit: (network: Network, location: StoredLocation) => void): void;
}

/** A source of routing facts (ASN and organisation). */
export interface NetworkSource {
  readonly info: SourceInfo;
  forEach(visit: (network: Network, facts: StoredNetwork) => void): void;
}

/** A source of anonymising networks (proxies, VPNs, Tor exits). */
export interface ProxySource {
  readonly info: SourceInfo;
  forEach(visit: (network: Network) => void): void;
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
