/**
 * `npm run check:figures` (scripts/check/figures.ts) on small repositories that each test writes: it
 * finds exactly the figures typed into the prose it reads, passes the constants its table reads from
 * the code, the facts with their sources and what generated blocks hold, and fails a figure whose
 * constant has changed in the code. Its table reads every constant it names from this repository.
 */
import { describe, expect, it } from 'vitest';
import { readConstant } from '../../scripts/check/code-constants.ts';
import { figuresIn } from '../../scripts/check/figure-text.ts';
import { type FigureRow, knownFigures, typedFigures } from '../../scripts/check/figures.ts';
import { FIGURE_ROWS, FIGURE_TABLE } from '../../scripts/check/known-figures.ts';
import { plantRepository } from '../support/planted-repository.ts';

/** A table of the planted repositories' own: two constants of their code, two facts with sources. */
const ROWS: readonly FigureRow[] = [
  { what: 'the isolate budget', words: /budget/, constant: { file: 'src/geo/budget.ts', name: 'DEFAULT_BUDGET_BYTES' }, unit: 'B' },
  {
    what: "the burst policy's window",
    words: /requests/,
    constant: { file: 'src/ratelimit/window.ts', name: 'POLICIES', path: [0, 'windowSeconds'] },
    unit: 's',
  },
  {
    what: "the minute policy's quota",
    words: /requests/,
    constant: { file: 'src/ratelimit/window.ts', name: 'POLICIES', path: [1, 'quota'] },
    unit: 'in any minute',
  },
  { what: "an isolate's memory", words: /isolate/, fact: '128 MB', source: 'https://developers.cloudflare.com/workers/platform/limits/#memory' },
  { what: "the licence's time to replace data", words: /licence/, fact: '30 days', source: 'https://www.maxmind.com/en/geolite2/eula' },
];

const budget = (mib: number) =>
  `/**\n * @module The budget: ${mib === 96 ? '96' : '64'} MiB of an isolate's 128 MB, of which a build takes 93.4 MiB.\n */\nimport { MIB } from './units.ts';\n// Not the header: 5 ms here is no prose.\nexport const DEFAULT_BUDGET_BYTES = ${mib} * MIB;\n`;

const FILES = {
  'package.json': JSON.stringify({ scripts: { 'docs:examples': 'tsx scripts/docs-examples.ts' } }),
  'src/geo/units.ts': '/** @module Units. */\nexport const MIB = 1_048_576;\n',
  'src/geo/budget.ts': budget(96),
  'src/ratelimit/window.ts':
    "/** @module Windows. */\nexport const POLICIES = Object.freeze([\n  { name: 'burst', quota: 10, windowSeconds: 10 },\n  { name: 'minute', quota: 60, windowSeconds: 60 },\n] as const);\n",
  'README.md': [
    '# Service',
    '',
    'The free plan allows 10 requests in any 10 s and 60 in any minute.',
    '',
    'A lookup takes about 2.5 µs ([BENCHMARKS.md](BENCHMARKS.md#lookups-per-2-s)).',
    '',
    'Workers allow 128 MB per isolate (122 MiB); the isolate budget is 96 MiB.',
    '',
    '<!-- sizes: written by npm run docs:examples -->',
    'The build is 66.9 MiB and took 54.7 s.',
    '<!-- /sizes -->',
    '',
    'Data of 2026-09-18, version 1.0.101, 3 shards, 250 countries, 128-bit addresses, 500s, port 8787.',
    'It is replaced within 30 days of an update, as the licence asks.',
    'A million cost $0.30; it got 12% faster, 1.3× the old; the map is 960 × 480.',
    'Published in five minutes, at 25 MB/s.',
  ].join('\n'),
  'docs/decisions/0001-choice.md': '# Choice\n\nMeasured 3.1 ms on the run of 2026-11-26.\n',
  'docs/hot-path.md': '# Hot path\n\nA `Set` costs 19 µs there.\n',
  // A marker quoted in a sentence (line 2) is none; one on a line of its own is.
  'docs/guide.md':
    '# Guide\nBlocks look like `<!-- x: written by npm run y -->`.\n<!-- table: written by npm run nope -->\n| 1 KB |\n<!-- /table -->\n\n<!-- open: written by npm run docs:examples -->\n',
  'CHANGELOG.md': '# Changelog\n\n## [Unreleased]\n\n- Loads wait 20 s less.\n\n## [0.1.0] - 2026-11-26\n\n- A build takes 40 s.\n',
  'src/index.ts': '/** @module The entry. */\n// A request takes 5 ms.\nexport {};\n',
  'scripts/run.sh': '#!/usr/bin/env bash\n# Runs for five minutes.\necho "10 s"\n',
};

/** The faults as `file:line text`, in order. */
const found = (root: string, rows = ROWS) => typedFigures(root, rows, 'the table').map(({ file, line, text }) => `${file}:${line} ${text}`);

