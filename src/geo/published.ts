/**
 * @module What a deployment's R2 bucket holds (for operators: docs/storage.md; change both together):
 * each published version's objects (`ipgeo-<version>.mmdb`, or one per shard; `ipgeo-<version>.asn`), and `ipgeo-current.json`,
 * the {@link CurrentRecord} that names the current one with its objects' sizes and SHA-256s, keeps every version still
 * in the bucket (deleted 30 days after it stopped being current: GeoLite2 licence, 6c) and when each was
 * current (`history`, which `data:rollback` goes back through). The publisher writes the objects first and
 * the record last, and R2 is strongly consistent, so a Worker that reads the record finds its objects
 * (docs/decisions/0002-r2-over-kv-for-data.md).
 */
import { z } from 'zod';

/** The R2 key of the record that names the current version. */
export const CURRENT_RECORD_KEY = 'ipgeo-current.json';

/** A version string: the UTC date of the newest location source's build, a dot, 8 hex digits of the SHA-256. */
const VersionSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}\.[0-9a-f]{8}$/);

/**
 * The R2 key of a published version's database when it is one file (N = 1): `ipgeo-<version>.mmdb`.
 *
 * @internal Exported for the Worker tests that spoil or replace a version's object; the publisher names objects by {@link shardObjectKey}.
 */
export function versionObjectKey(version: string): string {
  return `ipgeo-${version}.mmdb`;
}

/** The R2 key of shard `index` of `count` (N > 1) of a published version: `ipgeo-<version>.shard-<index>-of-<count>.mmdb`. */
export function shardObjectKey(version: string, index: number, count: number): string {
  return count === 1 ? versionObjectKey(version) : `ipgeo-${version}.shard-${index}-of-${count}.mmdb`;
}

/** The R2 key of a published version's ASN object (docs/storage.md): `ipgeo-<version>.asn`. */
export function asnObjectKey(version: string): string {
  return `ipgeo-${version}.asn`;
}

/** The first and last position of the whole address space, the range of a version that is one file. */
const WHOLE = { first: '::', last: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff' } as const;

/** One object of a published version: its R2 key, the positions it answers (`src/geo/shard-ranges.ts`), size and SHA-256. */
const PublishedShardSchema = z.object({
  /** The object's R2 key, {@link shardObjectKey}. */
  key: z.string().min(1),
  /** First and last position it answers, RFC 5952 text, both included; the shards of a version tile the space in order. */
  first: z.string().min(2),
  last: z.string().min(2),
  /** The object's size in bytes. */
  bytes: z.number().int().positive(),
  /** SHA-256 of the object's bytes, lower-case hex: what a Worker verifies before it answers from them. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
/** One object of a published version (one shard; the whole database when N = 1). */
export type PublishedShard = z.infer<typeof PublishedShardSchema>;

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * A version's ASN object (`src/geo/asn-layout.ts`): its index, then `blocks` blocks of `blockBytes`, each
 * verified by the SHA-256 the index gives it, the index by `indexSha256`.
 */
const PublishedAsnSchema = z.object({
  /** The object's R2 key, {@link asnObjectKey}. */
  key: z.string().min(1),
  bytes: z.number().int().positive(),
  /** SHA-256 of the whole object, lower-case hex (`data:publish --check` compares it). */
  sha256: Sha256Schema,
  indexBytes: z.number().int().positive(),
  indexSha256: Sha256Schema,
  blockBytes: z.number().int().positive(),
  blocks: z.number().int().nonnegative(),
});
/** A version's ASN object, as the current record names it. */
export type PublishedAsn = z.infer<typeof PublishedAsnSchema>;

/**
 * One version whose objects are in the bucket. `shards` names its objects in address order (one for
 * N = 1); a version that is one file also keeps `key`, `bytes` and `sha256` at its top, as records
 * written before shards had them only (read as N = 1) and as Workers deployed before shards read them.
 */
const PublishedVersionSchema = z
  .object({
    version: VersionSchema,
    /** N = 1 only: the object's R2 key, {@link versionObjectKey} of `version`. */
    key: z.string().min(1).optional(),
    /** N = 1 only: the object's size in bytes. */
    bytes: z.number().int().positive().optional(),
    /** N = 1 only: SHA-256 of the object's bytes, lower-case hex. */
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
    /** Every object of the version in address order. Absent in records written before shards: then the one above. */
    shards: z.array(PublishedShardSchema).min(1).optional(),
    /** Its ASN object (the routes by ASN). Absent in records of versions published before it was built. */
    asn: PublishedAsnSchema.optional(),
    /** When it was uploaded (ISO 8601, UTC). */
    publishedAt: z.iso.datetime(),
    /** When it stopped being current (ISO 8601, UTC); null while current or never current. */
    retiredAt: z.iso.datetime().nullable(),
  })
  .transform((v, context) => {
    if (v.shards) return { ...v, shards: v.shards };
    if (v.key === undefined || v.bytes === undefined || v.sha256 === undefined) {
      context.addIssue({ code: 'custom', message: `version ${v.version} names no object: neither shards nor key, bytes and sha256` });
      return z.NEVER;
    }
    return { ...v, shards: [{ key: v.key, ...WHOLE, bytes: v.bytes, sha256: v.sha256 }] };
  });
/** One version whose objects are in the bucket, as read: `shards` always there (one for N = 1). */
export type PublishedVersion = z.output<typeof PublishedVersionSchema>;

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
