/**
 * @module Finds the paths and links that the repository's own files name but that do not exist: the
 * relative links of Markdown files (with their `#anchor`s to headings), and every path from the
 * repository's root (`docs/…`, `src/…`, `data/…`, `scripts/…`, `bench/…`, `test/…`, `assets/…`,
 * `.github/…`, `.ci/…`) in documents, code and configuration, except in the prose of CHANGELOG.md
 * (history) and in the code of tests (their comments count). A path exists when it is in the working
 * tree or `.gitignore` ignores it (what builds and installs write: `data/out/`, …).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import GithubSlugger from 'github-slugger';
import type { Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString as textOf } from 'mdast-util-to-string';
import ts from 'typescript';
import { committableFiles } from './files.ts';

/** Where a file names a path that does not exist. */
export interface DanglingPath {
  /** The naming file, from the repository's root. */
  readonly file: string;
  /** Its line, from 1. */
  readonly line: number;
  /** The path or link as the file writes it. */
  readonly named: string;
  /** What is missing: the file or folder, or the heading an anchor or a quoted section names. */
  readonly why: string;
}

/**
 * The files checked: every file git would commit, except files that others write (MaxMind's test
 * data in `test/fixtures/`, npm's lock, wrangler's generated types) and those that are not text.
 */
const CHECKED = /\.(md|ts|tsx|js|mjs|cjs|json|jsonc|toml|ya?ml|sh|css)$|^\.ci\/run$/;
const WRITTEN_BY_OTHERS = /^test\/fixtures\/|^package-lock\.json$|^worker-configuration\.d\.ts$/;

/**
 * A path from the repository's root, not inside another path or a URL (`./src/index`, `/docs/start.js`,
 * `package/../src` are not), and the `#anchor` that may follow it.
 */
