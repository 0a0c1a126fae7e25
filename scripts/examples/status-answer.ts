/**
 * @module The status endpoint's answer for a build of one file, from its manifest: what `GET
 * /api/v1/status` and `GET /api/status` answer once that build is loaded (`src/routes/status.ts`,
 * `dataStatus` in `src/lookup/data-status.ts`), members in the order the server writes them. The docs'
 * examples are written from it (`npm run docs:examples`); a Worker test holds it equal to the server's.
 */
import { sideBySideFit } from '../../src/geo/budget.ts';
import { isStale } from '../../src/geo/identity.ts';
import { FIRST_POSITION, formatPosition, LAST_POSITION } from '../../src/geo/shard-ranges.ts';

/** What the status answer takes from a build's manifest (`Manifest` of `data/output.ts`). */
export interface StatusManifest {
  readonly version: string;
  readonly builtAt: string;
  readonly output: { readonly bytes: number; readonly sha256: string };
  readonly counts: { readonly networks: number; readonly records: number };
  readonly sources: readonly {
    readonly name: string;
    readonly provides: string;
    readonly version: string;
    readonly builtAt: string;
    readonly licence: string;
    readonly attribution: string;
    readonly flags?: readonly string[];
  }[];
  readonly flags: readonly string[];
  readonly corrections?: readonly { readonly name: string; readonly sha256: string; readonly lines: number; readonly prefixes: number }[];
}

/**
 * The status answer of a deployment of `plan` and `region` serving the build of `manifest` (one file),
 * at `now` (milliseconds since the epoch; it decides `stale`).
 */
export function statusAnswer(manifest: StatusManifest, plan: 'free' | 'paid', region: string, now: number) {
  const { version, builtAt, output, counts, sources, flags } = manifest;
  const { bytes, sha256 } = output;
  const provides = (kind: string) => (kind === 'network' || kind === 'proxy' ? kind : 'location');
  return {
    plan,
    region,
    database: {
      version,
      builtAt,
      networks: counts.networks,
      records: counts.records,
      bytes,
      sha256,
      sources: sources.map(({ name, version, builtAt, licence, attribution, flags }) => ({
        name,
        version,
        builtAt,
        licence,
        attribution,
        ...(flags ? { flags: [...flags] } : {}),
      })),
      flags: [...flags],
      corrections: (manifest.corrections ?? []).map(({ name, sha256, lines, prefixes }) => ({ name, sha256, lines, prefixes })),
      shards: [
        { first: formatPosition(FIRST_POSITION), last: formatPosition(LAST_POSITION), bytes, sha256, version, switchWaits: !sideBySideFit(bytes, bytes).fits },
      ],
    },
    stale: isStale(
      {
        sources: sources.map(({ name, version, builtAt, licence, attribution, provides: kind }) => ({
          name,
          version,
          builtAt,
          licence,
          attribution,
          provides: provides(kind),
        })),
      },
      now,
    ),
  };
}
