/**
 * @module The failure of data that cannot answer (missing, unreadable, not a compiled database, or
 * corrupt where a lookup read it): one error class that the loaders and the database's reads throw,
 * and `errors/render.ts` answers as 503 `DATA_UNAVAILABLE`. Its message is for the operator's log,
 * never for clients.
 */

/**
 * The database cannot answer: it is missing, unreadable, not a compiled database, or corrupt where a
 * lookup read it. `message` is for the operator's log, never for clients.
 */
export class DataUnavailableError extends Error {
  override readonly name = 'DataUnavailableError';
}

/** The failure of a database that cannot be read; `reason` is for logs (`loading.ts` logs it), never for clients. */
export function unavailable(reason: string): DataUnavailableError {
  return new DataUnavailableError(reason);
}