const ROOTED_PATH = /(?<![\w.@/\\-])((?:docs|src|data|scripts|bench|test|assets|\.github|\.ci)\/[\w./-]*)(#[\w-]+)?/g;
/** A heading's text in quotes after a document's path: `docs/api.md, "Conventions"`, `` `docs/accounts.md`, "Origins" ``. */
const SECTION_AFTER = /^`?\)?,?[ \n*]+\(?"([^"\n]+)"/;
/** Characters that start a pattern or a placeholder right after a path: the path before it is a prefix (`test/workers-${plan}/`). */
const PATTERN_NEXT = /^[*${<[]/;

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++;
  return line;
}

/** The headings of a Markdown file: their anchors as GitHub makes them, and their text. */
interface Headings {
  readonly anchors: Set<string>;
  readonly texts: string[];
}

/** The headings of `file`, read once. */
function headingsOf(root: string, file: string, cache: Map<string, Headings>): Headings {
  const cached = cache.get(file);
  if (cached !== undefined) return cached;
  const slugger = new GithubSlugger();
  const headings: Headings = { anchors: new Set(), texts: [] };
  const walk = (node: Nodes): void => {
    if (node.type === 'heading') {
      headings.texts.push(textOf(node));
      headings.anchors.add(slugger.slug(textOf(node)));
    }
    if ('children' in node) for (const child of node.children) walk(child);
  };
  walk(fromMarkdown(readFileSync(join(root, file), 'utf8')));
  cache.set(file, headings);
  return headings;
}

/** A named path: where it is named, the path from the root, and the anchor of a Markdown target. */
interface Named {
  readonly file: string;
  readonly line: number;
  readonly named: string;
  readonly path: string;
  readonly anchor?: string | undefined;
  /** A heading's text that a quoted section names: the heading's whole text, or what comes before its colon. */
  readonly section?: string | undefined;
}

/**
 * The relative links and images of a Markdown file, resolved from its folder: links to other sites,
 * `mailto:` and links above the repository's root left out.
 */
function linksOf(file: string, text: string): Named[] {
  const named: Named[] = [];
  const walk = (node: Nodes): void => {
    if ((node.type === 'link' || node.type === 'image' || node.type === 'definition') && !/^([a-z][a-z\d+.-]*:|\/\/)/i.test(node.url)) {
      const [target = '', anchor] = decodeURI(node.url).split('#');
      const path = target === '' ? file : normalize(join(target.startsWith('/') ? '' : dirname(file), target));
      // Above the root, a link names one of GitHub's pages of the repository (`../../actions/…`), no file.
      if (!path.startsWith('..')) named.push({ file, line: node.position?.start.line ?? 0, named: node.url, path, anchor });
    }
    if ('children' in node) for (const child of node.children) walk(child);
  };
  walk(fromMarkdown(text));
  return named;
}

/** The paths from the root that `text` names, in prose, code, comments or configuration. */
function rootedPathsOf(file: string, text: string): Named[] {
  const named: Named[] = [];
  for (const match of text.matchAll(ROOTED_PATH)) {
    const [whole, written = '', hash] = match;
    const end = match.index + whole.length;
    let path = written.replace(/[.]+$/, '');
    // A prefix of a pattern names its folder: `src/**/*.ts` names `src/`, `test/workers-${plan}` names `test/`.
    if (hash === undefined && PATTERN_NEXT.test(text.slice(end))) path = path.slice(0, path.lastIndexOf('/') + 1);
    // A section named after a document, as comments cite it: `docs/api.md, "Conventions"`.
    const section = path.endsWith('.md') ? SECTION_AFTER.exec(text.slice(end))?.[1] : undefined;
    named.push({
      file,
      line: lineAt(text, match.index),
      named: section === undefined ? whole : `${whole}, "${section}"`,
      path,
      anchor: hash?.slice(1),
      section,
    });
  }
  return named;
}

/**
 * The comments of a test's code, each at its offset in `text` and the rest blanked, so that lines
 * keep their numbers. Test code names the files of the repositories and folders that tests build;
 * its comments name the repository's own.
 */
function commentsOf(file: string, text: string): string {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const kept = text.replace(/[^\n]/g, ' ').split('');
  const seen = new Set<number>();
  const keep = (ranges: ts.CommentRange[] | undefined): void => {
    for (const { pos, end } of ranges ?? []) {
      if (seen.has(pos)) continue;
      seen.add(pos);
      for (let at = pos; at < end; at++) kept[at] = text[at] as string;
    }
  };
  const walk = (node: ts.Node): void => {
    keep(ts.getLeadingCommentRanges(text, node.pos));
    keep(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(source)) walk(child);
  };
  walk(source);
  return kept.join('');
}

/** Which of `paths` `.gitignore` ignores: what builds and installs write. */
function ignored(root: string, paths: readonly string[]): Set<string> {
  if (paths.length === 0) return new Set();
  try {
    // Each also as a folder, which `data/cache/` in .gitignore matches only when it exists or ends in `/`.
    const asked = paths.flatMap((path) => (path.endsWith('/') ? [path] : [path, `${path}/`]));
    const out = execFileSync('git', ['check-ignore', '--no-index', '--stdin', '-z'], { cwd: root, input: asked.join('\0'), encoding: 'utf8' });
    return new Set(out.split('\0').map((path) => path.replace(/(.)\/$/, '$1')));
  } catch (error) {
    // `git check-ignore` exits 1 when it ignores none of them.
    if ((error as { status?: number }).status === 1) return new Set();
    throw error;
  }
}

/** The paths and links named in the repository at `root` that do not exist, in the order of their files and lines. */
export function danglingPaths(root: string): DanglingPath[] {
  const named: Named[] = [];
  for (const file of committableFiles(root)) {
    if (!CHECKED.test(file) || WRITTEN_BY_OTHERS.test(file)) continue;
    const text = readFileSync(join(root, file), 'utf8');
    if (file.endsWith('.md')) named.push(...linksOf(file, text));
    // The changelog is history: its prose names files as they were, its links must still work.
    if (file === 'CHANGELOG.md') continue;
    named.push(...rootedPathsOf(file, /^test\/.*\.[jt]sx?$/.test(file) ? commentsOf(file, text) : text));
  }
  const missing = named.filter((name) => !existsSync(join(root, name.path)));
  const generated = ignored(root, [...new Set(missing.map((name) => name.path))]);
  const headings = new Map<string, Headings>();
  const dangling: DanglingPath[] = [];
  // A Markdown link from the root is also a path from the root: said once.
  const said = new Set<string>();
  const say = (found: DanglingPath): void => {
    const key = `${found.file}:${found.line}:${found.why}`;
    if (!said.has(key)) dangling.push(found);
    said.add(key);
  };
  for (const name of named) {
    const { file, line, named: written, path, anchor, section } = name;
    if (!existsSync(join(root, path))) {
      if (!generated.has(path.replace(/\/$/, ''))) say({ file, line, named: written, why: `${path} does not exist` });
      continue;
    }
    if (!path.endsWith('.md') || !statSync(join(root, path)).isFile()) continue;
    const { anchors, texts } = headingsOf(root, path, headings);
    if (anchor !== undefined && !anchors.has(anchor)) say({ file, line, named: written, why: `${path} has no heading whose anchor is #${anchor}` });
    if (section !== undefined && !texts.some((text) => text === section || text.startsWith(`${section}:`))) {
      say({ file, line, named: written, why: `${path} has no heading "${section}"` });
    }
  }
  return dangling;
}
