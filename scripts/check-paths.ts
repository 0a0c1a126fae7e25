/**
 * @module `npm run check:paths`: fails when a document, comment or configuration names a path or link
 * that does not exist in the repository, or an anchor that no heading has (scripts/check/paths.ts).
 */
import { danglingPaths } from './check/paths.ts';

const dangling = danglingPaths('.');
for (const { file, line, named, why } of dangling) console.error(`${file}:${line}: ${named}: ${why}`);
if (dangling.length > 0) process.exit(1);
console.log('Every path and link named in the repository exists.');
