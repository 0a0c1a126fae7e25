/**
 * @module Where a request arrived, as the events name it: Cloudflare's `request.cf`, whose `colo` is
 * the IATA code of the data centre whose isolate answered. Both kinds of event (operational, data)
 * and the app's calls of its shard Workers (which log data events for it) read it here.
 */

/** Where a request arrived: Cloudflare's `request.cf` (absent under some local runs). */
export interface RequestPlace {
  readonly cf?: object | undefined;
}

/** The Cloudflare location (`cf.colo`) of a request, or undefined where it carries none (as under `wrangler dev`). */
export function coloOf(place: RequestPlace | undefined): string | undefined {
  const colo = (place?.cf as { readonly colo?: unknown } | undefined)?.colo;
  return typeof colo === 'string' ? colo : undefined;
}
