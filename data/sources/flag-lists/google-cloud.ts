/**
 * @module Google Cloud's `cloud.json` (https://www.gstatic.com/ipranges/cloud.json): the external IP
 * ranges of customers' Google Cloud resources, `syncToken` (milliseconds), `creationTime` (UTC, without
 * a zone) and `prefixes`, each with exactly one of `ipv4Prefix` and `ipv6Prefix`, and its service and
 * scope (region). Google's own services are in `goog.json`, which is not read: they are not hosting.
 */
import { z } from 'zod';
import { type FormatReader, networksOfJson, parseJson, utcTimestamp } from './parse.ts';

const CloudJson = z.object({
  syncToken: z.string().regex(/^\d+$/, 'not a number'),
  creationTime: z.string().refine((text) => utcTimestamp(text) !== undefined, 'not a timestamp as YYYY-MM-DDThh:mm:ss'),
  prefixes: z.array(
    z
      .object({ ipv4Prefix: z.string().optional(), ipv6Prefix: z.string().optional() })
      .refine((p) => (p.ipv4Prefix === undefined) !== (p.ipv6Prefix === undefined), 'not an entry with exactly one of ipv4Prefix and ipv6Prefix'),
  ),
});

/** Reads `cloud.json`: its version is the `syncToken`, its date the `creationTime`. */
export const googleCloud: FormatReader = (content, label) => {
  const file = parseJson(content, label, CloudJson);
  return {
    ...networksOfJson(
      file.prefixes.map((p, i) =>
        p.ipv4Prefix !== undefined
          ? { path: ['prefixes', i, 'ipv4Prefix'], prefix: p.ipv4Prefix, family: 4 as const }
          : { path: ['prefixes', i, 'ipv6Prefix'], prefix: p.ipv6Prefix as string, family: 6 as const },
      ),
      label,
    ),
    version: `syncToken ${file.syncToken}`,
    builtAt: utcTimestamp(file.creationTime) as string,
  };
};
