/**
 * @module `npm run bench:ab`: is a change faster? Two builds of the same deployment side by side in one
 * run, A from this checkout and B from another one (a `git worktree` of the baseline) or with other
 * wrangler flags, their rows interleaved round by round (A first in even rounds, B first in odd ones),
 * so that the machine's drift falls on both. Figures between separate runs move by 5–10% on a shared
 * machine; a same-run ratio is what decides whether a change is kept.
 *
 *     git worktree add /tmp/base HEAD~1 && ln -s "$PWD/node_modules" /tmp/base/node_modules
 *     npm run bench:ab -- --b-dir /tmp/base [--env de|free] [--rows trivial,single,bulk] [--rounds 5]
 *     npm run bench:ab -- --b-dir /tmp/base --b-database /tmp/base/data/out/ipgeo.mmdb   (a baseline of another schema)
 *     npm run bench:ab -- --b-args=--minify
 *     npm run bench:ab -- --b-shards data/out/n3 --rows trivial,single,bulk   (N = 3 against N = 1)
 *     npm run bench:ab -- --b-hops 3 --rows trivial,single,bulk   (N = 1 plus the empty calls N = 3 makes)
 *     npm run bench:ab -- --app --b-dir /tmp/main --rows trivial,paid,paidBulk   (the whole paid app, usage counted)
 *     npm run bench:ab -- --app --b-no-cache --rows trivial,paid,asn,asnCache,asnLarge   (networks by ASN: the cache warm, and off)
 *
 * `--env de` runs the lookup-only bundle (`worker/lookup-only.js`, rows `trivial`, `single`, `xml`,
 * `options` (single with `?lang=de` and six `fields`), `all` (single with `?fields=all`), `bulk`,
 * `bulkAll` (bulk with `?fields=all`), `bulkJa` (bulk with `?lang=ja`)); with `--app`, the whole
 * `de` deployment instead (rows `paid` and `paidBulk`: a single and a bulk lookup with an API key, through
 * the access check and usage counting; rows `asn`, `asnCache` and `asnLarge`: `GET /api/asn/{asn}` of a typical ASN,
 * a few dozen prefixes, of the blocks the isolate keeps, then of every block, and a full page of one of the
 * ten largest, every block in the Workers cache first, `bench/asns.ts`); `--env free` the free deployment (rows `trivial`, `free`: a new client every 5 requests, as
 * in `http.ts`; `free6`: the same from IPv6 clients; `status`: the uncounted status endpoint; `home`: the home page `/?ip=` of the same addresses and clients). Prints each row's requests per second per round, the ratio of each row to `trivial`
 * per round, and B/A of the medians; then the same for the workerd process's CPU time per request,
 * and the median over rounds of each row's CPU per request over its own build's trivial row.
 *
 * How far to trust it: two identical builds (an A/A run, 5 rounds) came out up to 5% apart in requests
 * per second and 3.5% in CPU per request, and a process can be favoured for a whole run. A smaller
 * difference needs more rounds and a second run with A and B swapped (run this script from the other
 * checkout: `cd /tmp/base && npx tsx "$OLDPWD/bench/ab.ts" --b-dir "$OLDPWD"`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon, { type AutocannonRequest } from 'autocannon';
import { DATABASE_FILE } from '../data/build.ts';
import { commandLineError, parseCommandLine } from '../data/command-line.ts';
import { addressCycle, clientCycle } from './addresses.ts';
import { askEveryBlock, asnPaths as asnSample, pathCycle } from './asns.ts';
import { BULK_SIZE, OPTIONS_QUERY, REQUESTS_PER_CLIENT, seedPaidAccount } from './http.ts';
import { median } from './stats.ts';
import {
  buildBundle,
  buildShardBundle,
  cpuSeconds,
  type Deployment,
  type Environment,
  type StartOptions,
  seedDatabase,
  seedShards,
  startDeployment,
} from './worker/deployment.ts';

const USAGE = `usage: npm run bench:ab -- [--b-dir DIR] [--a-args ARGS] [--b-args ARGS] [--env de|free] [--rows LIST] [--rounds N] [--seconds S] [--json FILE]

Two builds side by side in one run, rows interleaved round by round: A from this checkout, B from
another checkout or with other wrangler flags. Prints requests per second, CPU per request, and B/A.
  --b-dir DIR    the checkout of build B, e.g. a git worktree of the baseline (default: this one)
  --a-args ARGS  extra wrangler arguments for build A, e.g. --a-args=--minify
  --b-args ARGS  extra wrangler arguments for build B
  --env de|free  de: the lookup-only bundle (rows trivial, single, xml, options, all, bulk, bulkAll, bulkJa);
                 free: the free deployment (rows trivial, free, free6, status, home) (default de)
  --rows LIST    comma-separated rows (default trivial,single)
  --rounds N     rounds (default 5)
  --seconds S    length of each row in a round (default 4)
  --b-shards DIR build B as the app with a shard Worker per shard of the sharded build in DIR
                 (data:build -- --shards N --out DIR), e.g. N = 3 against A's N = 1 (--env de only)
  --a-shards DIR the same for A (two sharded builds against each other)
  --b-database FILE  the database B serves (default A's, data/out/ipgeo.mmdb): a baseline of another
                 schema serves a build of its own checkout's (there: npm run data:build)
  --json FILE    also write each row's median CPU per request of A and B, and B/A, as JSON (for npm run bench)
  --app          --env de: the whole de deployment instead of the lookup-only bundle, each build with
                 an account and API key of its own; rows paid and paidBulk (a single and a bulk of 50
                 with the key: access check and usage counting), asn, asnCache and asnLarge (networks
                 by ASN: a typical ASN from the blocks the isolate keeps, or from the Workers cache, a
                 full page of a large one) beside trivial
  --b-no-cache   build B with the Workers cache off, as on *.workers.dev: every ASN answer reads R2
  --b-hops N     build B as A's Worker that first calls N bench Workers with Workers RPC, calls that
                 carry and do nothing: one per lookup, N per bulk lookup, as N shards would; what
                 the hops alone cost, the least a sharded lookup can (bench/worker/empty-hops.js; --env de only)`;

/** What `--json` writes: per row, the median over rounds of the CPU per request of A and B (µs), and B/A. */
export interface AbFigures {
  readonly rounds: number;
  readonly rows: readonly { readonly row: string; readonly a: number; readonly b: number; readonly ratio: number }[];
}

