/**
 * @module Oracle Cloud Infrastructure's `public_ip_ranges.json`
 * (https://docs.oracle.com/iaas/tools/public_ip_ranges.json, described in OCI's "IP Address Ranges"):
 * `last_updated_timestamp` (ISO 8601, UTC without a zone) and `regions`, each with its `cidrs` and their
 * tags (OCI, OSN, OBJECT_STORAGE). Every CIDR is read, whatever its tags.
 */
import { z } from 'zod';
import { type FormatReader, networksOfJson, parseJson, utcTimestamp } from './parse.ts';

const PublicIpRanges = z.object({
  last_updated_timestamp: z.string().refine((text) => utcTimestamp(text) !== undefined, 'not a timestamp as YYYY-MM-DDThh:mm:ss'),
  regions: z.array(z.object({ region: z.string(), cidrs: z.array(z.object({ cidr: z.string() })) })),
});

/** Reads `public_ip_ranges.json`: its version and date are its `last_updated_timestamp`. */
export const oracleCloud: FormatReader = (content, label) => {
  const file = parseJson(content, label, PublicIpRanges);
  return {
    ...networksOfJson(
      file.regions.flatMap((region, r) => region.cidrs.map((c, i) => ({ path: ['regions', r, 'cidrs', i, 'cidr'], prefix: c.cidr }))),
      label,
    ),
    version: file.last_updated_timestamp,
    builtAt: utcTimestamp(file.last_updated_timestamp) as string,
  };
};
