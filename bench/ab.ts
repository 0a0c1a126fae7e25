/**
 * @module `npm run bench:ab`: is a change faster? Two builds of the same deployment side by side in one
 * run, A from this checkout and B from another one (a `git worktree` of the baseline) or with other
 * wrangler flags, their rows interleaved round by round (A first in even rounds, B first in odd ones),
 * so that the machine's drift falls on both. Figures between separate runs move by 5–10% on a shared
 * machine; a same-run ratio is what decides whether a change is kept.
 *
 *     git worktree add /tmp/base HEAD~1 && ln -s "$PWD/node_modules" /tmp/base/node_modules
 *     npm run bench:ab -- --b-dir /tmp/base [--env de|free] [--rows trivial,single,bulk] [--rounds 5]
 *     npm run bench:ab -- --b-args=--minify
 *
 * `--env de` runs the lookup-only bundle (`worker/lookup-only.js`, rows `trivial`, `single`, `xml`,
 * `bulk`); `--env free` the free deployment (rows `trivial`, `free`: a new client every 5 requests, as
 * in `http.ts`). Prints each row's requests per second per round, the ratio of each row to `trivial`
 * per round, and B/A of the medians.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon, { type AutocannonRequest } from 'autocannon';
import { DATABASE_FILE } from '../data/build.ts';
import { randomIpv4, randomIpv6 } from './addresses.ts';
import { median } from './stats.ts';
import { type Deployment, type Environment, seedDatabase, startDeployment } from './worker/deployment.ts';

const { values } = parseArgs({
  options: {
    'b-dir': { type: 'string' },
    'a-args': { type: 'string', default: '' },
    'b-args': { type: 'string', default: '' },
    env: { type: 'string', default: 'de' },
    rows: { type: 'string', default: 'trivial,single' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '4' },
  },
});
const environment = values.env as Environment;
if (environment !== 'de' && environment !== 'free') throw new Error('--env is de (the lookup-only bundle) or free');

/** Builds the bundle of `checkout` as `http.ts` does, with extra wrangler arguments. */
function build(checkout: string, outDir: string, extra: string): string {
  const entry = environment === 'de' ? ['bench/worker/lookup-only.js'] : [];
  const args = ['wrangler', 'deploy', ...entry, '--dry-run', '--outdir', outDir, '--env', environment, ...extra.split(' ').filter(Boolean)];
  execFileSync('npx', args, { cwd: checkout, stdio: ['ignore', 'ignore', 'inherit'] });
  const script = readdirSync(outDir).find((name) => name.endsWith('.js'));
  if (!script) throw new Error(`wrangler wrote no bundle into ${outDir}`);
  return join(outDir, script);
}

// The addresses of `http.ts`: five IPv4 then one IPv6, cycling through 120,000.
const ipv4 = randomIpv4(100_000, 11);
const ipv6 = randomIpv6(20_000, 12);
const addresses: string[] = [];
for (let i = 0; i < ipv6.length; i++) addresses.push(...ipv4.slice(i * 5, i * 5 + 5), ipv6[i] as string);
let next = 0;
const address = () => addresses[next++ % addresses.length] as string;
let client = 0;
const get = (path: string, headers: Record<string, string> = {}): AutocannonRequest => ({ method: 'GET', path, headers });
const ROWS: Record<string, () => AutocannonRequest> = {
  trivial: () => get('/health'),
  single: () => get(`/api/json/${address()}`),
  xml: () => get(`/api/xml/${address()}`),
  bulk: () => ({
    method: 'POST',
    path: '/api/bulk/json',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ips: Array.from({ length: 50 }, address) }),
  }),
  free: () => {
    const n = Math.floor(client++ / 5);
    return get(`/api/v1/json/${address()}`, { 'CF-Connecting-IP': `11.${(n >> 16) & 0xff}.${(n >> 8) & 0xff}.${n & 0xff}` });
  },
};
const rows = (values.rows as string).split(',');
for (const row of rows) if (!ROWS[row]) throw new Error(`no row ${row}; rows are ${Object.keys(ROWS).join(', ')}`);

function load(url: URL, row: string, seconds: number): Promise<number> {
  return new Promise((done, fail) => {
    autocannon(
      { url: url.href, connections: 10, duration: seconds, requests: [{ setupRequest: (request) => ({ ...request, ...ROWS[row]?.() }) }] },
      (error, result) => (error ? fail(error) : done(result.requests.average)),
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
for (const name of ['A', 'B'] as const) {
  const bundle = build(variants[name].checkout, join(work, `bundle-${name}`), variants[name].args);
  const deployment = await startDeployment(environment, bundle, join(work, `state-${name}`));
  await seedDatabase(deployment, DATABASE_FILE);
  deployments.push([name, deployment]);
}
const byName = Object.fromEntries(deployments) as Record<'A' | 'B', Deployment>;
try {
  for (const [, deployment] of deployments) for (const row of rows) await load(deployment.url, row, 1);
  const perSecond: Record<string, number[]> = {};
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const row of rows) {
      for (const name of round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
        const figures = perSecond[`${name} ${row}`] ?? [];
        figures.push(await load(byName[name].url, row, Number(values.seconds)));
        perSecond[`${name} ${row}`] = figures;
      }
    }
  }
  for (const [key, figures] of Object.entries(perSecond)) {
    console.log(`${key.padEnd(12)} median ${median(figures).toFixed(0).padStart(6)} req/s  rounds ${figures.map((f) => f.toFixed(0)).join(' ')}`);
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
} finally {
  for (const [, deployment] of deployments) await deployment.dispose();
  rmSync(work, { recursive: true, force: true });
}
