/**
 * @module How long data that failed to load stays failed: the loader tries no new load for that long
 * (`loading.ts`), and every 503 `DATA_UNAVAILABLE` tells clients to wait as long (`Retry-After`).
 */

/** Seconds between attempts to load the database after a failure (clients are told to wait as long). */
export const RETRY_AFTER_SECONDS = 5;
