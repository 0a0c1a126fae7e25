/**
 * @module `npm run check:imports`: fails when an import breaks the rules of docs/architecture.md ("What
 * may import what"), naming each import and the rule (scripts/check/imports.ts).
 */
import { checkImports } from './check/imports.ts';

const breaches = await checkImports('.');
for (const breach of breaches) console.error(breach);
if (breaches.length > 0) process.exit(1);
console.log('Imports keep the rules of docs/architecture.md ("What may import what").');
