/**
 * @module Every npm script of ours answers `--help` with its usage (exit 0), and an option it does not
 * know with one line that names the option and points at `--help` (exit 2), never a stack trace.
 *
 * A few scripts run through npm as a user types them (`npm run -s <script> -- …`), one of each shape of
 * command in package.json ({@link THROUGH_NPM}), which proves the wiring: npm passes the arguments on,
 * and npm and tsx add nothing to the output. The others run in this process as npm would start them
 * (`test/support/npm-script.ts`): each start of npm, tsx and the script's imports costs seconds of CPU.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_SCRIPTS, runScriptInProcess, type ScriptRun } from '../support/npm-script.ts';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url);

/** The scripts that take options: the data tools, the servers, the operator tools and the benchmarks. */
const SCRIPTS = Object.keys(PACKAGE_SCRIPTS).filter((name) => /^(data:|bench)/.test(name) || ['dev', 'dev:paid', 'accounts', 'deploy'].includes(name));

/**
 * One script of each shape of command: `tsx FILE`, `tsx FILE ARGUMENT` (the argument before the
 * user's), `tsx --node-flag FILE`, and a command line of two commands (the user's arguments go to the
 * last one).
 */
const THROUGH_NPM = ['data:build', 'data:publish', 'bench:lookup', 'bench'];

/** Exit code, standard output and standard error of `npm run -s <script> -- ...args`. */
async function npmRun(script: string, ...args: string[]): Promise<ScriptRun> {
  try {
    const { stdout, stderr } = await run('npm', ['run', '-s', script, '--', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/** What each script answered to `--help` and to an unknown option, gathered before the tests look at them. */
const answers = new Map<string, { help: ScriptRun; unknown: ScriptRun }>();

beforeAll(async () => {
  // Through npm two at a time, while the others run here one after another (they share this process).
  const queue = [...THROUGH_NPM];
  const worker = async () => {
    for (let script = queue.shift(); script !== undefined; script = queue.shift()) {
      answers.set(script, { help: await npmRun(script, '--help'), unknown: await npmRun(script, '--no-such-option') });
    }
  };
  const inProcess = async () => {
    for (const script of SCRIPTS.filter((name) => !THROUGH_NPM.includes(name))) {
      answers.set(script, { help: await runScriptInProcess(script, '--help'), unknown: await runScriptInProcess(script, '--no-such-option') });
    }
  };
  await Promise.all([worker(), worker(), inProcess()]);
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
