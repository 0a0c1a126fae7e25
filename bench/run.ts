/**
 * @module `npm run bench`: every benchmark, one table, and `BENCHMARKS.md` rewritten with it.
 *
 * Each part runs in a Node process of its own (so that one's heap does not weigh on the next), bounded
 * in time; a part that fails or overruns is reported as such in the table and the others still run.
 * How long the last whole run took is in BENCHMARKS.md ("Measured"); most of it is the distant R2's
 * two switches, the build of 3 shards and the CPU of those shards, the database build (`npm run
 * data:build`, run first by the npm script when it is missing) not included.
 *
 * It also writes the run's figures as `BENCHMARKS.json`, and from them the costs of docs/costs.md
 * (`costs.ts`), which `npm run bench:costs` computes again after a price change without measuring.
 *
 *     npm run bench -- [--quick]      --quick: fewer and shorter runs, for trying the scripts out
 *     npm run bench -- --parts http,shardsPaidCpu,operations --shards-dir DIR
 *                                     only those parts (BENCHMARKS.md is then left as it is), with a
 *                                     sharded build made before instead of the shards part's
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseCommandLine } from '../data/command-line.ts';
import { NOT_RUN, writeCosts } from './costs.ts';
import { describeMachine, revision } from './machine.ts';
import { benchmarksMarkdown, type Results, table } from './report.ts';
import { ROOT } from './worker/deployment.ts';

const USAGE = `usage: npm run bench -- [--quick] [--parts LIST [--shards-dir DIR]]

Runs every benchmark (BENCHMARKS.md says how long its last run took), prints one table and rewrites BENCHMARKS.md with it,
BENCHMARKS.json with the figures, and the costs of docs/costs.md from them.
  --quick           fewer and shorter runs, for trying the scripts out
  --parts LIST      only these parts, comma-separated (BENCHMARKS.md is not rewritten then)
  --shards-dir DIR  a build of 3 shards made before, for the parts that serve one when shards does not run`;

const line = parseCommandLine(process.argv.slice(2), {
  command: 'npm run bench',
  usage: USAGE,
  options: { quick: { type: 'boolean', default: false }, parts: { type: 'string' }, 'shards-dir': { type: 'string' } },
});
if (typeof line === 'number') process.exit(line);
const { values } = line;
const quick = values.quick;

const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-'));
/** Where the `shards` part builds 3 shards, which `shardsCpu`, `shardsPaidCpu` and `operations` then serve. */
const SHARDS_DIR = values['shards-dir'] ? resolve(process.env.INIT_CWD ?? process.cwd(), values['shards-dir']) : join(work, 'shards-3');
const SHARD_CPU_ROWS = ['--rows', 'trivial,single,bulk', '--rounds', quick ? '1' : '3', '--seconds', quick ? '2' : '3'];

/** The parts: script, arguments, and the most seconds each may take. */
const PARTS = {
  lookup: ['bench/lookup.ts', quick ? ['--runs', '2'] : ['--runs', '5'], 300],
  // Six rounds of 3 s (each after 0.5 s unmeasured) rather than five of 4 s: about the same time, and a
  // median of more pairs of rounds close in time.
  http: ['bench/http.ts', quick ? ['--rounds', '1', '--seconds', '2'] : ['--rounds', '6', '--seconds', '3'], 420],
  profile: ['bench/profile.ts', quick ? ['--seconds', '2'] : ['--seconds', '4'], 180],
  cold: ['bench/cold-start.ts', quick ? ['--starts', '2'] : ['--starts', '9'], 150],
  // R2 far away: a cold start and a switch with the Workers cache off, then on (about a minute and a
  // half). The sweep of bucket speeds (`npm run bench:cold -- --sweep`) is a run of its own.
  distant: ['bench/cold-start.ts', ['--r2-latency-ms', '150', '--r2-mbps', '25'], 420],
  memory: ['bench/memory.ts', quick ? ['--lookups', '20000'] : [], 300],
  // 3 shards of the default sources built (about 3 minutes) and every answer compared with the one file's
  // (docs/sharding.md, "What serving costs").
  shards: ['bench/sharded-answers.ts', [...(quick ? ['--ipv4', '5000', '--ipv6', '5000'] : []), '--build', '3', '--out', SHARDS_DIR], 600],
  // The CPU per request of those 3 shards against one file (lookup-only Workers, bench:ab), then of one
  // file behind the same hops with nothing in them: what a sharded lookup cannot go below.
  shardsCpu: ['bench/ab.ts', ['--b-shards', SHARDS_DIR, ...SHARD_CPU_ROWS], 300],
  hopsCpu: ['bench/ab.ts', ['--b-hops', '3', ...SHARD_CPU_ROWS], 300],
  // The costs (docs/costs.md): a paid lookup through those 3 shards with the whole app (usage counted) against one file,
  shardsPaidCpu: ['bench/ab.ts', ['--app', '--b-shards', SHARDS_DIR, '--rows', 'paid', '--rounds', quick ? '1' : '3', '--seconds', quick ? '2' : '3'], 300],
  // and the billable operations of each kind of request, counted under load.
  operations: ['bench/operations.ts', ['--shards', SHARDS_DIR, '--seconds', quick ? '2' : '5'], 300],
} as const satisfies Record<string, readonly [string, readonly string[], number]>;

