/**
 * @module `npm run bench:asn-cold`: how long the first ASN answers of a fresh paid isolate take, the Workers
 * cache empty: the first reads the current record, the ASN object's index and one block from R2; the
 * same ASN again answers from the block the isolate keeps; an ASN of another block reads that block.
 * Each in a fresh workerd process (the whole `de` app through Miniflare, its R2 on local disk), medians
 * of `--runs`. CPU per request under load, warm and cold, is `bench:ab`'s (rows `asn`, `asnCache`, `asnLarge`).
 *
 *     npm run bench:asn-cold -- [--runs 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASE_FILE } from '../data/build.ts';
import { parseCommandLine } from '../data/command-line.ts';
import { seedPaidAccount } from './http.ts';
import { median } from './stats.ts';
import { buildBundle, seedDatabase, startDeployment } from './worker/deployment.ts';

const line = parseCommandLine(process.argv.slice(2), {
  command: 'npm run bench:asn-cold',
  usage:
    'usage: npm run bench:asn-cold -- [--runs N]\n\nThe first ASN answers of fresh paid isolates, the Workers cache empty: milliseconds, medians of N runs (default 5).',
  options: { runs: { type: 'string', default: '5' } },
});
if (typeof line === 'number') process.exit(line);

/** The answers timed, in order: a typical ASN (AS15169, one block), the same again, another ASN of another block (AS13335). */
const STEPS = [
  ['first answer: record, index and block from R2', '/api/asn/15169'],
  ['the same ASN again: the kept block', '/api/asn/15169'],
  ['an ASN of another block: that block from R2', '/api/asn/13335'],
] as const;

const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-asn-cold-'));
const bundle = buildBundle('de', join(work, 'bundle'));
const times: number[][] = STEPS.map(() => []);
try {
  for (let run = 0; run < Number(line.values.runs); run++) {
    const deployment = await startDeployment('de', bundle, join(work, `state-${run}`));
    try {
      await seedDatabase(deployment, DATABASE_FILE);
      const credential = await seedPaidAccount(deployment);
      if (!('authorization' in credential)) throw new Error(credential.pending);
      for (const [i, [, path]] of STEPS.entries()) {
        const started = performance.now();
        const response = await fetch(new URL(path, deployment.url), { headers: { Authorization: credential.authorization } });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
        times[i]?.push(performance.now() - started);
      }
    } finally {
      await deployment.dispose();
    }
  }
  for (const [i, [what]] of STEPS.entries()) {
    const runs = times[i] ?? [];
    console.log(`${what}: median ${median(runs).toFixed(1)} ms  runs ${runs.map((ms) => ms.toFixed(1)).join(' ')}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
