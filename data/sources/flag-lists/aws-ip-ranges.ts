/**
 * @module Amazon Web Services' `ip-ranges.json` (https://ip-ranges.amazonaws.com/ip-ranges.json, as the
 * AWS VPC user guide's "AWS IP address ranges" describes it): `syncToken` (the publication time in
 * Unix seconds), `createDate` (`YYYY-MM-DD-hh-mm-ss`, UTC), and the IPv4 `prefixes` and IPv6
 * `ipv6_prefixes`, each with its region, network border group and service. Every prefix is read,
 * whatever its service: a prefix listed under several services (AMAZON and EC2) is the same network.
 */
import { z } from 'zod';
import { type FormatReader, networksOfJson, parseJson, utcTimestamp } from './parse.ts';

/** AWS's `createDate` (`YYYY-MM-DD-hh-mm-ss`, UTC) as RFC 3339, or undefined when it is not one. */
const createdAt = (text: string) =>
  /^\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}$/.test(text) ? utcTimestamp(`${text.slice(0, 10)}T${text.slice(11).replaceAll('-', ':')}`) : undefined;

const IpRanges = z.object({
  syncToken: z.string().regex(/^\d+$/, 'not a number of seconds'),
  createDate: z.string().refine((text) => createdAt(text) !== undefined, 'not a date as YYYY-MM-DD-hh-mm-ss'),
  prefixes: z.array(z.object({ ip_prefix: z.string() })),
  ipv6_prefixes: z.array(z.object({ ipv6_prefix: z.string() })),
});

/** Reads `ip-ranges.json`: its version is the `syncToken`, its date the `createDate`. */
export const awsIpRanges: FormatReader = (content, label) => {
  const file = parseJson(content, label, IpRanges);
  return {
    ...networksOfJson(
      [
        ...file.prefixes.map((p, i) => ({ path: ['prefixes', i, 'ip_prefix'], prefix: p.ip_prefix, family: 4 as const })),
        ...file.ipv6_prefixes.map((p, i) => ({ path: ['ipv6_prefixes', i, 'ipv6_prefix'], prefix: p.ipv6_prefix, family: 6 as const })),
      ],
      label,
    ),
    version: `syncToken ${file.syncToken}`,
    builtAt: createdAt(file.createDate) as string,
  };
};
