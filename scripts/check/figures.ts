/**
 * @module Finds figures typed into prose: a number with a unit of size, time, rate, share or money in
 * README.md, docs/ (but the decision records and docs/hot-path.md, dated analyses that name their run),
 * the Unreleased part of CHANGELOG.md and the module headers of `src/`, `operator/`, `data/` and
 * `scripts/`. A figure passes inside a generated block (`generated-blocks.ts`), or when it is a figure
 * of the table of `known-figures.ts` (a constant read from the code, or a platform or licence fact with
 * its source) that the lines around it name. A measured figure belongs in BENCHMARKS.md, which prose links instead.
 * What a figure is: `figure-text.ts`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ConstantError, readConstant } from './code-constants.ts';
import { type Dimension, type Figure, figureOf, figuresIn } from './figure-text.ts';
import { committableFiles } from './files.ts';
import { generatedBlocks, withoutGeneratedBlocks } from './generated-blocks.ts';

/** A figure the check knows: a constant of the code, or a platform or licence fact with its source. */
interface KnownFigure {
  /** What it is, as a message names it: `the isolate budget`. */
  readonly what: string;
  readonly dimension: Dimension;
  /** A word that the lines around a figure must hold for the figure to be this one (`/budget/`). */
  readonly words: RegExp;
  /** Its value in the dimension's base unit, as the code or the source gives it. */
  readonly value: number;
  /** Where it comes from: the file and constant, or the source's address. */
  readonly source: string;
  /** A constant of the code changes with it; a fact of a source does not. */
  readonly kind: 'constant' | 'fact';
}

/** A row of the table (`known-figures.ts`): a constant of the code, read from it, or a fact with its source. */
export type FigureRow =
  | {
      readonly what: string;
      readonly words: RegExp;
      /** The file and top-level constant that hold it, and where in the constant's value (`[0, 'windowSeconds']`). */
      readonly constant: { readonly file: string; readonly name: string; readonly path?: readonly (number | string)[] };
      /** The unit the code's number is in, as prose would write it after it (`ms`, `B`, `days`, `in any minute`). */
      readonly unit: string;
    }
  | {
      readonly what: string;
      readonly words: RegExp;
      /** The fact as its source states it: a number and a unit (`128 MB`). */
      readonly fact: string;
      /** The address of the source. */
      readonly source: string;
    };

/** Where a figure, a marker or the table is wrong. */
export interface FigureFault {
  readonly file: string;
  readonly line: number;
  /** The figure as written, or the marker or row at fault. */
  readonly text: string;
  readonly why: string;
}

/**
 * The figures of `rows` at `root`: each constant read from its file, each fact from its text. A row
 * that cannot be read is a fault of the table, named by `table`.
 *
 * @internal Exported for the figure check's test, which reads this repository's table with it.
 */
export function knownFigures(root: string, rows: readonly FigureRow[], table: string): { figures: KnownFigure[]; faults: FigureFault[] } {
  const figures: KnownFigure[] = [];
  const faults: FigureFault[] = [];
  for (const row of rows) {
    if ('fact' in row) {
      const figure = figureOf(row.fact);
      if (figure === undefined) {
        faults.push({ file: table, line: 0, text: row.fact, why: `the fact of ${row.what} is not one number and unit` });
      } else figures.push({ what: row.what, dimension: figure.dimension, words: row.words, value: figure.value, source: row.source, kind: 'fact' });
      continue;
    }
    const { file, name, path = [] } = row.constant;
    const source = `${file}, ${name}${path.map((step) => `[${JSON.stringify(step)}]`).join('')}`;
    try {
      const figure = figureOf(`${readConstant(root, file, name, path)} ${row.unit}`);
      if (figure === undefined) faults.push({ file: table, line: 0, text: row.unit, why: `the unit of ${row.what} is none the check knows` });
      else figures.push({ what: row.what, words: row.words, source, dimension: figure.dimension, value: figure.value, kind: 'constant' });
    } catch (error) {
      if (!(error instanceof ConstantError)) throw error;
      faults.push({ file: table, line: 0, text: source, why: `${row.what}: ${error.message}` });
    }
  }
  return { figures, faults };
}

/** The prose that the check reads, from the repository's root: which files, and which part of each. */
const DOCUMENT = /^(README\.md|docs\/.*\.md)$/;
const DATED_ANALYSES = /^docs\/(decisions\/.*|hot-path\.md)$/;
const HEADED_CODE = /^(src|operator|data|scripts)\/.*\.(ts|tsx|sh)$/;

/** `text` with every character but line ends outside `[start, end)` blanked, so that lines keep their numbers. */
function blanked(text: string, start: number, end: number): string {
  const blank = (part: string) => part.replace(/[^\n]/g, ' ');
  return blank(text.slice(0, start)) + text.slice(start, end) + blank(text.slice(end));
}

/** The first comment of a file of code, the rest blanked: its module header. */
function moduleHeader(file: string, text: string): string {
  if (file.endsWith('.sh')) {
    const lines = text.split('\n');
    const end = lines.findIndex((line, index) => index > 0 && !line.startsWith('#'));
    return blanked(text, 0, lines.slice(0, end < 0 ? lines.length : end).join('\n').length);
  }
  const [first] = ts.getLeadingCommentRanges(text, text.startsWith('#!') ? text.indexOf('\n') + 1 : 0) ?? [];
  return first === undefined ? blanked(text, 0, 0) : blanked(text, first.pos, first.end);
}

