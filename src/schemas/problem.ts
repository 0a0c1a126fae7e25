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
    description:
      'RFC 9457 problem details. XML routes answer the same members as `application/problem+xml` (root `problem`, namespace `urn:ietf:rfc:7807`). Extension members: `range` and `rfc` for IP_ADDRESS_RESERVED; `side` (`from` or `to`) on the problems of `POST /api/distance`, naming the address that failed; `limit` for PAYLOAD_TOO_LARGE (bytes) and TOO_MANY_IPS (addresses); `paidServers` for PAID_PLAN_REQUIRED; `allow` for METHOD_NOT_ALLOWED.',
  });

/**
 * OpenAPI responses for the listed problem codes, grouped by status.
 *
 * @param format which media type the route's problems use.
 */
export function problemResponses(codes: readonly ProblemCode[], format: 'json' | 'xml' = 'json') {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of codes) byStatus.set(PROBLEMS[code].status, [...(byStatus.get(PROBLEMS[code].status) ?? []), code]);
  const mediaType = format === 'xml' ? 'application/problem+xml' : 'application/problem+json';
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      { description: list.map((code) => `\`${code}\`: ${PROBLEMS[code].title}`).join('; '), content: { [mediaType]: { schema: ProblemSchema } } },
    ]),
  );
}
