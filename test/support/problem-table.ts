/**
 * @module docs/api.md's table of problem codes ("Conventions"), read as the tests' statement of which
 * codes exist, with their status, title and the servers that answer them: the document the code is
 * held to (`test/node/problem-table.test.ts`, `test/node/openapi.test.ts`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One row of the table. */
interface DocumentedProblem {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  /** Which servers answer it: `both`, `free` or `paid`. */
  readonly servers: string;
  readonly when: string;
}

/** The rows of the table whose header is `| code | status | title | servers | when |`, in its order; [] without one. */
export function documentedProblems(): DocumentedProblem[] {
  const text = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8');
  const from = text.indexOf('\n## Conventions\n');
  const conventions = text.slice(from, text.indexOf('\n## ', from + 1));
  const lines = conventions.split('\n').map((line) => line.trim());
  const header = lines.indexOf('| code | status | title | servers | when |');
  if (from < 0 || header < 0) return [];
  const rows: DocumentedProblem[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [code = '', status = '', title = '', servers = '', when = ''] = line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim());
    rows.push({ code: code.replaceAll('`', ''), status: Number(status), title, servers, when });
  }
  return rows;
}