const line = parseCommandLine(process.argv.slice(2), {
  command: 'npm run bench:ab',
  usage: USAGE,
  options: {
    'b-dir': { type: 'string' },
    'a-args': { type: 'string', default: '' },
    'b-args': { type: 'string', default: '' },
    env: { type: 'string', default: 'de' },
    rows: { type: 'string', default: 'trivial,single' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '4' },
    'a-shards': { type: 'string' },
    'b-shards': { type: 'string' },
    'b-database': { type: 'string' },
    'b-hops': { type: 'string' },
    app: { type: 'boolean', default: false },
    'b-no-cache': { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
if (typeof line === 'number') process.exit(line);
const { values } = line;
const environment = values.env as Environment;
if (environment !== 'de' && environment !== 'free')
  process.exit(commandLineError('npm run bench:ab', `--env is de (the lookup-only bundle) or free, not '${environment}'`));

const wholeApp = values.app as boolean;
if (wholeApp && environment !== 'de') process.exit(commandLineError('npm run bench:ab', '--app runs with --env de'));

/** Builds the bundle of `checkout` as `http.ts` does (or of another bench entry), with extra wrangler arguments. */
function build(checkout: string, outDir: string, extra: string, entry = environment === 'de' && !wholeApp ? 'bench/worker/lookup-only.js' : undefined): string {
  return buildBundle(environment, outDir, entry, { checkout, wranglerArgs: extra.split(' ').filter(Boolean) });
}

// The addresses and free-plan clients of `http.ts`.
const address = addressCycle(20_000, 11, 12);
/** The ASNs of the `asn` and `asnLarge` rows, each a cycle. */
const asnPaths = wholeApp ? asnSample(join(process.cwd(), 'data', 'out')) : { kept: [], typical: [], large: [], everyBlock: [] };
const keptAsn = pathCycle(asnPaths.kept);
const typicalAsn = pathCycle(asnPaths.typical);
const largeAsn = pathCycle(asnPaths.large);
const freeClient = clientCycle(REQUESTS_PER_CLIENT);
const freeIpv6Client = clientCycle(REQUESTS_PER_CLIENT, 6);
const get = (path: string, headers: Record<string, string> = {}): AutocannonRequest => ({ method: 'GET', path, headers });
/** A row's next request; `authorization` is the API key of the deployment it goes to (`--app`). */
const ROWS: Record<string, (authorization: string) => AutocannonRequest> = {
  trivial: () => get('/health'),
  single: () => get(`/api/json/${address()}`),
  xml: () => get(`/api/xml/${address()}`),
  // The option row (docs/hot-path.md, "The targets"): German names, six fields.
  options: () => get(`/api/json/${address()}?${OPTIONS_QUERY}`),
  // Every field: the twenty, then the flags, radius, network, EU and local time (docs/api.md).
  all: () => get(`/api/json/${address()}?fields=all`),
  bulk: () => ({
    method: 'POST',
    path: '/api/bulk/json',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ips: Array.from({ length: BULK_SIZE }, address) }),
  }),
  bulkAll: () => ({
    method: 'POST',
    path: '/api/bulk/json?fields=all',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ips: Array.from({ length: BULK_SIZE }, address) }),
  }),
  bulkJa: () => ({
    method: 'POST',
    path: '/api/bulk/json?lang=ja',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ips: Array.from({ length: BULK_SIZE }, address) }),
  }),
  free: () => get(`/api/v1/json/${address()}`, { 'CF-Connecting-IP': freeClient() }),
  free6: () => get(`/api/v1/json/${address()}`, { 'CF-Connecting-IP': freeIpv6Client() }),
  // Not counted: what the free plan's gate costs a request it lets through.
  status: () => get('/api/v1/status', { 'CF-Connecting-IP': freeClient() }),
  // The free home page of the same lookup (docs/home-page.md): its cost beside `free` in one run.
  home: () => get(`/?ip=${address()}`, { 'CF-Connecting-IP': freeClient() }),
  // The whole paid app (`--app`): the access check and usage counting in front of the lookups.
  paid: (authorization) => get(`/api/json/${address()}`, { Authorization: authorization }),
  paidBulk: (authorization) => ({
    method: 'POST',
    path: '/api/bulk/json',
    headers: { 'content-type': 'application/json', Authorization: authorization },
    body: JSON.stringify({ ips: Array.from({ length: BULK_SIZE }, address) }),
  }),
  // Networks by ASN (`--app`, `bench/asns.ts`), the Workers cache filled first: typical ASNs (a few dozen prefixes)
  // of as many blocks as the isolate keeps; typical ASNs of every block; full pages of the largest.
  asn: (authorization) => get(keptAsn(), { Authorization: authorization }),
  asnCache: (authorization) => get(typicalAsn(), { Authorization: authorization }),
  asnLarge: (authorization) => get(largeAsn(), { Authorization: authorization }),
};
const rows = (values.rows as string).split(',');
for (const row of rows) if (!ROWS[row]) throw new Error(`no row ${row}; rows are ${Object.keys(ROWS).join(', ')}`);

