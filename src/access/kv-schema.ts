/**
 * @module Every key and value of the `ACCOUNTS` KV namespace (for operators: docs/storage.md; change
 * both together): `account:<accountId>`, the account and only source of truth, and the indexes
 * `apikey:<sha256 hex>`, `ip:<canonical address>` and `domain:<hostname>` naming its account. KV has no
 * transactions or compare-and-set, so an index entry counts only when the account it names lists the
 * same key, address or hostname; writers put index entries first and the account last (and remove them
 * in the other order), so a write cut off halfway leaves at most an entry that nothing honours.
 */
import { z } from 'zod';

/** An account id: 1 to 63 lower-case letters, digits and hyphens, starting with a letter or digit. */
export const AccountIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/);
/** A key id, shown to operators and customers: `key_` and 12 hex digits. */
const KeyIdSchema = z.string().regex(/^key_[0-9a-f]{12}$/);
/** SHA-256 in lower-case hex (64 digits). */
const Sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/);
/** A calendar date `YYYY-MM-DD`. */
const DateSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
/** An instant, ISO 8601 in UTC (`Date.prototype.toISOString`). */
const InstantSchema = z.iso.datetime();

/** One API key of an account. The key itself is never stored. */
const StoredKeySchema = z.object({
  id: KeyIdSchema,
  /** SHA-256 of the whole key text (`ipgeo_…`), hex. */
  sha256: Sha256HexSchema,
  createdAt: InstantSchema,
  /** When the key was or will be revoked (a rotated key's grace period ends then); null: not revoked. */
  revokedAt: InstantSchema.nullable(),
});

/** A quota: a whole number of lookups, or null for none. */
const QuotaSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).nullable();

/** An account's optional caps on lookups (docs/accounts.md, "Quotas"); null: none. Absent: none at all. */
const QuotasSchema = z.object({
  /** Lookups per calendar month, UTC, authenticated by a key or a whitelisted server address. */
  monthly: QuotaSchema,
  /** Lookups per UTC day of answers authenticated by a whitelisted website alone. */
  dailyWebsite: QuotaSchema,
  /** Lookups per calendar month, UTC, of answers authenticated by a whitelisted website alone (absent in documents written before it existed: none). */
  monthlyWebsite: QuotaSchema.optional(),
});

/** The value of `account:<id>`. */
export const AccountDocumentSchema = z.object({
  /** Schema version of this document. */
  v: z.literal(1),
  id: AccountIdSchema,
  status: z.enum(['active', 'cancelled']),
  /** The last day of access (UTC, inclusive), or null for no expiry. */
  expires: DateSchema.nullable(),
  createdAt: InstantSchema,
  cancelledAt: InstantSchema.nullable(),
  /** Whitelisted server addresses, canonical (`ip/address.ts`): dotted quad, or RFC 5952 IPv6. */
  ips: z.array(z.string()),
  /** Whitelisted website hostnames, lower case, punycode (as `new URL(…).hostname` gives them). */
  domains: z.array(z.string()),
  keys: z.array(StoredKeySchema),
  quotas: QuotasSchema.optional(),
});

/** The value of `apikey:<sha256 hex>`. */
export const ApiKeyIndexSchema = z.object({ account: AccountIdSchema, key: KeyIdSchema });

/** The value of `ip:<address>` and of `domain:<hostname>`. */
export const WhitelistIndexSchema = z.object({ account: AccountIdSchema });

/** An account as stored. */
export type AccountDocument = z.infer<typeof AccountDocumentSchema>;
/** An account's quotas. */
export type Quotas = z.infer<typeof QuotasSchema>;
/** One stored API key. */
export type StoredKey = z.infer<typeof StoredKeySchema>;

/** The KV key of an account document. */
export const accountKey = (accountId: string): string => `account:${accountId}`;
/** The KV key of the index entry of an API key, by the hex SHA-256 of the key. */
export const apiKeyIndexKey = (sha256Hex: string): string => `apikey:${sha256Hex}`;
/** The KV key of the index entry of a whitelisted server address (canonical form). */
export const ipIndexKey = (canonicalAddress: string): string => `ip:${canonicalAddress}`;
/** The KV key of the index entry of a whitelisted website hostname. */
export const domainIndexKey = (hostname: string): string => `domain:${hostname}`;
