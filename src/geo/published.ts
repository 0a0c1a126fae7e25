/**
 * @module What a deployment's R2 bucket holds (for operators: docs/storage.md; change both together):
 * `ipgeo-<version>.mmdb`, one object per published version, and `ipgeo-current.json`, the
 * {@link CurrentRecord} that names the current one with its size and SHA-256, keeps every version still
 * in the bucket (deleted 30 days after it stopped being current: GeoLite2 licence, 6c) and when each was
 * current (`history`, which `data:rollback` goes back through). The publisher writes the object first and
 * the record last, and R2 is strongly consistent, so a Worker that reads the record finds its object
 * (docs/decisions/0002-r2-over-kv-for-data.md).
 */
import { z } from 'zod';

/** The R2 key of the record that names the current version. */
export const CURRENT_RECORD_KEY = 'ipgeo-current.json';

/** A version string: the UTC date of the newest location source's build, a dot, 8 hex digits of the SHA-256. */
const VersionSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}\.[0-9a-f]{8}$/);

/** The R2 key of a published version's database: `ipgeo-<version>.mmdb`. */
export function versionObjectKey(version: string): string {
  return `ipgeo-${version}.mmdb`;
}

/** One version whose object is in the bucket. */
const PublishedVersionSchema = z.object({
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

/** A time during which one version was current. */
const CurrentPeriodSchema = z.object({
  version: VersionSchema,
  /** How it became current: `data:publish` made it so, or `data:rollback` returned to it. */
  by: z.enum(['publish', 'rollback']),
  /** When it became current (ISO 8601, UTC). */
  from: z.iso.datetime(),
  /** When it stopped being current (ISO 8601, UTC); null for the current period. */
  until: z.iso.datetime().nullable(),
  /**
   * For a period begun by a publish: when `data:rollback` took that publish back, after which no
   * rollback returns to it; null otherwise. The publishes not taken back are what rollback goes back through.
   */
  rolledBackAt: z.iso.datetime().nullable(),
});
/** A time during which one version was current. */
export type CurrentPeriod = z.infer<typeof CurrentPeriodSchema>;

/**
 * The value of {@link CURRENT_RECORD_KEY}. Still `v: 1` with `history` added: a Worker deployed before
 * it ignores the key it does not know, and records written before it (no `history`) still read.
 */
export const CurrentRecordSchema = z.object({
  /** Schema version of this record. */
  v: z.literal(1),
  /** The current version; one of `versions`. */
  current: PublishedVersionSchema,
  /** Every version whose object is in the bucket, the current one included, oldest first. */
  versions: z.array(PublishedVersionSchema),
  /**
   * When each version in the bucket was current, oldest first, the current period last (periods of
   * deleted versions are dropped with them). Absent in records written before it was kept.
   */
  history: z.array(CurrentPeriodSchema).optional(),
});
/** The value of {@link CURRENT_RECORD_KEY}. */
export type CurrentRecord = z.infer<typeof CurrentRecordSchema>;
