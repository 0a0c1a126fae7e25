/**
 * @module Listing a KV namespace's keys by prefix to the end, through its pages: what the operator
 * tool's `list` reads accounts with (`lifecycle.ts`), over the Workers binding or wrangler's platform proxy.
 */

/** A store that can also list its keys by prefix (the operator tool's `list`); see {@link kvListing} for a KVNamespace. */
export interface KvListing {
  /** Every key that starts with `prefix`, in KV's order (lexicographic). */
  listKeys(prefix: string): Promise<string[]>;
}

/** The part of a KVNamespace's `list` that {@link kvListing} uses. */
export interface KvPagedList {
  list(options: { prefix: string; cursor?: string }): Promise<{ keys: { name: string }[]; list_complete: boolean; cursor?: string }>;
}

/** {@link KvListing} over a KVNamespace (or anything with its `list`), following cursors to the end. */
export function kvListing(namespace: KvPagedList): KvListing {
  return {
    async listKeys(prefix) {
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await namespace.list(cursor === undefined ? { prefix } : { prefix, cursor });
        names.push(...page.keys.map((key) => key.name));
        cursor = page.list_complete ? undefined : page.cursor;
      } while (cursor !== undefined);
      return names;
    },
  };
}
