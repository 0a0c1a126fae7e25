/**
 * @module `npm run check:imports`: fails when an import breaks the rules of docs/architecture.md ("What
 * may import what"), naming each import and the rule, or when the table cannot be read (scripts/check/imports.ts).
 */
import { checkImports, ImportRulesError } from './check/imports.ts';

let breaches: string[];
try {
  breaches = await checkImports('.');
} catch (error) {
  if (!(error instanceof ImportRulesError)) throw error;
  breaches = [error.message];
}
for (const breach of breaches) console.error(breach);
if (breaches.length > 0) process.exit(1);
console.log('Imports keep the rules of docs/architecture.md ("What may import what").');
