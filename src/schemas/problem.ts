/**
 * @module The RFC 9457 problem details object, as a zod schema for the OpenAPI document, and the
 * responses each route lists for its errors.
 */
import { z } from '@hono/zod-openapi';
import { PROBLEMS, type ProblemCode, problemType } from '../errors/problem.ts';

/** A problem details object (`application/problem+json`; `application/problem+xml` on XML routes). */
export const ProblemSchema = z
  .object({
    type: z.string().openapi({
      description: 'URI identifying the problem type: `urn:ipgeo:problem:` and the code in kebab case.',
      example: problemType('IP_ADDRESS_INVALID'),
    }),
    title: z.string().openapi({ description: 'Short summary of the problem type.', example: PROBLEMS.IP_ADDRESS_INVALID.title }),
    status: z.number().int().openapi({ description: 'HTTP status code.', example: 400 }),
    detail: z.string().openapi({ description: 'Explanation of this occurrence.', example: 'The value is not a valid IPv4 or IPv6 address.' }),
    code: z.enum(Object.keys(PROBLEMS) as [ProblemCode, ...ProblemCode[]]).openapi({ description: 'Stable machine-readable code.' }),
    instance: z.string().optional().openapi({ description: 'The request path.', example: '/api/v1/json/1.2.3' }),
  })
  .catchall(z.unknown())
  .openapi('Problem', {
    xml: { name: 'problem', namespace: 'urn:ietf:rfc:7807' },
    description:
      'RFC 9457 problem details. XML routes answer the same members as `application/problem+xml` (root `problem`, namespace `urn:ietf:rfc:7807`). Extension members: `range` and `rfc` for IP_ADDRESS_RESERVED; `side` (`from` or `to`) on the problems of `POST /api/distance`, naming the address that failed; `limit` for PAYLOAD_TOO_LARGE (bytes) and TOO_MANY_IPS (addresses); `quota` (`monthly`, `daily-website` or `monthly-website`), `limit` (lookups), `remaining` and `resetsAt` for QUOTA_EXCEEDED; `paidServers` for PAID_PLAN_REQUIRED; `allow` for METHOD_NOT_ALLOWED; `languages` for LANGUAGE_UNSUPPORTED; `pages` for PAGE_INVALID after the last page of an ASN.',
  });

/** A reference to the {@link ProblemSchema} component. */
const PROBLEM_REF = { $ref: '#/components/schemas/Problem' } as const;

/** The media type of problems on a route that answers `format`. */
export function problemMediaType(format: 'json' | 'xml'): 'application/problem+json' | 'application/problem+xml' {
  return format === 'xml' ? 'application/problem+xml' : 'application/problem+json';
}

/**
 * The schema of a problem answer whose `code` is one of `codes`: the Problem object with `code`
 * narrowed, so that the document says which problems each status of each route can be.
 */
export function problemSchemaOf(codes: readonly ProblemCode[]) {
  return { allOf: [PROBLEM_REF, { type: 'object' as const, properties: { code: { type: 'string' as const, enum: [...codes] } } }] };
}

/** The codes a problem answer lists, read back from a schema made by {@link problemSchemaOf}; empty for any other. */
export function codesOfProblemSchema(schema: unknown): ProblemCode[] {
  const narrowing = (schema as { allOf?: { properties?: { code?: { enum?: ProblemCode[] } } }[] } | undefined)?.allOf?.[1];
  return [...(narrowing?.properties?.code?.enum ?? [])];
}

/**
 * OpenAPI responses for the listed problem codes, grouped by status.
 *
 * @param format which media type the route's problems use.
 */
export function problemResponses(codes: readonly ProblemCode[], format: 'json' | 'xml' = 'json') {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of codes) byStatus.set(PROBLEMS[code].status, [...(byStatus.get(PROBLEMS[code].status) ?? []), code]);
  return Object.fromEntries([...byStatus].map(([status, list]) => [status, problemResponse(list, format)]));
}

/** One OpenAPI response for problems of `codes` (all of one status), e.g. `{ description: '`NOT_FOUND`: Not found', content: … }`. */
export function problemResponse(codes: readonly ProblemCode[], format: 'json' | 'xml') {
  return {
    description: codes.map((code) => `\`${code}\`: ${PROBLEMS[code].title}`).join('; '),
    content: { [problemMediaType(format)]: { schema: problemSchemaOf(codes) } },
  };
}
