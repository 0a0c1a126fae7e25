/**
 * @module Blocks of a Markdown document that a command writes, between two markers of one convention:
 *
 *     <!-- NAME: written by npm run SCRIPT -->
 *     …
 *     <!-- /NAME -->
 *
 * NAME is a word of the document's own (`costs`, `status-example`); the opening marker names every npm
 * script that writes the block (`written by npm run bench and npm run bench:costs`). Nothing between the
 * markers is typed by hand: the figure check (`figures.ts`) reads past it, and the script rewrites it.
 */

/** A block between an opening and a closing marker. */
export interface GeneratedBlock {
  readonly name: string;
  /** The npm scripts that the opening marker names as its writers. */
  readonly scripts: readonly string[];
  /** The 1-based lines of the opening and the closing marker. */
  readonly openingLine: number;
  readonly closingLine: number;
  /** Offsets in the document: where the block's contents start (after the opening marker's line) and end (at the closing marker). */
  readonly contentStart: number;
  readonly contentEnd: number;
}

/** A marker that does not pair: an opening never closed, a closing never opened, or an opening that names no npm script. */
export interface MarkerFault {
  readonly line: number;
  readonly why: string;
}

/** Markers stand on lines of their own (a marker quoted in a sentence or in code is none). */
const OPENING = /^<!-- ([\w-]+): written by ([^>\n]*?)-->$/gm;
const CLOSING = /^<!-- \/([\w-]+) -->$/gm;
const SCRIPT = /npm run ([\w:.-]+)/g;

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++;
  return line;
}

/** The generated blocks of `markdown` in order, and the markers that do not pair. */
export function generatedBlocks(markdown: string): { blocks: GeneratedBlock[]; faults: MarkerFault[] } {
  const blocks: GeneratedBlock[] = [];
  const faults: MarkerFault[] = [];
  const closings = [...markdown.matchAll(CLOSING)];
  const used = new Set<number>();
  let after = 0;
  for (const opening of markdown.matchAll(OPENING)) {
    const [whole, name = '', writers = ''] = opening;
    const line = lineAt(markdown, opening.index);
    if (opening.index < after) {
      faults.push({ line, why: `the block "${name}" opens inside another block` });
      continue;
    }
    const scripts = [...writers.matchAll(SCRIPT)].map((match) => match[1] as string);
    if (scripts.length === 0) faults.push({ line, why: `the block "${name}" names no npm script that writes it ("written by npm run …")` });
    const closing = closings.find((match) => match[1] === name && match.index > opening.index && !used.has(match.index));
    if (closing === undefined) {
      faults.push({ line, why: `the block "${name}" is never closed (<!-- /${name} -->)` });
      continue;
    }
    used.add(closing.index);
    const newline = markdown.indexOf('\n', opening.index + whole.length);
    const contentStart = newline < 0 || newline > closing.index ? opening.index + whole.length : newline + 1;
    blocks.push({ name, scripts, openingLine: line, closingLine: lineAt(markdown, closing.index), contentStart, contentEnd: closing.index });
    after = closing.index;
  }
  for (const closing of closings) {
    if (!used.has(closing.index)) faults.push({ line: lineAt(markdown, closing.index), why: `<!-- /${closing[1]} --> closes no block` });
  }
  return { blocks, faults: faults.sort((a, b) => a.line - b.line) };
}

/** `markdown` with the blocks it holds blanked (each character but line ends a space), so that lines keep their numbers. */
export function withoutGeneratedBlocks(markdown: string): string {
  let text = markdown;
  for (const { contentStart, contentEnd } of generatedBlocks(markdown).blocks) {
    text = text.slice(0, contentStart) + text.slice(contentStart, contentEnd).replace(/[^\n]/g, ' ') + text.slice(contentEnd);
  }
  return text;
}

/** The contents of block `name` of `markdown`, or undefined when it has no such block. */
export function blockContents(markdown: string, name: string): string | undefined {
  const block = generatedBlocks(markdown).blocks.find((each) => each.name === name);
  return block === undefined ? undefined : markdown.slice(block.contentStart, block.contentEnd);
}

/**
 * `markdown` with the contents of block `name` replaced by `contents` (which ends with a line end).
 *
 * @throws Error when `markdown` has no block of that name.
 */
export function withBlockContents(markdown: string, name: string, contents: string): string {
  const block = generatedBlocks(markdown).blocks.find((each) => each.name === name);
  if (block === undefined) throw new Error(`no block "${name}" (<!-- ${name}: written by npm run … --> … <!-- /${name} -->)`);
  return markdown.slice(0, block.contentStart) + contents + markdown.slice(block.contentEnd);
}
