/**
 * @module Fastly's public IP list (https://api.fastly.com/public-ip-list, no credential needed):
 * `{"addresses": [IPv4 CIDRs], "ipv6_addresses": [IPv6 CIDRs]}`, with no version or date.
 */
import { z } from 'zod';
import { type FormatReader, networksOfJson, parseJson } from './parse.ts';

const PublicIpList = z.object({ addresses: z.array(z.string()), ipv6_addresses: z.array(z.string()) });

/** Reads Fastly's list; it states no version or date of its own. */
export const fastlyIpList: FormatReader = (content, label) => {
  const file = parseJson(content, label, PublicIpList);
  return {
    ...networksOfJson(
      [
        ...file.addresses.map((prefix, i) => ({ path: ['addresses', i], prefix, family: 4 as const })),
        ...file.ipv6_addresses.map((prefix, i) => ({ path: ['ipv6_addresses', i], prefix, family: 6 as const })),
      ],
      label,
    ),
  };
};
