/**
 * @module Small repositories that the tests of the repository checks plant in temporary folders: the
 * files a test names, as a git repository (the checks read what git would commit), removed after each test.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';

const planted: string[] = [];
afterEach(() => {
  for (const dir of planted.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A git repository in a temporary folder holding `files` (path from its root → text), removed after the test. */
export function plantRepository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'ipgeo-checks-'));
  planted.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  execFileSync('git', ['init', '-q'], { cwd: root });
  return root;
}