/** One round of `row`: requests per second, the workerd process's CPU microseconds per request, the p50 latency (ms) and the answers not 2xx. */
function load(deployment: Deployment, row: string, seconds: number): Promise<{ perSecond: number; cpu: number; p50: number; non2xx: number }> {
  const before = cpuSeconds(deployment.pid);
  return new Promise((done, fail) => {
    autocannon(
      {
        url: deployment.url.href,
        connections: 10,
        duration: seconds,
        requests: [{ setupRequest: (request) => ({ ...request, ...ROWS[row]?.(authorizations.get(deployment) ?? '') }) }],
      },
      (error, result) =>
        error
          ? fail(error)
          : done({
              perSecond: result.requests.average,
              cpu: ((cpuSeconds(deployment.pid) - before) * 1e6) / result.requests.total,
              p50: result.latency.p50,
              non2xx: result.non2xx,
            }),
    );
  });
}

const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-ab-'));
const variants = {
  A: { checkout: process.cwd(), args: values['a-args'] as string },
  B: { checkout: values['b-dir'] ?? process.cwd(), args: values['b-args'] as string },
};
// One after another: startDeployment tells its workerd process from the processes spawned since its call.
const deployments: (readonly ['A' | 'B', Deployment])[] = [];
/** Each deployment's API key (`--app`). */
const authorizations = new Map<Deployment, string>();
/** The sharded build `dir` (`--a-shards`, `--b-shards`), with its number of shards. */
const shardedBuild = (dir: string | undefined) =>
  dir === undefined ? undefined : { dir, count: (JSON.parse(readFileSync(join(dir, 'ipgeo.manifest.json'), 'utf8')) as { shards: unknown[] }).shards.length };
