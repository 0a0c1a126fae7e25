/**
 * @module The routes' one validator (`RouteRequest` of `src/routes/validate.ts`) answers what zod answers: path
 * parameters of plain strings, which it checks itself, and of any other schema, which zod parses;
 * the expected values are zod's own `safeParse` of the same parameters.
 */
import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/errors/problem.ts';
import { RouteRequest } from '../../src/routes/validate.ts';
import { IpParamSchema } from '../../src/schemas/ip-info.ts';

/** Parameters as Hono gives them (decoded from the path), odd ones included. */
const VALUES = ['8.8.8.8', '2001:db8::1', 'not an address', '%', 'é', '\u{1F30D}', 'a/b', '0'];

const SCHEMAS = {
  'a plain string (the lookup routes’ {ip})': IpParamSchema,
  'two plain strings': z.object({ ip: z.string(), zone: z.string() }),
  'a string with a check': z.object({ ip: z.string().min(2) }),
  'a string with a transform': z.object({ ip: z.string().transform((text) => text.toUpperCase()) }),
  'a coerced number': z.object({ ip: z.coerce.number() }),
  'plain strings with a check of the object': z.object({ ip: z.string() }).refine(({ ip }) => ip.includes('.')),
};

/** What a route's request of `schema` answers on a path of `values`: the parameters, or the problem it raised. */
async function answer(schema: z.ZodObject, values: readonly string[]): Promise<unknown> {
  const request = new RouteRequest({ params: schema });
  const app = new Hono();
  const path = values.length === 1 ? '/x/:ip' : '/x/:ip/:zone';
  app.get(path, (c) => {
    try {
      return c.json({ param: request.validate(c).param });
    } catch (error) {
      if (error instanceof ProblemError) return c.json({ problem: error.code }, 400);
      throw error;
    }
  });
  const response = await app.request(`/x/${values.map(encodeURIComponent).join('/')}`);
  return response.json();
}

describe("a route's request: path parameters", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`answers zod's own parse of ${name}`, async () => {
      const keys = Object.keys(schema.shape);
      for (const value of VALUES) {
        const values = keys.map((_, i) => (i === 0 ? value : `${value}-${i}`));
        const parsed = schema.safeParse(Object.fromEntries(keys.map((key, i) => [key, values[i]])));
        const expected = parsed.success ? { param: JSON.parse(JSON.stringify(parsed.data)) } : { problem: 'IP_ADDRESS_INVALID' };
        expect(await answer(schema, values), `${name}: ${value}`).toEqual(expected);
      }
    });
  }
});