const started = performance.now();
const machine = describeMachine();

const chosen = values.parts?.split(',');
for (const name of chosen ?? []) if (!(name in PARTS)) throw new Error(`no part ${name}; parts are ${Object.keys(PARTS).join(', ')}`);

/**
 * Runs one part in its own process group; its JSON result, or the reason it has none. The whole group
 * goes when the part ends or overruns: a part's workerd processes would otherwise outlive it and hold
 * their ports, so that the parts after it fail.
 */
async function run(name: keyof typeof PARTS): Promise<unknown> {
  if (chosen && !chosen.includes(name)) return NOT_RUN;
  const [script, args, limit] = PARTS[name];
  const out = join(work, `${name}.json`);
  console.log(`\n▶ ${name} (${script} ${args.join(' ')}, at most ${limit} s)`);
  const partStarted = performance.now();
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, ...args, '--json', out], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  });
  const killGroup = (): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group has ended already.
    }
  };
  let overran = false;
  const timer = setTimeout(() => {
    overran = true;
    killGroup();
  }, limit * 1000);
  const [status, error] = await new Promise<[number | null, Error | undefined]>((done) => {
    child.once('error', (failure) => done([null, failure]));
    child.once('exit', (code) => done([code, undefined]));
  });
  clearTimeout(timer);
  killGroup();
  if (error || overran || status !== 0 || !existsSync(out)) {
    const why = error?.message ?? (overran ? `stopped after ${limit} s` : `exit status ${status}`);
    console.error(`✖ ${name}: ${why}`);
    return why;
  }
  console.log(`◀ ${name}: ${((performance.now() - partStarted) / 1000).toFixed(0)} s`);
  return JSON.parse(readFileSync(out, 'utf8'));
}

try {
  const results: Results = {
    machine,
    revision: revision(),
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    seconds: 0,
    lookup: (await run('lookup')) as Results['lookup'],
    http: (await run('http')) as Results['http'],
    profile: (await run('profile')) as Results['profile'],
    cold: (await run('cold')) as Results['cold'],
    distant: (await run('distant')) as Results['distant'],
    memory: (await run('memory')) as Results['memory'],
    shards: (await run('shards')) as Results['shards'],
    shardsCpu: (await run('shardsCpu')) as Results['shardsCpu'],
    hopsCpu: (await run('hopsCpu')) as Results['hopsCpu'],
    shardsPaidCpu: (await run('shardsPaidCpu')) as Results['shardsPaidCpu'],
    operations: (await run('operations')) as Results['operations'],
  };
  const done = { ...results, seconds: (performance.now() - started) / 1000 };
  // The figures the costs are computed from, kept so that `npm run bench:costs` can compute them again.
  writeFileSync(join(ROOT, 'BENCHMARKS.json'), `${JSON.stringify(done, null, 2)}\n`);
  if (!chosen) {
    const file = join(ROOT, 'BENCHMARKS.md');
    writeFileSync(file, benchmarksMarkdown(done, existsSync(file) ? readFileSync(file, 'utf8') : undefined));
  }
  console.log(`\n${table(done)}\n`);
  console.log(
    chosen ? `Parts ${chosen.join(', ')}: written to BENCHMARKS.json; BENCHMARKS.md left as it is.` : 'Written to BENCHMARKS.md and BENCHMARKS.json.',
  );
  // Last, so that a document without its markers costs no measured figure: they are saved above.
  try {
    writeCosts(done);
    console.log(`Costs written to docs/costs.md (${done.seconds.toFixed(0)} s).`);
  } catch (error) {
    console.error(`✖ costs: ${(error as Error).message}; npm run bench:costs writes them from BENCHMARKS.json`);
    process.exitCode = 1;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
