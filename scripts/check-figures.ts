/**
 * @module `npm run check:figures`: fails when a figure with a unit is typed into prose where it is not
 * a constant of the code, a fact with its source (the table of scripts/check/known-figures.ts) or the
 * text of a generated block, naming each with its file and line (scripts/check/figures.ts).
 */
import { typedFigures } from './check/figures.ts';
import { FIGURE_ROWS, FIGURE_TABLE } from './check/known-figures.ts';

const faults = typedFigures('.', FIGURE_ROWS, FIGURE_TABLE);
for (const { file, line, text, why } of faults) console.error(`${file}:${line}: ${text}: ${why}`);
if (faults.length > 0) {
  console.error(`${faults.length} figures typed into prose (docs/contributing.md, "Figures in prose").`);
  process.exit(1);
}
console.log('No figure is typed into prose: each is a constant of the code, a fact with its source, or written by a command.');
