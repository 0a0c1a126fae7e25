/**
 * @module `npm run docs:examples`: writes the examples of docs/api.md and docs/operations.md that come
 * from the default build (the status answer, an ASN answer, the isolate budget's lines, the data
 * version) from its manifest and ASN object in `data/out/`; `npm run check:examples` (`--check`)
 * changes nothing and fails where a document differs from them (scripts/examples/examples.ts).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandLine } from '../data/command-line.ts';
import type { Manifest } from '../data/output.ts';
import { notDefaultBuild, staleExamples, writtenExamples } from './examples/examples.ts';

const USAGE = `usage: npm run docs:examples [-- --check]

Writes the examples of docs/api.md and docs/operations.md from the default build in data/out/.
  --check   change nothing; exit 1 when a document differs from the build (npm run check:examples)`;

const MANIFEST = 'data/out/ipgeo.manifest.json';

function main(argv: string[]): number {
  const line = parseCommandLine(argv, { command: 'npm run docs:examples', usage: USAGE, options: { check: { type: 'boolean' } } });
  if (typeof line === 'number') return line;
  const root = '.';
  if (!existsSync(join(root, MANIFEST))) {
    console.error(`${MANIFEST} is missing: the examples are of the default build. Build it first (npm run data:build, or npm test).`);
    return 1;
  }
  const manifest = JSON.parse(readFileSync(join(root, MANIFEST), 'utf8')) as Manifest;
  const other = notDefaultBuild(manifest);
  if (other !== undefined) {
    console.error(`${MANIFEST} is not of the default build (${other}): the examples are of the default build. Build it (npm run data:build) first.`);
    return 1;
  }
  const now = Date.now();
  if (line.values.check) {
    const faults = staleExamples(root, manifest, now);
    for (const { document, line: at, why } of faults) console.error(`${document}:${at}: ${why}`);
    if (faults.length > 0) {
      console.error(`Run npm run docs:examples to write them from the build of ${manifest.version}.`);
      return 1;
    }
    console.log(`The examples of the docs are those of the default build, ${manifest.version}.`);
    return 0;
  }
  const texts = writtenExamples(root, manifest, now);
  for (const [document, text] of texts) writeFileSync(join(root, document), text);
  console.log(
    texts.size === 0
      ? `The examples were those of the default build, ${manifest.version}, already.`
      : `Wrote the examples of ${manifest.version} into ${[...texts.keys()].join(' and ')}.`,
  );
  return 0;
}

process.exitCode = main(process.argv.slice(2));
