/**
 * @module Validates the OpenAPI documents of both plans as OpenAPI 3.1 with
 * `@apidevtools/swagger-parser` (its JSON Schema of OpenAPI 3.1, and every `$ref` resolved). The
 * validator needs Node, so the document is built here from the app itself, as `/openapi.json` builds
 * it; the Worker tests check that the served document is this one with `servers` added.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { documentedProblems } from '../support/problem-table.ts';

// The app's modules may reach Workers-only ones (the rate limiter's Durable Object class), which Node
// cannot load; nothing here runs them.
vi.mock('cloudflare:workers', () => ({ DurableObject: class {} }));

type Json = Record<string, unknown>;
type Plan = 'free' | 'paid';

// Imported by a computed specifier: the Worker's sources are type-checked against the Workers types
// (tsconfig.json), not against Node's, which this project's Node config uses.
const APP = '../../src/app.ts';
const DOCS = '../../src/routes/docs.ts';
async function documentOf(plan: Plan): Promise<Json> {
  const { createApp } = (await import(APP)) as { createApp(plan: Plan): unknown };
  const { openApiDocument } = (await import(DOCS)) as { openApiDocument(app: unknown, plan: Plan): Json };
  return openApiDocument(createApp(plan), plan);
}

/** A copy for the validator, which dereferences in place. */
const copy = (document: Json) => structuredClone(document) as never;

describe.each(['free', 'paid'] as const)('the %s plan OpenAPI document', (plan) => {
  let document: Json;
  beforeAll(async () => {
    document = await documentOf(plan);
  });

  it('validates as OpenAPI 3.1', async () => {
    expect(document.openapi).toBe('3.1.0');
    const api = await SwaggerParser.validate(copy(document));
    expect(Object.keys((api as { paths: Json }).paths).length).toBeGreaterThan(5);
  });

  it('is refused by the validator once broken, so the check above has teeth', async () => {
    const { info: _info, ...withoutInfo } = document;
    await expect(SwaggerParser.validate(copy(withoutInfo))).rejects.toThrow();
    const dangling = { ...document, paths: { '/x': { get: { responses: { 200: { $ref: '#/components/responses/Missing' } } } } } };
    await expect(SwaggerParser.validate(copy(dangling))).rejects.toThrow();
  });
});

describe('the problem table of each plan', () => {
  // docs/api.md, "Conventions": the codes and the servers that answer each.
  const documented = documentedProblems();

  it.each(['free', 'paid'] as const)('lists on the %s server exactly the codes docs/api.md gives it, as its Problem schema does', async (plan) => {
    const document = await documentOf(plan);
    const table = [...((document.info as Json).description as string).matchAll(/^\| (\d{3}) \| `([A-Z_]+)` \|/gm)].map((row) => row[2]);
    const schemas = (document.components as Json).schemas as Record<string, { properties: { code: { enum: string[] } } }>;
    expect(table).toEqual(schemas.Problem?.properties.code.enum);
    expect(documented.length).toBeGreaterThan(0);
    expect(table).toEqual(documented.filter(({ servers }) => servers === 'both' || servers === plan).map(({ code }) => code));
  });
});
