/**
 * `npm run check:paths`, `npm run check:imports` and `npm run check:lengths` on small repositories that
 * each test writes: they find exactly the dangling paths, forbidden imports and long files the test
 * planted, and pass on the repository itself.
 */
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkImports, ImportRulesError, readImportRules } from '../../scripts/check/imports.ts';
import { longFiles, MAX_LINES } from '../../scripts/check/lengths.ts';
import { danglingPaths } from '../../scripts/check/paths.ts';
import { plantRepository as repository } from '../support/planted-repository.ts';

describe('check:paths', () => {
  const docs = {
    '.gitignore': 'data/out\ndata/cache/\n',
    'docs/guide.md': '# Guide\n\n## Building the data\n\n### Countries: `GET /api/countries`\n\nText.\n',
    'src/index.ts': '// The entry.\nexport {};\n',
  };

  it('finds each dangling link, path, anchor and section, and only those', () => {
    const root = repository({
      ...docs,
      'README.md': [
        '# Read me',
        '[guide](docs/guide.md) [section](docs/guide.md#building-the-data) [here](#read-me) [site](https://example.com/x.md)',
        '![CI](../../actions/workflows/ci.yml/badge.svg)',
        '[gone](docs/gone.md) [no anchor](docs/guide.md#no-such-heading) `src/index.ts` `src/missing.ts`',
        'Built into `data/out/ipgeo.mmdb` and `data/cache/npm/`; served at `/docs/start.js`; `src/**/*.test.ts`, `src/<folder>/index.ts`.',
      ].join('\n'),
      'src/app.ts': [
        '// docs/guide.md, "Building the data" and docs/guide.md, "Countries" (docs/guide.md#building-the-data)',
        '// scripts/shards.ts, docs/guide.md, "Refreshing", ./src/elsewhere.ts, package/../../src/x.ts',
        "const bundle = 'bench/worker/distant.ts';",
        'export { bundle };',
      ].join('\n'),
      'wrangler.toml': '# (docs/data-lifecycle.md)\nmain = "src/index.ts"\n',
      'CHANGELOG.md': '# Changelog\n\n- `docs/old.md` is folded into [the guide](docs/guide.md); [moved](docs/moved.md).\n',
    });
    expect(danglingPaths(root).map(({ file, line, why }) => `${file}:${line} ${why}`)).toEqual([
      'CHANGELOG.md:3 docs/moved.md does not exist',
      'README.md:4 docs/gone.md does not exist',
      'README.md:4 docs/guide.md has no heading whose anchor is #no-such-heading',
      'README.md:4 src/missing.ts does not exist',
      'src/app.ts:2 scripts/shards.ts does not exist',
      'src/app.ts:2 docs/guide.md has no heading "Refreshing"',
      'src/app.ts:3 bench/worker/distant.ts does not exist',
      'wrangler.toml:1 docs/data-lifecycle.md does not exist',
    ]);
  });

  it('passes on this repository', () => {
    expect(danglingPaths('.')).toEqual([]);
  });
});

