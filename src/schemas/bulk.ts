/**
 * @module The bulk lookup contract (docs/specification.md, 2.2 and 4.3) as zod schemas: the request that is validated,
 * and the JSON and XML answers that the OpenAPI document describes.
 */
import { z } from '@hono/zod-openapi';
import { IpInfoAllSchema, IpInfoExtraFields, IpInfoFields, IpInfoSelectionSchema } from './ip-info.ts';
import { ProblemSchema } from './problem.ts';

/** Most addresses in one bulk request (docs/specification.md, 8). */
export const MAX_BULK_IPS = 50;

/** The body of `POST /api/bulk/json` and `/api/bulk/xml`. */
export const BulkRequestSchema = z
  .strictObject({
    ips: z
      .array(z.string().openapi({ description: 'An IPv4 or IPv6 address in any textual form; an invalid one is answered with its problem, not refused.' }))
      .max(MAX_BULK_IPS)
      .openapi({
        description: `Zero to ${MAX_BULK_IPS} addresses. More is refused with \`TOO_MANY_IPS\`; a repeated address is answered once.`,
        example: ['8.8.8.8', '1.1.1.1'],
      }),
  })
  .openapi('BulkRequest', { description: 'A JSON object with `ips` and no other member.' });

const { regionCode: _regionCode, ...bulkFields } = IpInfoFields;

/** One record of a bulk answer without `fields`: the record of docs/specification.md, 2.1, without `regionCode`. */
const BulkIpInfoSchema = z.strictObject(bulkFields).openapi('BulkIpInfo', {
  description:
    'IP info record of a bulk answer without `fields`: the single-lookup record (IpInfo) without `regionCode`, which the specification leaves out of the bulk shape; no field is ever absent. With `fields=all` a record is an IpInfoAll (`regionCode` included); with other `fields`, an IpInfoSelection: exactly the fields named, `regionCode` included when named.',
});

/** `POST /api/bulk/json`. */
export const BulkJsonSchema = z
  .record(z.string(), z.union([BulkIpInfoSchema, IpInfoAllSchema, IpInfoSelectionSchema, ProblemSchema]))
  .openapi('BulkJsonResponse', {
    description:
      "An object keyed by the requested address strings exactly as sent (a repeated address appears once). Each value is the address's record (BulkIpInfo without `fields`, IpInfoAll with `fields=all`, IpInfoSelection with other `fields`), or, for an address that cannot be looked up, its problem object (`IP_ADDRESS_INVALID`, `IP_ADDRESS_RESERVED` or `IP_ADDRESS_NOT_FOUND`; a problem object has `type`, `status` and `code`, a record never does).",
    example: {
      '81.2.69.142': {
        ipVersion: 4,
        ipAddress: '81.2.69.142',
        latitude: 51.4036,
        longitude: -0.7618,
        countryName: 'United Kingdom',
        countryCode: 'GB',
        capital: 'London',
        phoneCodes: [44],
        timeZones: ['Europe/London'],
        zipCode: 'RG12',
        cityName: 'Bracknell',
        regionName: 'England',
        continent: 'Europe',
        continentCode: 'EU',
        currencies: ['GBP'],
        languages: ['en'],
        asn: '20712',
        asnOrganization: 'Andrews & Arnold Ltd',
        isProxy: false,
      },
      '10.0.0.1': {
        type: 'urn:ipgeo:problem:ip-address-reserved',
        title: 'Special-purpose IP address',
        status: 400,
        detail: '10.0.0.1 is in 10.0.0.0/8, a private-use network (RFC 1918).',
        code: 'IP_ADDRESS_RESERVED',
        range: '10.0.0.0/8',
        rfc: 'RFC 1918',
      },
    },
  });

const itemAddress = z.string().openapi({ description: 'The address as sent (the key of the JSON answer).', xml: { attribute: true } });

const RecordItemSchema = z.strictObject({ ip: itemAddress, ...bulkFields }).openapi({ title: 'Record item', xml: { name: 'item' } });

const SelectionItemSchema = z
  .strictObject({ ip: itemAddress, ...IpInfoFields, ...IpInfoExtraFields })
  .partial()
  .required({ ip: true })
  .openapi({ title: 'Record item with `fields`', xml: { name: 'item' }, minProperties: 2 });

const ProblemItemSchema = z
  .object({
    ip: itemAddress,
    problem: ProblemSchema.openapi({
      description: 'Why the address cannot be looked up: the problem members as child elements.',
      xml: { name: 'problem', namespace: 'urn:ietf:rfc:7807' },
    }),
  })
  .openapi({ title: 'Problem item', xml: { name: 'item' } });

/** `POST /api/bulk/xml`: the XML shape, described with OpenAPI's `xml` annotations. */
export const BulkXmlSchema = z
  .object({
    results: z
      .object({
        item: z
          .array(z.union([RecordItemSchema, SelectionItemSchema, ProblemItemSchema]).openapi({ xml: { name: 'item' } }))
          .openapi({ description: 'One `item` per distinct address, in request order.' }),
      })
      .openapi({ description: 'The answers, one `item` element each; empty for an empty list.' }),
  })
  .openapi('BulkXmlResponse', {
    description:
      "Root `response` holding one `results` element, which holds one `item` element per distinct address, in request order. Each `item` has an `ip` attribute, the address as sent. A found address has the record's fields as child elements, as in the single-lookup XML: without `fields` the specification's twenty but `regionCode`, with `fields=all` every field, with other `fields` exactly those named (one repeated element per array member, an empty array writes no element, `zipCode` and other empty strings are empty elements). An address that cannot be looked up has a single `problem` child in namespace `urn:ietf:rfc:7807` with the problem members as child elements.",
    xml: { name: 'response' },
  });
