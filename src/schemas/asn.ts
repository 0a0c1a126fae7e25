/**
 * @module The networks-by-ASN contract (docs/api.md, "Networks by ASN") as zod schemas: the path
 * parameter and query that the route validates and documents, and the answer, JSON or XML.
 */
import { z } from '@hono/zod-openapi';
import { ASN_ANSWER_MAX_BYTES } from '../asn/answer.ts';
import { ASN_LAYOUT } from '../geo/asn-layout.ts';

/** The largest AS number: 32 bits (RFC 6793). */
export const MAX_ASN = 4_294_967_295;
/** The most pages an ASN's prefixes make in the ASN object (a page number is 16 bits there). */
export const MAX_PAGE = 65_535;

/** `{asn}` as text: asplain (RFC 5396), decimal digits without leading zeros (`0` alone is AS0), optionally after `AS` in either case. */
const ASN_TEXT = /^(?:[Aa][Ss])?(?:0|[1-9][0-9]{0,9})$/;

/** `?page=` as text: a decimal number without leading zeros, as a number; anything else left as it is, for the number's check to refuse. */
function pageNumber(text: unknown): unknown {
  return typeof text === 'string' && /^(?:0|[1-9][0-9]*)$/.test(text) ? Number(text) : text;
}

/**
 * `{asn}` and `?page=`: validated by the route (`routes/asn.ts`, through its `RouteRequest`) and
 * documented from the same schemas; a failure of either is its own problem (`routes/hooks.ts`).
 *
 * @example AsnRequestSchemas.params.parse({ asn: 'AS13335' }) // { asn: 13335 }
 * @example AsnRequestSchemas.query.parse({ page: '2' })       // { page: 2 }
 */
export const AsnRequestSchemas = {
  params: z.object({
    asn: z
      .string()
      .regex(ASN_TEXT)
      .transform((text) => Number(text.replace(/^as/i, '')))
      .pipe(z.int().min(0).max(MAX_ASN))
      .openapi({
        description: `An AS number in decimal (asplain, RFC 5396), from 0 to ${MAX_ASN}, with or without \`AS\` in either case, without leading zeros. Anything else: \`ASN_INVALID\`.`,
        example: 'AS13335',
      }),
  }),
  query: z.object({
    page: z
      .preprocess(pageNumber, z.int().min(1).max(MAX_PAGE))
      .optional()
      .openapi({
        param: { name: 'page', in: 'query' },
        description: `The page of the ASN's prefixes, from 1 (the default), in decimal without leading zeros; \`pages\` of the answer says how many there are. A page after the last, or anything but a whole number from 1 to ${MAX_PAGE}: \`PAGE_INVALID\`.`,
        example: 2,
      }),
  }),
};

const count = (description: string, example: number) => z.number().int().min(0).openapi({ description, example });
const families = <T extends z.ZodType>(ipv4: T, ipv6: T) => z.object({ ipv4, ipv6 });

const CountryCountSchema = z
  .object({
    code: z.string().nullable().openapi({
      description:
        "ISO 3166-1 alpha-2 code of the country where the build's location data places the addresses; null (in XML an empty element) for those it places in no country.",
      example: 'US',
    }),
    ipv4: count('IPv4 addresses of the ASN placed there.', 1_173_006),
    ipv6: count('IPv6 /64 networks of the ASN that have addresses placed there (a /64 the data splits between countries counts in each).', 107_967_209_633),
  })
  .openapi('AsnCountry', { xml: { name: 'countries' } });

/** The answer of `GET /api/asn/{asn}` (JSON) and `/api/asn/xml/{asn}` (XML). */
export const AsnSchema = z
  .object({
    asn: z.string().openapi({ description: 'The AS number in decimal, as `asn` of the IP info record.', example: '13335' }),
    organization: z.string().openapi({
      description: 'The organisation that holds it, as the routing source names it (the name most of its networks carry); may be empty.',
      example: 'Cloudflare, Inc.',
    }),
    prefixes: families(
      z.array(z.string()).openapi({ description: 'IPv4 prefixes of this page, CIDR, in address order.', example: ['1.0.0.0/24', '1.1.1.0/24'] }),
      z.array(z.string()).openapi({ description: 'IPv6 prefixes of this page, CIDR in RFC 5952 form, in address order.', example: ['2400:cb00::/32'] }),
    ).openapi({
      description: `The fewest prefixes that cover exactly the source's ranges of the ASN, IPv4 first, then IPv6, each in address order, ${ASN_LAYOUT.pagePrefixes} a page: this page's. XML: one \`ipv4\` or \`ipv6\` element per prefix.`,
    }),
    addresses: families(
      count('IPv4 addresses the ASN holds.', 1_615_360),
      count(
        'IPv6 /64 networks its ranges touch (a range longer than /64 counts as the /64s it touches); exact up to 2^53, the nearest double above.',
        156_584_050_688,
      ),
    ).openapi({ description: 'What the ASN holds, whole (the same on every page).' }),
    countries: z.array(CountryCountSchema).openapi({
      description:
        "Where its addresses are, by the same build's location data: one entry per country, largest first by IPv4 addresses, then by IPv6 /64s, then by code, the entry of addresses placed in no country (`code` null) last of equals; whole on every page. XML: one `countries` element per entry.",
    }),
    page: z.number().int().min(1).openapi({ description: 'This page, from 1.', example: 1 }),
    pages: z.number().int().min(1).openapi({ description: 'How many pages the prefixes make.', example: 2 }),
    prefixTotals: families(count('IPv4 prefixes on every page.', 910), count('IPv6 prefixes on every page.', 763)).openapi({
      description: 'How many prefixes of each family the pages hold together.',
    }),
  })
  .openapi('Asn', {
    description: `Networks of an autonomous system, from the routing source of the data that answered (\`X-Database-Version\`). No answer exceeds ${ASN_ANSWER_MAX_BYTES} bytes. XML: root \`response\`, one element per field, nested as the JSON.`,
    xml: { name: 'response' },
  });
