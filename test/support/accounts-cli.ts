/** @module Runs the operator tool (`operator/accounts.ts`) in this process on a temporary local KV state, as the CLI tests need it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { run } from '../../operator/accounts.ts';

/** What one run of the tool did: its exit status and its output and error lines. */
export interface AccountsRun {
  status: number;
  out: string[];
  err: string[];
}

/**
 * A temporary state directory (removed after the file's tests) and a runner of the tool on it.
 *
 * @param prefix names the directory, so that each test file's state is its own.
 */
export function accountsCli(prefix: string): { state: string; accounts: (...argv: string[]) => Promise<AccountsRun> } {
  const state = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(state, { recursive: true, force: true }));
  const accounts = async (...argv: string[]): Promise<AccountsRun> => {
    const out: string[] = [];
    const err: string[] = [];
    const status = await run([...argv, '--persist-to', state], { out: (line) => out.push(...line.split('\n')), err: (line) => err.push(...line.split('\n')) });
    return { status, out, err };
  };
  return { state, accounts };
}
