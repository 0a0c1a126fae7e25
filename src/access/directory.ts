/**
 * @module Finds accounts in KV by API key hash, server address or website hostname, through a short
 * per-isolate cache.
 *
 * Revocation delay. A change made with the operator tool bites in a given isolate after at most
 * {@link ACCESS_CACHE_TTL_MS} (30 s) once KV serves it there; KV itself takes up to about 60 s to reach
 * every location. So a revoked key, a cancelled account or a removed whitelist entry stops working
 * everywhere within about 90 s, and at once for requests that reach a cold isolate in the location
 * where the change was written. New keys and whitelist entries take effect within the same bound
 * (unknown keys are cached too, so that random keys cannot make every request a KV read).
 */
import type { z } from 'zod';
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

/** How long an isolate serves what it read from KV, in ms. */
export const ACCESS_CACHE_TTL_MS = 30_000;
/** How many entries of each kind an isolate keeps (a few MB at most). */
export const ACCESS_CACHE_ENTRIES = 5_000;

/** The part of a KV namespace the directory reads. */
export interface KvReader {
  get(key: string): Promise<string | null>;
}

/** An account and one of its keys, as found by key hash. */
export interface KeyMatch {
  readonly account: AccountDocument;
  readonly key: StoredKey;
}

/** Cached account lookups; one instance per isolate (the middleware's), or per test with its own clock. */
export class AccountDirectory {
  readonly #accounts: TtlCache<AccountDocument | null>;
  readonly #apiKeys: TtlCache<z.infer<typeof ApiKeyIndexSchema> | null>;
  readonly #whitelist: TtlCache<z.infer<typeof WhitelistIndexSchema> | null>;

  /** @param options.now the clock in ms since the epoch; `ttlMs` and `maxEntries` default to the constants above. */
  constructor(options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}) {
    const cache = {
      ttlMs: options.ttlMs ?? ACCESS_CACHE_TTL_MS,
      maxEntries: options.maxEntries ?? ACCESS_CACHE_ENTRIES,
      ...(options.now ? { now: options.now } : {}),
    };
    this.#accounts = new TtlCache(cache);
    this.#apiKeys = new TtlCache(cache);
    this.#whitelist = new TtlCache(cache);
  }

  /** The account and key whose stored hash is `sha256Hex` by the index; the caller compares the hashes. */
  async byKeyHash(kv: KvReader, sha256Hex: string): Promise<KeyMatch | null> {
    const entry = await this.#apiKeys.get(apiKeyIndexKey(sha256Hex), () => read(kv, apiKeyIndexKey(sha256Hex), ApiKeyIndexSchema));
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
    return this.#accounts.get(accountKey(accountId), () => read(kv, accountKey(accountId), AccountDocumentSchema));
  }

  async #indexed(kv: KvReader, indexKey: string): Promise<AccountDocument | null> {
    const entry = await this.#whitelist.get(indexKey, () => read(kv, indexKey, WhitelistIndexSchema));
    return entry === null ? null : this.account(kv, entry.account);
  }
}

/** A KV value parsed by `schema`; null when absent, or when it is not valid (logged: it is an operator's mistake). */
async function read<T>(kv: KvReader, key: string, schema: z.ZodType<T>): Promise<T | null> {
  const text = await kv.get(key);
  if (text === null) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
    console.error(`ACCOUNTS ${key} is not valid; ignored`, parsed.error.issues[0]);
  } catch (error) {
    console.error(`ACCOUNTS ${key} is not JSON; ignored`, error);
  }
  return null;
}
