/**
 * @module The files of a repository that its checks read: what git would commit, tracked or new and
 * not ignored, so that a check sees a change before it is committed and never what builds write.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The files of the working tree at `root` that git would commit (tracked, and new files not ignored), from the root. */
export function committableFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(root, file)));
}
