/**
 * @module What a deployment's R2 bucket holds (for operators: docs/storage.md; change both together):
 * `ipgeo-<version>.mmdb`, one object per published version, and `ipgeo-current.json`, the
 * {@link CurrentRecord} that names the current one with its size and SHA-256 and keeps every version
 * still in the bucket (for rollback, and deletion 30 days after it stopped being current: GeoLite2
 * licence, 6c). The publisher writes the object first and the record last, and R2 is strongly
 * consistent, so a Worker that reads the record finds its object (docs/decisions/0002-r2-over-kv-for-data.md).
 */
import { z } from 'zod';

/** The R2 key of the record that names the current version. */
export const CURRENT_RECORD_KEY = 'ipgeo-current.json';

/** A version string: the UTC date of the newest location source's build, a dot, 8 hex digits of the SHA-256. */
export const VersionSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}\.[0-9a-f]{8}$/);

/** The R2 key of a published version's database: `ipgeo-<version>.mmdb`. */
export function versionObjectKey(version: string): string {
  return `ipgeo-${version}.mmdb`;
}

/** One version whose object is in the bucket. */
export const PublishedVersionSchema = z.object({
  version: VersionSchema,
  /** The object's R2 key, {@link versionObjectKey} of `version`. */
  key: z.string().min(1),
  /** The object's size in bytes. */
  bytes: z.number().int().positive(),
  /** SHA-256 of the object's bytes, lower-case hex: what a Worker verifies before it answers from them. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** When it was uploaded (ISO 8601, UTC). */
  publishedAt: z.iso.datetime(),
  /** When it stopped being current (ISO 8601, UTC); null while current or never current. */
  retiredAt: z.iso.datetime().nullable(),
});
/** One version whose object is in the bucket. */
export type PublishedVersion = z.infer<typeof PublishedVersionSchema>;

/** The value of {@link CURRENT_RECORD_KEY}. */
export const CurrentRecordSchema = z.object({
  /** Schema version of this record. */
  v: z.literal(1),
  /** The current version; one of `versions`. */
  current: PublishedVersionSchema,
  /** Every version whose object is in the bucket, the current one included, oldest first. */
  versions: z.array(PublishedVersionSchema),
});
/** The value of {@link CURRENT_RECORD_KEY}. */
export type CurrentRecord = z.infer<typeof CurrentRecordSchema>;