const shardedBuilds = { A: shardedBuild(values['a-shards'] as string | undefined), B: shardedBuild(values['b-shards'] as string | undefined) };
const hops = values['b-hops'] === undefined ? 0 : Number(values['b-hops']);
if ((shardedBuilds.A || shardedBuilds.B || hops > 0) && environment !== 'de')
  process.exit(commandLineError('npm run bench:ab', '--a-shards, --b-shards and --b-hops run with --env de'));
if (values['b-hops'] !== undefined && !(Number.isInteger(hops) && hops >= 1))
  process.exit(commandLineError('npm run bench:ab', `--b-hops is a whole number of 1 or more, not '${values['b-hops']}'`));
/** A variant's shard Workers, or the Workers B's empty calls reach, if any. */
function shardsOf(name: 'A' | 'B'): StartOptions['shards'] {
  const sharded = shardedBuilds[name];
  const { checkout } = variants[name];
  if (sharded) return { bundle: buildShardBundle(environment, join(work, `shard-${name}`), sharded.count, checkout), count: sharded.count };
  if (name === 'B' && hops > 0)
    return { bundle: build(checkout, join(work, 'hop'), '', 'bench/worker/empty-hop.js'), count: hops, binding: 'HOP', entrypoint: 'Hop' };
  return undefined;
}
for (const name of ['A', 'B'] as const) {
  const entry = name === 'B' && hops > 0 ? 'bench/worker/empty-hops.js' : undefined;
  const bundle = build(variants[name].checkout, join(work, `bundle-${name}`), variants[name].args, entry);
  const shards = shardsOf(name);
  const cacheOff = name === 'B' && values['b-no-cache'] === true ? { cache: false } : {};
  const deployment = await startDeployment(environment, bundle, join(work, `state-${name}`), { ...(shards ? { shards } : {}), ...cacheOff });
  const sharded = shardedBuilds[name];
  if (sharded) await seedShards(deployment, sharded.dir);
  else await seedDatabase(deployment, name === 'B' ? (values['b-database'] ?? DATABASE_FILE) : DATABASE_FILE);
  if (wholeApp) {
    const credential = await seedPaidAccount(deployment);
    if (!('authorization' in credential)) throw new Error(`build ${name}: ${credential.pending}`);
    authorizations.set(deployment, credential.authorization);
    // Every block of the ASN object into the Workers cache (a build without it does nothing), as a location long in use has them.
    if (rows.some((row) => row.startsWith('asn'))) await askEveryBlock(deployment.url, credential.authorization, asnPaths);
  }
  deployments.push([name, deployment]);
}
const byName = Object.fromEntries(deployments) as Record<'A' | 'B', Deployment>;
try {
  for (const [, deployment] of deployments) for (const row of rows) await load(deployment, row, 1);
  const perSecond: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  const latency: Record<string, number[]> = {};
  const failed: Record<string, number> = {};
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const row of rows) {
      for (const name of round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
        const figures = await load(byName[name], row, Number(values.seconds));
        const key = `${name} ${row}`;
        perSecond[key] = [...(perSecond[key] ?? []), figures.perSecond];
        cpu[key] = [...(cpu[key] ?? []), figures.cpu];
        latency[key] = [...(latency[key] ?? []), figures.p50];
        failed[key] = (failed[key] ?? 0) + figures.non2xx;
      }
    }
  }
  for (const [key, figures] of Object.entries(perSecond)) {
    const p50 = median(latency[key] ?? []).toFixed(2);
    const non2xx = failed[key] ? `  non-2xx ${failed[key]}` : '';
    console.log(
      `${key.padEnd(12)} median ${median(figures).toFixed(0).padStart(6)} req/s  p50 ${p50} ms  rounds ${figures.map((f) => f.toFixed(0)).join(' ')}${non2xx}`,
    );
  }
  for (const name of ['A', 'B']) {
    for (const row of rows.filter((r) => r !== 'trivial' && rows.includes('trivial'))) {
      const ratios = (perSecond[`${name} ${row}`] as number[]).map((f, i) => f / ((perSecond[`${name} trivial`] as number[])[i] as number));
      console.log(`${name} ${row} / trivial: median ${(median(ratios) * 100).toFixed(1)}%  rounds ${ratios.map((r) => (r * 100).toFixed(0)).join(' ')}`);
    }
  }
  for (const row of rows) {
    console.log(`B/A ${row}: ${(median(perSecond[`B ${row}`] as number[]) / median(perSecond[`A ${row}`] as number[])).toFixed(3)}`);
  }
  // CPU time per request does not count the time the process waited for a core, so other work on the
  // machine moves it less than requests per second.
  for (const [key, figures] of Object.entries(cpu)) {
    console.log(`${key.padEnd(12)} CPU median ${median(figures).toFixed(1).padStart(6)} µs/request  rounds ${figures.map((f) => f.toFixed(0)).join(' ')}`);
  }
  for (const row of rows) {
    console.log(`CPU B/A ${row}: ${(median(cpu[`B ${row}`] as number[]) / median(cpu[`A ${row}`] as number[])).toFixed(3)}`);
  }
  // Each round's CPU per request over its own build's trivial row in the same round: what a build's
  // lookup adds to the runtime's own work, with the drift of the process and the machine divided out.
  for (const row of rows.filter((r) => r !== 'trivial' && rows.includes('trivial'))) {
    const over = (name: string) => median((cpu[`${name} ${row}`] as number[]).map((f, i) => f / ((cpu[`${name} trivial`] as number[])[i] as number)));
    console.log(`CPU ${row} / trivial: A ${over('A').toFixed(3)}  B ${over('B').toFixed(3)}  B/A ${(over('B') / over('A')).toFixed(3)}`);
  }
  // An ASN answer against a single lookup of the same app, round by round (docs/api.md, "Networks by ASN").
  for (const row of rows.filter((r) => r.startsWith('asn') && rows.includes('paid'))) {
    const over = (name: string) => median((cpu[`${name} ${row}`] as number[]).map((f, i) => f / ((cpu[`${name} paid`] as number[])[i] as number)));
    console.log(`CPU ${row} / paid: A ${over('A').toFixed(3)}  B ${over('B').toFixed(3)}`);
  }
  if (values.json) {
    const cpuOf = (name: string, row: string) => median(cpu[`${name} ${row}`] as number[]);
    const figures: AbFigures = {
      rounds: Number(values.rounds),
      rows: rows.map((row) => ({ row, a: cpuOf('A', row), b: cpuOf('B', row), ratio: cpuOf('B', row) / cpuOf('A', row) })),
    };
    writeFileSync(values.json as string, JSON.stringify(figures));
  }
} finally {
  for (const [, deployment] of deployments) await deployment.dispose();
  rmSync(work, { recursive: true, force: true });
}
