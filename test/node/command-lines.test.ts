/**
 * @module Every npm script of ours answers `--help` with its usage (exit 0), and an option it does not
 * know with one line that names the option and points at `--help` (exit 2), never a stack trace. Run
 * through npm as a user types them (`npm run -s <script> -- …`), two at a time.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url);

/** The scripts that take options: the data tools, the servers, the operator tools and the benchmarks. */
const SCRIPTS = Object.keys((JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { scripts: Record<string, string> }).scripts).filter(
  (name) => /^(data:|bench)/.test(name) || ['dev', 'dev:paid', 'accounts', 'deploy'].includes(name),
);

/** Exit code, standard output and standard error of `npm run -s <script> -- ...args`. */
async function npmRun(script: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npm', ['run', '-s', script, '--', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/** What each script answered to `--help` and to an unknown option, gathered before the tests look at them. */
const answers = new Map<string, { help: Awaited<ReturnType<typeof npmRun>>; unknown: Awaited<ReturnType<typeof npmRun>> }>();

beforeAll(async () => {
  // Two at a time: each run starts npm, tsx and the script's imports (wrangler's take seconds).
  const queue = [...SCRIPTS];
  const worker = async () => {
    for (let script = queue.shift(); script !== undefined; script = queue.shift()) {
      answers.set(script, { help: await npmRun(script, '--help'), unknown: await npmRun(script, '--no-such-option') });
    }
  };
  await Promise.all([worker(), worker()]);
}, 900_000);

describe('the npm scripts’ command lines', () => {
  it('covers every script that takes options', () => {
    expect(SCRIPTS).toEqual(expect.arrayContaining(['data:build', 'data:update', 'data:publish', 'data:rollback', 'dev', 'dev:paid', 'accounts', 'deploy']));
    expect(SCRIPTS.filter((name) => name.startsWith('bench')).length).toBeGreaterThanOrEqual(11);
  });

  it.each(SCRIPTS)('npm run %s -- --help prints its usage and exits 0', (script) => {
    const { code, stdout, stderr } = answers.get(script)?.help ?? { code: -1, stdout: '', stderr: 'not run' };
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(new RegExp(`^usage: npm run ${script} -- `, 'im'));
  });

  it.each(SCRIPTS)('npm run %s -- --no-such-option names the option in one line and exits 2', (script) => {
    const { code, stderr } = answers.get(script)?.unknown ?? { code: -1, stdout: '', stderr: 'not run' };
    expect(code).toBe(2);
    // npm itself adds nothing with -s; the one line is the script's.
    expect(stderr).toBe(`npm run ${script}: unknown option '--no-such-option' (see npm run ${script} -- --help)\n`);
  });
});