describe('check:imports', () => {
  const table = (rows: string) =>
    [
      '# Architecture',
      '## What may import what',
      '| folder | imports from `src/` |',
      '|---|---|',
      rows,
      '',
      '- **The domain speaks no HTTP.** `geo` and `ip` import',
      '  neither Hono nor `errors`.',
      '## Next',
    ].join('\n');
  const rows = [
    '| `ip`, `env.ts` | nothing (`env.ts` only types) |',
    '| `geo` | `ip` |',
    '| `errors` | `geo` (its error) |',
    '| `routes` | `env.ts`, `errors` (only `problems.ts`), `geo` |',
    '| `index.ts` | all of the above |',
  ].join('\n');

  it('reads the rows, their remarks and the domain from the table', () => {
    const rules = readImportRules(table(rows));
    expect(rules.rows.map((row) => [row.modules, row.imports, [...row.onlyFrom]])).toEqual([
      [['ip', 'env.ts'], [], []],
      [['geo'], ['ip'], []],
      [['errors'], ['geo'], []],
      [['routes'], ['env.ts', 'errors', 'geo'], [['errors', ['problems.ts']]]],
      [['index.ts'], ['ip', 'env.ts', 'geo', 'errors', 'routes'], []],
    ]);
    expect(rules.domain).toEqual(['geo', 'ip']);
  });

  it('refuses a table that imports what no row above names', () => {
    expect(() => readImportRules(table('| `geo` | `ip` |\n| `ip` | nothing |'))).toThrow(ImportRulesError);
  });

  /** A repository with the table above, src/ as `files` says, and this repository's node_modules (for Hono). */
  function sources(files: Record<string, string>): string {
    const root = repository({ 'docs/architecture.md': table(rows), 'data/build.ts': "import '../src/geo/a.ts';\n", ...files });
    symlinkSync(resolve('node_modules'), join(root, 'node_modules'));
    return root;
  }
  const allowed = {
    'src/env.ts': 'export type Plan = string;\n',
    'src/ip/parse.ts': 'export const parse = 1;\n',
    'src/geo/a.ts': "import { parse } from '../ip/parse.ts';\nexport const a = parse;\n",
    'src/errors/problem.ts': "import { a } from '../geo/a.ts';\nexport const problem = a;\n",
    'src/routes/problems.ts':
      "import { problem } from '../errors/problem.ts';\nimport type { Plan } from '../env.ts';\nexport const p: Plan = String(problem);\n",
    'src/index.ts': "import { p } from './routes/problems.ts';\nexport default p;\n",
  };

  it('passes imports the table allows', async () => {
    expect(await checkImports(sources(allowed))).toEqual([]);
  });

  it('names each forbidden import, cycle, and module missing from the table', async () => {
    const root = sources({
      ...allowed,
      // geo may import only ip: a type from routes is forbidden too.
      'src/geo/b.ts': "import type { p } from '../routes/problems.ts';\nexport type B = typeof p;\n",
      // Only problems.ts of routes may import errors.
      'src/routes/other.ts': "import { problem } from '../errors/problem.ts';\nexport const o = problem;\n",
      // The domain speaks no HTTP.
      'src/ip/http.ts': "import type { Context } from 'hono';\nexport type C = Context;\n",
      // A cycle inside a folder.
      'src/ip/one.ts': "import { two } from './two.ts';\nexport const one = () => two;\n",
      'src/ip/two.ts': "import { one } from './one.ts';\nexport const two = () => one;\n",
      // Worker code never imports Node code, and data/ uses only geo, mmdb, ip and reference.
      'src/env-node.ts': "import '../data/build.ts';\n",
      'data/routes.ts': "import '../src/routes/problems.ts';\n",
      // The Worker never imports the operator's code, which uses only access, ip and usage/wire.ts of src/.
      'src/routes/operated.ts': "import '../../operator/keys.ts';\n",
      'operator/keys.ts': "import '../src/ip/parse.ts';\nimport '../src/geo/a.ts';\n",
      // No cycle outside src/ either: here a type-only one in the benchmarks.
      'bench/report.ts': "import type { Run } from './run.ts';\nexport type Report = Run[];\n",
      'bench/run.ts': "import type { Report } from './report.ts';\nexport type Run = { report?: Report };\n",
    });
    const breaches = await checkImports(root);
    expect(breaches.filter((breach) => breach.includes(' imports ')).map((breach) => breach.split(':')[0])).toEqual(
      expect.arrayContaining([
        'src/geo/b.ts imports src/routes/problems.ts',
        'src/routes/other.ts imports src/errors/problem.ts',
        expect.stringMatching(/^src\/ip\/http\.ts imports .*node_modules\/hono\//),
        expect.stringMatching(/^src\/ip\/(one|two)\.ts imports src\/ip\/(one|two)\.ts → /),
        'src/env-node.ts imports data/build.ts',
        'data/routes.ts imports src/routes/problems.ts',
        'src/routes/operated.ts imports operator/keys.ts',
        'operator/keys.ts imports src/geo/a.ts',
        expect.stringMatching(/^bench\/(report|run)\.ts imports bench\/(report|run)\.ts → /),
      ]),
    );
    expect(breaches.filter((breach) => breach.startsWith('operator/keys.ts imports src/ip/'))).toEqual([]);
    expect(breaches).toContain(`src/env-node.ts is in no row of docs/architecture.md's table "What may import what": add its row`);
  });

  it('passes on this repository', async () => {
    expect(await checkImports('.')).toEqual([]);
  });
});

describe('check:lengths', () => {
  const lines = (count: number) => 'x\n'.repeat(count);

  it('names the files of src/ and operator/ over the limit, the longest first, and no others', () => {
    const root = repository({
      'src/geo/long.ts': lines(MAX_LINES + 1),
      'src/geo/limit.ts': lines(MAX_LINES),
      // A last line without its line end is a line.
      'operator/longer.ts': `${lines(MAX_LINES + 1)}x`,
      'scripts/long.ts': lines(MAX_LINES + 50),
      'test/node/long.test.ts': lines(MAX_LINES + 50),
    });
    expect(longFiles(root)).toEqual([
      { file: 'operator/longer.ts', lines: MAX_LINES + 2 },
      { file: 'src/geo/long.ts', lines: MAX_LINES + 1 },
    ]);
  });

  it('passes on this repository', () => {
    expect(longFiles('.')).toEqual([]);
  });
});
