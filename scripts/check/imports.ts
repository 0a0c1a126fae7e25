/**
 * @module The import rules of docs/architecture.md ("What may import what"), read from its table and
 * its rules, and checked against the code with dependency-cruiser, so that the document and the code
 * cannot part. The table is the one place the rules live: a new folder of `src/` adds a row there.
 * Nothing in `src/` imports `operator/`; no import cycle anywhere: `src/`, `operator/`, `data/`, `scripts/`,
 * `bench/` or `test/`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';

/** The document that states the rules, from the repository's root. */
const RULES_DOCUMENT = 'docs/architecture.md';

/** One row of the table: modules of `src/` (a folder `geo`, a file `env.ts`) and what they may import. */
interface ImportRow {
  readonly modules: readonly string[];
  /** Modules of `src/` that the row's modules may import, besides their own files. */
  readonly imports: readonly string[];
  /** For an import that only some files of the row may make: the import, and those files (names in the row's folder). */
  readonly onlyFrom: ReadonlyMap<string, readonly string[]>;
}

/** The rules as the document states them. */
interface ImportRules {
  readonly rows: readonly ImportRow[];
  /** The domain's folders, which import neither Hono nor `errors` ("The domain speaks no HTTP"). */
  readonly domain: readonly string[];
}

/** A rule the document breaks or cannot be read by: the check fails before it looks at the code. */
export class ImportRulesError extends Error {
  override readonly name = 'ImportRulesError';
}

const TABLE_HEADING = '## What may import what';
/** The second cell's words for "every module of the rows above". */
const ALL_ABOVE = 'all of the above';
const NAME = /`([^`]+)`/g;

/** The backticked names of `text`. */
function namesIn(text: string): string[] {
  return [...text.matchAll(NAME)].map((match) => match[1] as string);
}

/**
 * The rules of `markdown` (docs/architecture.md): its table under "What may import what", whose first
 * cell names modules of `src/` and whose second names, in backticks, what they may import ("nothing",
 * or "all of the above"); a remark in parentheses after an import that starts with "only" and names
 * files limits that import to those files. Each row may import only what rows before it name.
 *
 * @throws ImportRulesError when the table is missing, empty, or imports a module no earlier row names.
 * @internal Exported for the repository checks' test, which reads tables of its own with it.
 */
export function readImportRules(markdown: string): ImportRules {
  const start = markdown.indexOf(TABLE_HEADING);
  if (start < 0) throw new ImportRulesError(`${RULES_DOCUMENT} has no section "${TABLE_HEADING.slice(3)}"`);
  const section = markdown.slice(start + TABLE_HEADING.length).split('\n## ')[0] as string;
  const lines = section.split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: ImportRow[] = [];
  const above = new Set<string>();
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    const [, left = '', right = ''] = line.split('|');
    const modules = namesIn(left);
    const onlyFrom = new Map<string, string[]>();
    // Names in remarks (in parentheses) are not imports; a remark starting with "only" limits the import before it.
    const imports = right.trim() === ALL_ABOVE ? [...above] : namesIn(right.replace(/\([^)]*\)/g, ''));
    for (const [, name = '', remark = ''] of right.matchAll(/`([^`]+)`\s*\(([^)]*)\)/g)) {
      if (remark.startsWith('only')) onlyFrom.set(name, namesIn(remark));
    }
    const later = imports.filter((name) => !above.has(name));
    if (later.length > 0) {
      throw new ImportRulesError(
        `${RULES_DOCUMENT}: ${modules.join(', ')} may import ${later.join(', ')}, which no row above names: the table must list a folder after what it imports`,
      );
    }
    for (const module of modules) above.add(module);
    rows.push({ modules, imports, onlyFrom });
  }
  if (rows.length === 0) throw new ImportRulesError(`${RULES_DOCUMENT}: the table under "${TABLE_HEADING.slice(3)}" has no rows`);
  const rule = /The domain speaks no HTTP\.\*\*([\s\S]*?)import\s+neither/.exec(section);
  if (rule === null) throw new ImportRulesError(`${RULES_DOCUMENT}: the rule "The domain speaks no HTTP" names no folders before "import neither"`);
  return { rows, domain: namesIn(rule[1] as string) };
}

/** The path pattern of a module of `src/`: a folder's files, or one file. */
function pattern(module: string): string {
  return module.includes('.') ? `^src/${module.replaceAll('.', '\\.')}$` : `^src/${module}/`;
}