/** The Unreleased part of the changelog, the rest blanked. */
function unreleased(text: string): string {
  const start = text.search(/^## \[?Unreleased\]?/m);
  if (start < 0) return blanked(text, 0, 0);
  const next = text.slice(start + 1).search(/^## /m);
  return blanked(text, start, next < 0 ? text.length : start + 1 + next);
}

/** Markdown with what is not prose blanked: link targets, addresses, HTML comments (markers included). */
function proseOfMarkdown(text: string): string {
  return text.replace(/\]\([^)\s]*\)|<!--[\s\S]*?-->|https?:\/\/[^\s)>\]`"]+/g, (hidden) => hidden.replace(/[^\n]/g, ' '));
}

/** The prose of `file` the check reads (its text with the rest blanked), or undefined when it reads none of it. */
function proseOf(file: string, text: string): string | undefined {
  if (file === 'CHANGELOG.md') return proseOfMarkdown(unreleased(text));
  if (DOCUMENT.test(file) && !DATED_ANALYSES.test(file)) return proseOfMarkdown(withoutGeneratedBlocks(text));
  if (HEADED_CODE.test(file)) return moduleHeader(file, text);
  return undefined;
}

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++;
  return line;
}

/** How far around a figure its row's words are looked for: its paragraph, at most this many lines either side. */
const CONTEXT_LINES = 3;

/** The paragraph of 1-based `line` (to a blank line or a table row's end), at most {@link CONTEXT_LINES} either side. */
function paragraphAround(lines: readonly string[], line: number): string {
  const at = line - 1;
  if ((lines[at] ?? '').trimStart().startsWith('|')) return lines[at] as string;
  let first = at;
  while (first > 0 && at - first < CONTEXT_LINES && (lines[first - 1] ?? '').trim() !== '') first--;
  let last = at;
  while (last < lines.length - 1 && last - at < CONTEXT_LINES && (lines[last + 1] ?? '').trim() !== '') last++;
  return lines.slice(first, last + 1).join(' ');
}

/** Whether `figure` is within the rounding of `known`'s value. */
function equals(figure: Figure, known: KnownFigure): boolean {
  return figure.dimension === known.dimension && Math.abs(figure.value - known.value) <= figure.tolerance + 1e-9 * Math.abs(known.value);
}

/** A known figure's value written as `figure` is written: in its unit, to six significant digits. */
function inUnitOf(figure: Figure, known: KnownFigure): string {
  return `${figure.before}${Number((known.value / figure.factor).toPrecision(6)).toLocaleString('en')}${figure.after}`;
}

/**
 * The typed figures of the repository at `root`, and the faults of its generated blocks and of the
 * table of known figures: each with its file and line, in file order.
 *
 * @param rows the table of known figures (`known-figures.ts`), named `table` in messages.
 */
export function typedFigures(root: string, rows: readonly FigureRow[], table: string): FigureFault[] {
  const { figures: known, faults } = knownFigures(root, rows, table);
  const scripts = new Set(Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: object }).scripts ?? {}));
  for (const file of committableFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    const prose = proseOf(file, text);
    if (prose === undefined) continue;
    const ofFile: FigureFault[] = [];
    if (file.endsWith('.md')) {
      const { blocks, faults: markers } = generatedBlocks(text);
      for (const { line, why } of markers) ofFile.push({ file, line, text: '<!--', why });
      for (const block of blocks) {
        for (const script of block.scripts.filter((name) => !scripts.has(name))) {
          ofFile.push({
            file,
            line: block.openingLine,
            text: `npm run ${script}`,
            why: `the block "${block.name}" names npm run ${script}, which package.json does not have`,
          });
        }
      }
    }
    const lines = prose.split('\n');
    for (const figure of figuresIn(prose)) {
      const line = lineAt(prose, figure.index);
      const named = known.filter((each) => each.dimension === figure.dimension && each.words.test(paragraphAround(lines, line)));
      if (named.some((each) => equals(figure, each))) continue;
      // The figure that it may have been meant to be: one that its own line names, within half as much again
      // of it, a constant (which may have changed in the code) before a fact, the nearest first.
      const distance = (each: KnownFigure) => (each.kind === 'constant' ? 0 : 10) + Math.abs(Math.log(figure.value / each.value));
      const near = named
        .filter((each) => each.words.test(lines[line - 1] ?? '') && each.value > 0 && figure.value / each.value <= 1.5 && each.value / figure.value <= 1.5)
        .sort((a, b) => distance(a) - distance(b))[0];
      const why =
        near === undefined
          ? 'a figure typed into prose: link BENCHMARKS.md for a measured one, write it with a command into a generated block, or name its constant or source in the table of the figure check'
          : `not ${near.what}, which is ${inUnitOf(figure, near)} (${near.source})`;
      ofFile.push({ file, line, text: figure.text, why });
    }
    faults.push(...ofFile.sort((a, b) => a.line - b.line));
  }
  return faults;
}
