/** @module Reads repository files from workerd tests through the `REPO_FILES` service binding. */
import { env } from 'cloudflare:workers';

/** The bytes of a file under the repository root (see `test/support/repo-files.ts` for what is served). */
export async function repoFile(path: string): Promise<ArrayBuffer> {
  const response = await (env as unknown as { REPO_FILES: Fetcher }).REPO_FILES.fetch(`http://repo/${path}`);
  if (!response.ok) throw new Error(`REPO_FILES ${path}: ${response.status} ${await response.text()}`);
  return response.arrayBuffer();
}
