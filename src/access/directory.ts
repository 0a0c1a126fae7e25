/**
 * @module Finds accounts in KV by API key hash, server address or website hostname, through short
 * per-isolate caches of settled values (`cache.ts`): each request that misses reads KV itself. A change
 * bites in an isolate within {@link ACCESS_CACHE_TTL_MS} of KV serving it there, everywhere within that
 * and KV's propagation together (docs/accounts.md, "How long changes take"). Unknown keys, addresses and
 * hostnames are remembered as absent in caches of their own, so a made-up one costs at most one read
 * per time to live and cannot push out the entries of real accounts.
 */
import type { z } from 'zod';
import { reportEvent, whyOf } from '../events/operational.ts';
import type { Settled } from '../memory/lru-map.ts';
import { TtlCache } from './cache.ts';
import {
  type AccountDocument,
  AccountDocumentSchema,
  ApiKeyIndexSchema,
  accountKey,
  apiKeyIndexKey,
  domainIndexKey,
  ipIndexKey,
  type StoredKey,
  WhitelistIndexSchema,
} from './kv-schema.ts';

/** How long an isolate serves what it read from KV, found or absent, in ms. */
const ACCESS_CACHE_TTL_MS = 30_000;
/** How many found entries of each kind an isolate keeps (a few MB at most). */
const ACCESS_CACHE_ENTRIES = 5_000;
/**
 * How many absent entries of each kind (unknown key hashes, addresses and hostnames that no account
 * whitelists) an isolate remembers, apart from the found ones, so that they cannot push them out.
 * About 150 bytes each: under 1 MB per kind when full.
 */
const ACCESS_CACHE_ABSENT_ENTRIES = 5_000;

/** The part of a KV namespace the directory reads. */
export interface KvReader {
  get(key: string): Promise<string | null>;
}

/** An account and one of its keys, as found by key hash. */
export interface KeyMatch {
  readonly account: AccountDocument;
  readonly key: StoredKey;
}

/** Options of an {@link AccountDirectory}. */
export interface DirectoryOptions {
  /** Time to live of every entry; {@link ACCESS_CACHE_TTL_MS} by default. */
  readonly ttlMs?: number;
  /** Found entries per kind; {@link ACCESS_CACHE_ENTRIES} by default. */
  readonly maxEntries?: number;
  /** Absent entries per kind; {@link ACCESS_CACHE_ABSENT_ENTRIES} by default. */
  readonly maxAbsentEntries?: number;
  /** The clock in ms since the epoch; `Date.now()` by default. */
  readonly now?: () => number;
}

/** Cached account lookups; one instance per isolate (the middleware's), or per test with its own clock. */
export class AccountDirectory {
  readonly #accounts: KvEntries<AccountDocument>;
  readonly #apiKeys: KvEntries<z.infer<typeof ApiKeyIndexSchema>>;
  readonly #whitelist: KvEntries<z.infer<typeof WhitelistIndexSchema>>;

  constructor(options: DirectoryOptions = {}) {
    this.#accounts = new KvEntries(AccountDocumentSchema, options);
    this.#apiKeys = new KvEntries(ApiKeyIndexSchema, options);
    this.#whitelist = new KvEntries(WhitelistIndexSchema, options);
  }

  /** The account and key whose stored hash is `sha256Hex` by the index; the caller compares the hashes. */
  async byKeyHash(kv: KvReader, sha256Hex: string): Promise<KeyMatch | null> {
    const entry = await this.#apiKeys.read(kv, apiKeyIndexKey(sha256Hex));
    if (entry === null) return null;
    const account = await this.account(kv, entry.account);
    const key = account?.keys.find((stored) => stored.id === entry.key);
    return account && key ? { account, key } : null;
  }

  /** The account that whitelists the canonical server address, confirmed by its document. */
  async byAddress(kv: KvReader, canonicalAddress: string): Promise<AccountDocument | null> {
    const account = await this.#indexed(kv, ipIndexKey(canonicalAddress));
    return account?.ips.includes(canonicalAddress) ? account : null;
  }

  /** The account that whitelists the website hostname, confirmed by its document. */
  async byHostname(kv: KvReader, hostname: string): Promise<AccountDocument | null> {
    const account = await this.#indexed(kv, domainIndexKey(hostname));
    return account?.domains.includes(hostname) ? account : null;
  }

  /** The account document of `accountId`, or null. */
  account(kv: KvReader, accountId: string): Promise<AccountDocument | null> {
    return this.#accounts.read(kv, accountKey(accountId));
  }

  async #indexed(kv: KvReader, indexKey: string): Promise<AccountDocument | null> {
    const entry = await this.#whitelist.read(kv, indexKey);
    return entry === null ? null : this.account(kv, entry.account);
  }
}

/**
 * One kind of KV entry, parsed by `schema`, behind two caches: values found, and keys found absent.
 * Absent keys are cheap to make up (a random key hash, address or hostname), so they get a cache of
 * their own: however many there are, they neither cost a read each within the time to live nor push
 * out the entries of real accounts.
 */
class KvEntries<T extends Settled> {
  readonly #found: TtlCache<T>;
  readonly #absent: TtlCache<true>;

  constructor(
    readonly schema: z.ZodType<T>,
    options: DirectoryOptions,
  ) {
    const clock = options.now ? { now: options.now } : {};
    const ttlMs = options.ttlMs ?? ACCESS_CACHE_TTL_MS;
    this.#found = new TtlCache({ ttlMs, maxEntries: options.maxEntries ?? ACCESS_CACHE_ENTRIES, ...clock });
    this.#absent = new TtlCache({ ttlMs, maxEntries: options.maxAbsentEntries ?? ACCESS_CACHE_ABSENT_ENTRIES, ...clock });
  }

  /** The value under `key`: cached, or read by this request itself and then cached either way. */
  async read(kv: KvReader, key: string): Promise<T | null> {
    const hit = this.#found.get(key);
    if (hit) return hit.value;
    if (this.#absent.get(key)) return null;
    const value = await read(kv, key, this.schema);
    if (value === null) this.#absent.set(key, true);
    else this.#found.set(key, value);
    return value;
  }
}

/** KV could not be read (the read failed or was refused): the request cannot be decided now. */
export class AccountsUnavailableError extends Error {
  override readonly name = 'AccountsUnavailableError';
}

/**
 * A KV value parsed by `schema`; null when absent, or when it is not valid (logged: it is an operator's mistake).
 *
 * @throws {AccountsUnavailableError} when KV does not answer the read.
 */
async function read<T>(kv: KvReader, key: string, schema: z.ZodType<T>): Promise<T | null> {
  let text: string | null;
  try {
    text = await kv.get(key);
  } catch (error) {
    throw new AccountsUnavailableError(`ACCOUNTS read of ${key} failed`, { cause: error });
  }
  if (text === null) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
    reportEvent({ event: 'invalid-account-entry', key, why: `not valid: ${JSON.stringify(parsed.error.issues[0])}` });
  } catch (error) {
    reportEvent({ event: 'invalid-account-entry', key, why: `not JSON: ${whyOf(error)}` });
  }
  return null;
}
