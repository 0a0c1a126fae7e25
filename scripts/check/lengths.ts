/**
 * @module The length of the Worker's and the operator's files: no file of `src/` or `operator/` longer
 * than {@link MAX_LINES} lines, so that each holds one idea a reader takes in whole
 * (docs/contributing.md, "Before you push").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { committableFiles } from './files.ts';

/** The folders whose files are held to the limit. */
const HELD = ['src/', 'operator/'];

/** The most lines a file of `src/` or `operator/` may have. */
export const MAX_LINES = 350;

/** A file over the limit, and its lines. */
export interface LongFile {
  readonly file: string;
  readonly lines: number;
}

/** The lines of `text`: its line ends, and one more when its last line has none. */
function linesOf(text: string): number {
  const ends = text.split('\n').length - 1;
  return text.length === 0 || text.endsWith('\n') ? ends : ends + 1;
}

/** The files of `src/` and `operator/` at `root` longer than `limit` lines, the longest first. */
export function longFiles(root: string, limit = MAX_LINES): LongFile[] {
  return committableFiles(root)
    .filter((file) => HELD.some((folder) => file.startsWith(folder)))
    .map((file) => ({ file, lines: linesOf(readFileSync(join(root, file), 'utf8')) }))
    .filter(({ lines }) => lines > limit)
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}
