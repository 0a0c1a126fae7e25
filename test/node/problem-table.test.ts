/**
 * @module docs/api.md's table of problem codes ("Conventions") against `src/errors/problem.ts`'s
 * `PROBLEMS`, the one table the code answers from: the same codes in the same order, each with its
 * status and title, so that the document cannot list fewer codes than the API answers, or others.
 * Which server answers which code is held to the OpenAPI documents in `openapi.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/errors/problem.ts';
import { documentedProblems } from '../support/problem-table.ts';

describe('docs/api.md, "Conventions": the problem codes', () => {
  const rows = documentedProblems();

  it('lists every code of PROBLEMS, in its order, with its status and title', () => {
    expect(rows.map(({ code, status, title }) => ({ code, status, title }))).toEqual(
      Object.entries(PROBLEMS).map(([code, { status, title }]) => ({ code, status, title })),
    );
  });

  it('says which servers answer each code, and when', () => {
    for (const { code, servers, when } of rows) {
      expect(['both', 'free', 'paid'], code).toContain(servers);
      expect(when, code).toMatch(/\w{3,}/);
    }
  });
});