describe('figuresIn', () => {
  it('reads a number with a unit of size, time, rate, share or money, and nothing else', () => {
    const figures = figuresIn(
      'a 16,384-byte body, 25 MB/s, five minutes, 3 a second, 60 in any minute,\n * 0.2 ms, **90 seconds**, 2.5×, $0.30, 1%; ' +
        'not 500s, 10s, 128-bit, 32 bits, 960 × 480, × 2 / 8 bytes, v1.5 s, /24 s, RFC 9457, ISO 3166-1, 2026-09-18',
    );
    expect(figures.map(({ text, dimension, value }) => [text, dimension, value])).toEqual([
      ['16,384-byte', 'size', 16_384],
      ['25 MB/s', 'size/time', 25e6],
      ['five minutes', 'time', 300],
      ['3 a second', 'count/time', 3],
      ['60 in any minute', 'count/time', 1],
      ['0.2 ms', 'time', 0.0002],
      ['90 seconds', 'time', 90],
      ['2.5×', 'ratio', 2.5],
      ['$0.30', 'USD', 0.3],
      ['1%', 'share', 1],
    ]);
  });

  it('allows a rounded figure half its last digit', () => {
    const [whole, tenths] = figuresIn('122 MiB, 93.4 MiB');
    expect(whole?.tolerance).toBe(0.5 * 1_048_576);
    expect(tenths?.tolerance).toBeCloseTo(0.05 * 1_048_576, 3);
  });
});

describe('check:figures', () => {
  it('finds each figure typed into prose, and passes constants, facts and generated blocks', () => {
    expect(found(plantRepository(FILES))).toEqual([
      'CHANGELOG.md:5 20 s',
      'README.md:5 2.5 µs',
      'README.md:15 $0.30',
      'README.md:15 12%',
      'README.md:15 1.3×',
      'README.md:16 five minutes',
      'README.md:16 25 MB/s',
      'docs/guide.md:3 npm run nope',
      'docs/guide.md:7 <!--',
      'scripts/run.sh:2 five minutes',
      'src/geo/budget.ts:2 93.4 MiB',
    ]);
  });

  it('says why: a typed figure, or a constant that is not what the code says', () => {
    const root = plantRepository({ ...FILES, 'src/geo/budget.ts': budget(64) });
    const faults = typedFigures(root, ROWS, 'the table');
    expect(faults.find((fault) => fault.file === 'README.md' && fault.line === 7 && fault.text === '96 MiB')?.why).toBe(
      'not the isolate budget, which is 64 MiB (src/geo/budget.ts, DEFAULT_BUDGET_BYTES)',
    );
    expect(faults.find((fault) => fault.text === '2.5 µs')?.why).toMatch(/^a figure typed into prose: link BENCHMARKS\.md/);
    expect(faults.find((fault) => fault.text === 'npm run nope')?.why).toBe('the block "table" names npm run nope, which package.json does not have');
    expect(faults.find((fault) => fault.text === '<!--')?.why).toBe('the block "open" is never closed (<!-- /open -->)');
  });

  it('names a row of its table that the code does not hold, or that is not one figure', () => {
    const rows: FigureRow[] = [
      { what: 'a renamed constant', words: /x/, constant: { file: 'src/geo/budget.ts', name: 'BUDGET' }, unit: 'B' },
      { what: 'a missing file', words: /x/, constant: { file: 'src/gone.ts', name: 'X' }, unit: 'B' },
      { what: 'a text', words: /x/, constant: { file: 'src/ratelimit/window.ts', name: 'POLICIES', path: [0, 'name'] }, unit: 's' },
      { what: 'two figures', words: /x/, fact: '10 s or 20 s', source: 'https://example.com' },
    ];
    expect(knownFigures(plantRepository(FILES), rows, 'the table').faults.map(({ why }) => why)).toEqual([
      'a renamed constant: src/geo/budget.ts declares no top-level const BUDGET',
      'a missing file: src/gone.ts does not exist',
      'a text: src/ratelimit/window.ts: POLICIES[0]["name"] is not a number',
      'the fact of two figures is not one number and unit',
    ]);
  });

  it("reads a constant made of another file's constant's keys", () => {
    const root = plantRepository({
      'src/layout.ts': "/** @module Layout. */\nexport const LAYOUT = { blockBytes: 32_768, keptBlocks: 8, name: 'x' } as const;\n",
      'src/model.ts':
        "/** @module Model. */\nimport { LAYOUT } from './layout.ts';\nexport const MODEL = { keptBytes: LAYOUT.keptBlocks * LAYOUT.blockBytes, gone: LAYOUT.missing };\n",
    });
    // 8 blocks of 32 KiB: 256 KiB.
    expect(readConstant(root, 'src/model.ts', 'MODEL', ['keptBytes'])).toBe(256 * 1024);
    expect(() => readConstant(root, 'src/model.ts', 'MODEL', ['gone'])).toThrow('MODEL["gone"] is not a number');
  });

  it("reads every constant of this repository's table from the code", () => {
    const { figures, faults } = knownFigures('.', FIGURE_ROWS, FIGURE_TABLE);
    expect(faults).toEqual([]);
    expect(figures).toHaveLength(FIGURE_ROWS.length);
  });
});
