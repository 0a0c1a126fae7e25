/**
 * @module A {@link VersionBucket} that runs `wrangler r2 object get|put|delete`: the local R2 of
 * `wrangler dev` (`.wrangler/state`, or `--persist-to`), or with `remote` a deployment's real bucket
 * (wrangler's own login or `CLOUDFLARE_API_TOKEN`/`CLOUDFLARE_ACCOUNT_ID`).
 */
import { execFile } from 'node:child_process';
import { PublishError, type VersionBucket } from './record.ts';

/** Where a wrangler bucket is. */
export interface WranglerTarget {
  /** The wrangler environment (`free`, `de`, …): selects the deployment's configuration. */
  readonly environment: string;
  /** The R2 bucket's name, from the environment's `GEO_DATA` binding. */
  readonly bucket: string;
  /** Cloudflare's R2 rather than the local one of `wrangler dev`. */
  readonly remote: boolean;
  /** The local state directory, when not wrangler's default `.wrangler/state`. */
  readonly persistTo?: string;
}

/** A bucket of wrangler's: the publishing steps, and an object fetched into a file (`data:diff` reads a deployment's current version so). */
export interface WranglerBucket extends VersionBucket<string> {
  /** Writes the object `key` into `file`. @throws PublishError when it is missing or wrangler fails. */
  getFile(key: string, file: string): Promise<void>;
}

/**
 * The bucket of `target`; bodies are file paths. Each operation is one wrangler run (about 2 s), run
 * without blocking the caller's event loop (`bench:switch` keeps its load going meanwhile).
 */
export function wranglerBucket(target: WranglerTarget): WranglerBucket {
  const where = [target.remote ? '--remote' : '--local', '--env', target.environment, ...(target.persistTo ? ['--persist-to', target.persistTo] : [])];
  const run = (args: string[], input?: string) =>
    new Promise<{ ok: boolean; stdout: string; stderr: string }>((resolve) => {
      const child = execFile('npx', ['wrangler', 'r2', 'object', ...args, ...where], { encoding: 'utf8', maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
        // An exit status other than 0 is in stderr; a run that could not start or overflowed only in the error.
        const why = error && typeof error.code !== 'number' ? error.message : '';
        resolve({ ok: error === null, stdout, stderr: `${stderr}${why}` });
      });
      child.stdin?.end(input);
    });
  const path = (key: string) => `${target.bucket}/${key}`;
  const failed = (what: string, stderr: string) => new PublishError(`${target.bucket}: wrangler r2 object ${what} failed: ${lastError(stderr)}`);
  return {
    name: `${target.bucket} (${target.remote ? 'remote' : 'local'})`,
    async getText(key) {
      const result = await run(['get', path(key), '--pipe']);
      if (result.ok) return result.stdout;
      if (/specified key does not exist|NoSuchKey/i.test(result.stderr)) return null;
      throw failed(`get ${key}`, result.stderr);
    },
    async getFile(key, file) {
      const result = await run(['get', path(key), '--file', file]);
      if (!result.ok) throw failed(`get ${key}`, result.stderr);
    },
    async putText(key, text) {
      const result = await run(['put', path(key), '--pipe', '--content-type', 'application/json'], text);
      if (!result.ok) throw failed(`put ${key}`, result.stderr);
    },
    async putObject(key, file) {
      const result = await run(['put', path(key), '--file', file, '--content-type', 'application/octet-stream']);
      if (!result.ok) throw failed(`put ${key}`, result.stderr);
    },
    async delete(key) {
      const result = await run(['delete', path(key)]);
      if (!result.ok) throw failed(`delete ${key}`, result.stderr);
    },
  };
}

/** Terminal colour codes (ESC [ … m). */
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** Wrangler's own words, without its colours, log-file hints and npm's warnings. */
function lastError(stderr: string): string {
  const lines = stderr
    .replace(ANSI_COLOUR, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('npm warn') && !line.includes('Logs were written'));
  return lines.find((line) => line.includes('ERROR')) ?? lines.at(-1) ?? 'no message';
}
