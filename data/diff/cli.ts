/**
 * @module `npm run data:diff -- OLD NEW`: compares two builds, each data object of a version (`report.ts`),
 * prints the table, and exits {@link OVER_THRESHOLDS} when a measure crosses its threshold
 * (`thresholds.ts`) or NEW is broken. A build is a folder, manifest or database file on disk, or
 * `bucket:ENV`, the version a deployment's bucket serves (local R2, or Cloudflare's with `--remote`).
 *
 *     npm run data:diff -- bucket:de data/out --remote --summary "$GITHUB_STEP_SUMMARY"
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLineError, parseCommandLine } from '../command-line.ts';
import { PublishError } from '../publish/record.ts';
import { wranglerBucket } from '../publish/wrangler-bucket.ts';
import { buildOnDisk, type ComparedBuild, currentBuild, DiffError } from './builds.ts';
import { OVER_THRESHOLDS } from './gate.ts';
import { diffBuilds, diffTable } from './report.ts';

const COMMAND = 'npm run data:diff';
const USAGE = `usage: npm run data:diff -- OLD NEW [--json FILE] [--summary FILE] [--remote] [--persist-to DIR]

Compares two builds: over every address either answers (the verdict), and beside it on a fixed sample
of 1,048,576 addresses and the well-known networks, the share whose country, region, city, coordinates
(over 50 km), ASN, organisation, each flag and accuracy radius changed; over every network, those that
appeared and disappeared and those with the most changed addresses. Of their ASN objects: the sampled addresses whose ASN changed, the ASNs that
appeared, disappeared, were renamed or gained most, the totals, where sampled ASNs' addresses are; and
whether NEW's ASN object agrees with its database. Exits 0 within every threshold, ${OVER_THRESHOLDS} over one or
when NEW is broken (docs/operations.md, "The diff gate").
  OLD, NEW          a build: its folder (data/out), manifest or database file; or bucket:ENV, the version
                    the R2 bucket of the deployment ENV serves
  --json FILE       also write the report as JSON
  --summary FILE    append the table to FILE (the workflow's $GITHUB_STEP_SUMMARY)
  --remote          bucket:ENV is Cloudflare's R2, not the local one of wrangler dev
  --persist-to DIR  the local state directory, when not .wrangler/state`;

/** Where a bucket operand's files are fetched, and how to open either kind of operand. */
interface Opener {
  readonly remote: boolean;
  readonly persistTo?: string;
  readonly dir: string;
}

/** Opens an operand: `bucket:ENV`, or a path. @throws DiffError, PublishError. */
async function open(operand: string, opener: Opener): Promise<ComparedBuild> {
  const environment = /^bucket:(.+)$/.exec(operand)?.[1];
  if (environment === undefined) return buildOnDisk(resolve(operand));
  // Loaded only for a bucket: it reads wrangler.toml through wrangler, which takes seconds to load.
  const { bucketOf } = await import('../publish/cli.ts');
  const target = { environment, bucket: bucketOf(environment), remote: opener.remote };
  const bucket = wranglerBucket(opener.persistTo ? { ...target, persistTo: opener.persistTo } : target);
  let build: ComparedBuild | null;
  try {
    build = await currentBuild(bucket, mkdtempSync(join(opener.dir, `${environment}-`)));
  } finally {
    await bucket.dispose();
  }
  if (build === null) throw new DiffError(`${bucket.name}: nothing is published there`);
  return build;
}

async function main(argv: string[]): Promise<number> {
  const line = parseCommandLine(argv, {
    command: COMMAND,
    usage: USAGE,
    positionals: true,
    options: { json: { type: 'string' }, summary: { type: 'string' }, remote: { type: 'boolean' }, 'persist-to': { type: 'string' } },
  });
  if (typeof line === 'number') return line;
  const { values, positionals } = line;
  if (positionals.length !== 2) return commandLineError(COMMAND, `give two builds, OLD and NEW, not ${positionals.length}`);
  const [oldOperand, newOperand] = positionals as [string, string];
  const dir = mkdtempSync(join(tmpdir(), 'ipgeo-diff-'));
  try {
    const opener = { remote: values.remote ?? false, dir, ...(values['persist-to'] ? { persistTo: resolve(values['persist-to']) } : {}) };
    const started = Date.now();
    const report = diffBuilds(await open(oldOperand, opener), await open(newOperand, opener));
    const table = diffTable(report);
    console.log(table);
    console.log(`Compared in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
    if (values.summary) appendFileSync(values.summary, `${table}\n`);
    return report.breaches.length === 0 ? 0 : OVER_THRESHOLDS;
  } catch (error) {
    if (error instanceof DiffError || error instanceof PublishError) {
      console.error(`data:diff failed: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