/** The dependency-cruiser rules that enforce `rules`, each named for the message it gives. */
function forbiddenRules(rules: ImportRules): IForbiddenRuleType[] {
  const forbidden: IForbiddenRuleType[] = [];
  for (const row of rules.rows) {
    for (const module of row.modules) {
      forbidden.push({
        name: `${module} may import ${row.imports.length === 0 ? 'nothing' : row.imports.join(', ')} of src/`,
        severity: 'error',
        from: { path: pattern(module) },
        to: { path: '^src/', pathNot: [module, ...row.imports].map(pattern) },
      });
      for (const [target, files] of row.onlyFrom) {
        forbidden.push({
          name: `only ${files.join(', ')} of ${module} may import ${target}`,
          severity: 'error',
          from: { path: pattern(module), pathNot: files.map((file) => pattern(`${module}/${file}`)) },
          to: { path: pattern(target) },
        });
      }
    }
  }
  const domain = `^src/(${rules.domain.join('|')})/`;
  forbidden.push(
    { name: 'the domain speaks no HTTP: no Hono', severity: 'error', from: { path: domain }, to: { path: '(^|/)node_modules/(hono|@hono/[^/]+)/' } },
    {
      name: "nothing in src/ imports the operator's code or Node code (operator/, data/, scripts/, bench/, test/)",
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(operator|data|scripts|bench|test)/' },
    },
    // "The Worker never runs the operator's code", under docs/architecture.md, "What may import what": the operator tool
    // writes what the access check reads (the KV schema, the key format, the canonical forms and the address refusals).
    {
      name: 'operator/ uses only src/access/, src/ip/ and src/usage/wire.ts of src/',
      severity: 'error',
      from: { path: '^operator/' },
      to: { path: '^src/', pathNot: ['^src/(access|ip)/', '^src/usage/(wire)\\.ts$'] },
    },
    // "Node code may use Worker code", under docs/architecture.md, "What may import what": the build writes what the Worker
    // reads, and refuses the corrections the Worker would refuse (its address parser, special ranges and country codes).
    {
      name: 'data/ uses only src/geo/, src/mmdb/, src/ip/ and src/reference/ of src/',
      severity: 'error',
      from: { path: '^data/' },
      to: { path: '^src/', pathNot: '^src/(geo|mmdb|ip|reference)/' },
    },
    { name: 'no import cycle anywhere', severity: 'error', from: { path: CODE }, to: { circular: true } },
  );
  return forbidden;
}

/** The folders of code whose imports are checked: the Worker, the operator's code, and the Node code that builds, runs, measures and tests it. */
const CODE_FOLDERS = ['src', 'operator', 'data', 'scripts', 'bench', 'test'];
const CODE = `^(${CODE_FOLDERS.join('|')})/`;

/** The modules directly in `src/` of `root`: its folders and its files. */
function modulesOf(root: string): string[] {
  return readdirSync(join(root, 'src'), { withFileTypes: true }).map((entry) => entry.name);
}

/**
 * The import rules' breaches in the repository at `root`: one sentence each, empty when the code keeps them.
 * A module of `src/` that the table does not name, or a name of the table that is not in `src/`, is one too.
 *
 * @throws ImportRulesError when the document's rules cannot be read.
 */
export async function checkImports(root: string): Promise<string[]> {
  const rules = readImportRules(readFileSync(join(root, RULES_DOCUMENT), 'utf8'));
  const named = new Set(rules.rows.flatMap((row) => row.modules));
  const present = modulesOf(root);
  const breaches = [
    ...present
      .filter((module) => !named.has(module))
      .map((module) => `src/${module} is in no row of ${RULES_DOCUMENT}'s table "What may import what": add its row`),
    ...[...named]
      .filter((module) => !present.includes(module))
      .map((module) => `${RULES_DOCUMENT}'s table "What may import what" names ${module}, which src/ does not have`),
  ];
  const folders = CODE_FOLDERS.filter((folder) => existsSync(join(root, folder)));
  const { output } = await cruise(folders, {
    baseDir: resolve(root),
    validate: true,
    ruleSet: { forbidden: forbiddenRules(rules) },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  });
  for (const violation of (output as ICruiseResult).summary.violations) {
    const cycle = violation.cycle?.map((step) => step.name).join(' → ');
    breaches.push(`${violation.from} imports ${cycle ?? violation.to}: ${violation.rule.name} (${RULES_DOCUMENT}, "What may import what")`);
  }
  return breaches;
}
