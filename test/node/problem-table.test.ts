/**
 * @module docs/api.md's table of problem codes ("Conventions") against `src/errors/problem.ts`'s
 * `PROBLEMS`, the one table the code answers from: the same codes in the same order, each with its
 * status and title, so that the document cannot list fewer codes than the API answers, or others.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/errors/problem.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** The rows of the first table in docs/api.md's "Conventions" whose header starts with `code`. */
function documentedProblems(): { code: string; status: number; title: string; when: string }[] {
  const text = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
  const conventions = text.slice(text.indexOf('\n## Conventions\n'), text.indexOf('\n## ', text.indexOf('\n## Conventions\n') + 1));
  const lines = conventions.split('\n').map((line) => line.trim());
  const header = lines.findIndex((line) => /^\| code \| status \| title \| when \|$/.test(line));
  expect(header, 'docs/api.md, "Conventions", has a table of problem codes').toBeGreaterThan(-1);
  const rows: { code: string; status: number; title: string; when: string }[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [code, status, title, when] = line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim());
    rows.push({ code: (code ?? '').replaceAll('`', ''), status: Number(status), title: title ?? '', when: when ?? '' });
  }
  return rows;
}

describe('docs/api.md, "Conventions": the problem codes', () => {
  const rows = documentedProblems();

  it('lists every code of PROBLEMS, in its order, with its status and title', () => {
    expect(rows.map(({ code, status, title }) => ({ code, status, title }))).toEqual(
      Object.entries(PROBLEMS).map(([code, { status, title }]) => ({ code, status, title })),
    );
  });

  it('says when each code is answered', () => {
    for (const { code, when } of rows) expect(when, code).toMatch(/\w{3,}/);
  });
});
