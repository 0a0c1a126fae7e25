/**
 * @module Runs an npm script's program in the test's own process, as `npm run <script> -- …args` would
 * start it: for a script whose command is `tsx [node flags] FILE [ARGUMENTS]`, the file is imported
 * afresh with `process.argv` and `npm_lifecycle_event` as npm and tsx set them, and its exit code and
 * output are caught. For command lines that stop early (`--help`, a malformed line): a program that goes
 * on to serve or to build does so here too. Node flags are not applied. Runs one at a time: it swaps
 * process-wide state (`process.argv`, `process.exit`, the console) while the program starts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import { vi } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** The `scripts` of package.json, by name. */
export const PACKAGE_SCRIPTS: Readonly<Record<string, string>> = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** What a run of a script gave: its exit code and everything it wrote. */
export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The program and leading arguments of `script` when its command is `tsx [--node-flag …] FILE
 * [ARGUMENT …]` (no shell syntax); undefined for any other command.
 */
function scriptCommand(script: string): { file: string; args: string[] } | undefined {
  const command = PACKAGE_SCRIPTS[script];
  if (command === undefined || /[&|;<>$`'"\\]/.test(command)) return undefined;
  const [program, ...words] = command.split(/\s+/);
  if (program !== 'tsx') return undefined;
  const at = words.findIndex((word) => !word.startsWith('-'));
  const file = words[at];
  if (at < 0 || file === undefined || !file.endsWith('.ts')) return undefined;
  return { file, args: words.slice(at + 1) };
}

/** What the program asked `process.exit` for, thrown so that it stops where it would have ended. */
class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

/**
 * Starts `script`'s program in this process with `args` after its own, and resolves once it has exited
 * (`process.exit`) or finished starting (its module evaluated, and the promise its entry set
 * `process.exitCode` from settled, which takes no I/O for a line it refuses or a `--help`).
 *
 * @throws Error when `script`'s command is not one {@link scriptCommand} reads, or when the program
 *   throws (the error as thrown).
 */
export async function runScriptInProcess(script: string, ...args: string[]): Promise<ScriptRun> {
  const command = scriptCommand(script);
  if (command === undefined) throw new Error(`npm run ${script} runs ${JSON.stringify(PACKAGE_SCRIPTS[script])}, not one program through tsx`);
  const file = join(ROOT, command.file);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const saved = { argv: process.argv, event: process.env.npm_lifecycle_event, exitCode: process.exitCode };
  process.argv = [process.execPath, file, ...command.args, ...args];
  process.env.npm_lifecycle_event = script;
  process.exitCode = undefined;
  const spies = [
    vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void stdout.push(`${format(...parts)}\n`)),
    vi.spyOn(console, 'info').mockImplementation((...parts: unknown[]) => void stdout.push(`${format(...parts)}\n`)),
    vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => void stderr.push(`${format(...parts)}\n`)),
    vi.spyOn(console, 'warn').mockImplementation((...parts: unknown[]) => void stderr.push(`${format(...parts)}\n`)),
    vi.spyOn(process, 'exit').mockImplementation((code) => {
      throw new ExitCalled(Number(code ?? process.exitCode ?? 0));
    }),
  ];
  try {
    // A fresh copy of the program and of our modules it imports (packages stay loaded).
    vi.resetModules();
    let code: number;
    try {
      await import(file);
      // An entry that awaits its main without a top-level await sets the exit code a few turns later.
      await new Promise((resolve) => setImmediate(resolve));
      code = Number(process.exitCode ?? 0);
    } catch (error) {
      if (!(error instanceof ExitCalled)) throw error;
      code = error.code;
    }
    return { code, stdout: stdout.join(''), stderr: stderr.join('') };
  } finally {
    for (const spy of spies) spy.mockRestore();
    process.argv = saved.argv;
    if (saved.event === undefined) delete process.env.npm_lifecycle_event;
    else process.env.npm_lifecycle_event = saved.event;
    process.exitCode = saved.exitCode;
  }
}
