/**
 * @module The status endpoint's answer for a build of one file, from its manifest: what `GET
 * /api/v1/status` and `GET /api/status` answer once that build is loaded, written by the server's own
 * `statusBody` (`src/lookup/status-body.ts`) from the identity the manifest states. The docs' examples
 * are written from it (`npm run docs:examples`); a Worker test holds it equal to the server's answer.
 */
import type { DatabaseIdentity } from '../../src/geo/identity.ts';
import type { StoredFlag } from '../../src/geo/schema.ts';
import { statusBody, wholeStatus } from '../../src/lookup/status-body.ts';

/** What the status answer takes from a build's manifest (`Manifest` of `data/output.ts`). */
export interface StatusManifest {
  readonly version: string;
  readonly builtAt: string;
  readonly output: { readonly bytes: number; readonly sha256: string };
  readonly counts: { readonly networks: number; readonly records: number };
  readonly sources: readonly {
    readonly name: string;
    readonly provides: DatabaseIdentity['sources'][number]['provides'];
    readonly version: string;
    readonly builtAt: string;
    readonly licence: string;
    readonly attribution: string;
    readonly flags?: readonly StoredFlag[];
  }[];
  readonly flags: readonly StoredFlag[];
  readonly corrections?: readonly { readonly name: string; readonly sha256: string; readonly lines: number; readonly prefixes: number }[];
}

/**
 * The status answer of a deployment of `plan` and `region` serving the build of `manifest` (one file),
 * at `now` (milliseconds since the epoch; it decides `stale`).
 */
export function statusAnswer(manifest: StatusManifest, plan: 'free' | 'paid', region: string, now: number) {
  const { version, builtAt, output, counts, sources, flags } = manifest;
  const identity: DatabaseIdentity = {
    version,
    builtAt,
    networks: counts.networks,
    records: counts.records,
    bytes: output.bytes,
    sha256: output.sha256,
    sources: sources.map(({ name, provides, version, builtAt, licence, attribution, flags }) => ({
      name,
      provides,
      version,
      builtAt,
      licence,
      attribution,
      ...(flags ? { flags } : {}),
    })),
    flags,
    corrections: manifest.corrections ?? [],
  };
  return statusBody(plan, region, wholeStatus(identity), now);
}
