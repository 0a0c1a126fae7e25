/**
 * @module `npm run check:lengths`: fails when a file of `src/` or `operator/` is longer than the limit, naming each
 * with its lines (scripts/check/lengths.ts).
 */
import { longFiles, MAX_LINES } from './check/lengths.ts';

const long = longFiles('.');
for (const { file, lines } of long) console.error(`${file}: ${lines} lines, over ${MAX_LINES}: split it by idea`);
if (long.length > 0) process.exit(1);
console.log(`No file of src/ or operator/ is longer than ${MAX_LINES} lines.`);
