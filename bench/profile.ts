/**
 * @module `npm run bench:profile`: where a Worker request's time goes, from a CPU profile of the
 * workerd isolate under load (V8's sampling profiler through the DevTools protocol, which workerd
 * serves when Miniflare asks it to), not from guesses.
 *
 * For each route measured by `http.ts`, the bundle runs in a fresh workerd process, the route is
 * loaded for a few seconds unprofiled (JIT, caches), then for `--seconds` with the profiler on. Each
 * sample's function is mapped through the bundle's source map to its source file and put in a bucket
 * (our lookup, Hono, zod, the runtime's own work…); shares are of the samples in which the isolate
 * was busy.
 *
 *     npm run bench:profile -- [--seconds 4] [--warmup 3] [--rows "trivial;single JSON;…"] [--top 12] [--json FILE] [--save DIR]
 *
 * `--warmup` is the unprofiled load in seconds. The lookup rows' sample is 60,000 addresses, so a
 * warm-up of 3 s profiles their first pass, caches still filling; 25 s or more profiles the steady
 * state that `bench:http` measures.
 *
 * `--save DIR` also writes each route's raw profile as `DIR/<route>.cpuprofile`, which Chrome's
 * DevTools (Performance panel) and VS Code open.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonRequest } from 'autocannon';
import { DATABASE_FILE } from '../data/build.ts';
import { parseCommandLine } from '../data/command-line.ts';
import { addressCycle, clientCycle } from './addresses.ts';
import { asnPaths } from './asns.ts';
import { OPTIONS_QUERY, REQUESTS_PER_CLIENT, seedPaidAccount } from './http.ts';
import { buildBundle, type Deployment, type Environment, seedDatabase, startDeployment, workerName } from './worker/deployment.ts';
import { Inspector } from './worker/inspector.ts';

const USAGE = `usage: npm run bench:profile -- [--seconds S] [--warmup S] [--rows LIST] [--top N] [--json FILE] [--save DIR]

Where a Worker request's time goes: a CPU profile of the workerd isolate under load, route by route.
  --seconds S  profiled load per route (default 4)
  --warmup S   unprofiled load before it (default 3; 25 or more profiles the steady state)
  --rows LIST  the routes, separated by ';' (default: all of bench:http's)
  --top N      functions listed per route (default 12)
  --json FILE  also write the report as JSON
  --save DIR   also write each route's raw profile as DIR/<route>.cpuprofile`;

/** One bucket of a profile: its share of busy samples. */
interface ProfileBucket {
  readonly bucket: string;
  readonly share: number;
}

/** A route's profile: the buckets, and the busiest functions with their source. */
export interface RouteProfile {
  readonly name: string;
  readonly requestsPerSecond: number;
  /** Busy samples per request, in microseconds of the isolate's time. */
  readonly busyMicrosPerRequest: number;
  readonly buckets: readonly ProfileBucket[];
  readonly functions: readonly { name: string; source: string; share: number }[];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where time in a source file counts. */
function bucketOf(source: string, functionName: string): string {
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)' || functionName === '(root)') return 'runtime (native: HTTP, streams, Response, …)';
  if (/src\/(lookup|geo|mmdb)\//.test(source)) return 'our lookup (src/lookup, src/geo, src/mmdb)';
  if (/src\/ratelimit\//.test(source)) return 'rate limiter (src/ratelimit)';
  if (/src\/access\//.test(source)) return 'access check (src/access)';
  if (/src\//.test(source) || /bench\/worker\//.test(source)) return 'app: routes, problems, XML (src/*)';
  if (/node_modules\/(@hono\/zod-openapi|zod|@asteasolutions)/.test(source)) return 'validation (zod, @hono/zod-openapi)';
  if (/node_modules\/hono\//.test(source)) return 'Hono (routing, context, response)';
  if (/fast-xml-parser/.test(source)) return 'XML builder (fast-xml-parser)';
  if (source === '' || source.startsWith('node:') || !source.includes('/')) return 'runtime (native: HTTP, streams, Response, …)';
  return 'other libraries';
}

function load(url: URL, next: () => AutocannonRequest, seconds: number): Promise<number> {
  return new Promise((done, fail) => {
    autocannon({ url: url.href, connections: 10, duration: seconds, requests: [{ setupRequest: (r) => ({ ...r, ...next() }) }] }, (error, result) =>
      error ? fail(error) : done(result.requests.total),
    );
  });
}

/** Summarises a profile: shares of busy samples by bucket and by function. */
function summarise(profile: CpuProfile, map: SourceMap, bundleName: string, top: number) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byBucket = new Map<string, number>();
  const byFunction = new Map<string, { name: string; source: string; micros: number }>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = nodes.get(profile.samples[i] as number);
    const micros = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0;
    if (!node || node.callFrame.functionName === '(idle)') continue;
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    let source = url;
    if (url.endsWith(bundleName)) {
      const entry = map.findEntry(lineNumber, columnNumber) as { originalSource?: string };
      source = (entry.originalSource ?? url).replace(/^.*?(node_modules\/|src\/|bench\/)/, '$1');
    }
    busy += micros;
    const bucket = bucketOf(source, functionName);
    byBucket.set(bucket, (byBucket.get(bucket) ?? 0) + micros);
    const key = `${functionName || '(anonymous)'} ${source}`;
    const entry = byFunction.get(key) ?? { name: functionName || '(anonymous)', source, micros: 0 };
    entry.micros += micros;
    byFunction.set(key, entry);
  }
  return {
    busy,
    buckets: [...byBucket].map(([bucket, micros]) => ({ bucket, share: micros / busy })).sort((a, b) => b.share - a.share),
    functions: [...byFunction.values()]
      .sort((a, b) => b.micros - a.micros)
      .slice(0, top)
      .map((f) => ({ name: f.name, source: f.source, share: f.micros / busy })),
  };
}

interface RoutePlan {
  readonly name: string;
  readonly bundle: 'lookup-only' | 'free' | 'de';
  readonly next: (authorization: string) => AutocannonRequest;
}

/** Profiles each route in a fresh workerd process of its bundle. */
async function profileRoutes(
  options: { seconds?: number; warmup?: number; rows?: readonly string[]; top?: number; save?: string; work: string },
  log: (line: string) => void = () => {},
): Promise<RouteProfile[]> {
  const seconds = options.seconds ?? 4;
  // The mix of `http.ts` (five IPv4 addresses to one IPv6), from samples of its own.
  const address = addressCycle(10_000, 21, 22);
  const freeClient = clientCycle(REQUESTS_PER_CLIENT);
  const asns = asnPaths(dirname(DATABASE_FILE)).kept;
  let nextAsn = 0;
  const typicalAsn = () => asns[nextAsn++ % asns.length] as string;
  const get = (path: string, headers: Record<string, string> = {}): AutocannonRequest => ({ method: 'GET', path, headers });
  const plans: RoutePlan[] = [
    { name: 'trivial', bundle: 'lookup-only', next: () => get('/health') },
    { name: 'single JSON', bundle: 'lookup-only', next: () => get(`/api/json/${address()}`) },
    { name: 'single JSON (8.8.8.8)', bundle: 'lookup-only', next: () => get('/api/json/8.8.8.8') },
    { name: 'single XML', bundle: 'lookup-only', next: () => get(`/api/xml/${address()}`) },
    {
      name: 'single JSON with lang and fields',
      bundle: 'lookup-only',
      next: () => get(`/api/json/${address()}?${OPTIONS_QUERY}`),
    },
    ...(['', '?lang=ja'] as const).map(
      (query): RoutePlan => ({
        name: `bulk of 50${query ? ', lang=ja' : ''}`,
        bundle: 'lookup-only',
        next: () => ({
          method: 'POST',
          path: `/api/bulk/json${query}`,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ips: Array.from({ length: 50 }, address) }),
        }),
      }),
    ),
    {
      name: 'free-plan lookup',
      bundle: 'free',
      next: () => get(`/api/v1/json/${address()}`, { 'CF-Connecting-IP': freeClient() }),
    },
    { name: 'paid lookup', bundle: 'de', next: (authorization) => get(`/api/json/${address()}`, { Authorization: authorization }) },
    // Networks by ASN: a typical ASN (a few dozen prefixes, `bench/asns.ts`), its block from the Workers cache once warm.
    { name: 'paid ASN', bundle: 'de', next: (authorization) => get(typicalAsn(), { Authorization: authorization }) },
  ];
  const selected = plans.filter((p) => !options.rows || options.rows.includes(p.name));
  const bundles = {} as Record<RoutePlan['bundle'], [Environment, string]>;
  for (const { bundle } of selected) {
    if (bundles[bundle]) continue;
    const environment: Environment = bundle === 'free' ? 'free' : 'de';
    bundles[bundle] = [
      environment,
      buildBundle(environment, join(options.work, `profile-${bundle}`), bundle === 'lookup-only' ? 'bench/worker/lookup-only.js' : undefined),
    ];
  }
  const out: RouteProfile[] = [];
  for (const plan of selected) {
    const [environment, bundle] = bundles[plan.bundle];
    // The V8 inspector of each plan's workerd, from `BENCH_INSPECTOR_PORT` up when several checkouts measure at once.
    const port = Number(process.env.BENCH_INSPECTOR_PORT ?? 9300) + out.length;
    let deployment: Deployment | undefined;
    let inspector: Inspector | undefined;
    try {
      deployment = await startDeployment(environment, bundle, join(options.work, `profile-state-${plan.bundle}`), { inspectorPort: port });
      await seedDatabase(deployment, DATABASE_FILE);
      let authorization = '';
      if (plan.bundle === 'de') {
        const credential = await seedPaidAccount(deployment);
        if (!('authorization' in credential)) {
          log(`  ${plan.name}: pending (${credential.pending})`);
          continue;
        }
        authorization = credential.authorization;
      }
      const next = () => plan.next(authorization);
      await load(deployment.url, next, options.warmup ?? 3);
      inspector = await Inspector.connect(port, workerName(environment));
      await inspector.send('Profiler.enable');
      await inspector.send('Profiler.setSamplingInterval', { interval: 100 });
      await inspector.send('Profiler.start');
      const requests = await load(deployment.url, next, seconds);
      const { profile } = await inspector.send<{ profile: CpuProfile }>('Profiler.stop');
      if (options.save) {
        mkdirSync(options.save, { recursive: true });
        writeFileSync(join(options.save, `${plan.name.replace(/[^\w.-]+/g, '-')}.cpuprofile`), JSON.stringify(profile));
      }
      const map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')));
      const summary = summarise(profile, map, bundle.split('/').at(-1) as string, options.top ?? 12);
      out.push({
        name: plan.name,
        requestsPerSecond: requests / seconds,
        busyMicrosPerRequest: summary.busy / requests,
        buckets: summary.buckets,
        functions: summary.functions,
      });
      log(`  ${plan.name}: ${(requests / seconds).toFixed(0)} requests/s, ${(summary.busy / requests).toFixed(1)} µs of isolate time per request`);
    } finally {
      inspector?.close();
      await deployment?.dispose();
    }
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const line = parseCommandLine(process.argv.slice(2), {
    command: 'npm run bench:profile',
    usage: USAGE,
    options: {
      seconds: { type: 'string', default: '4' },
      warmup: { type: 'string', default: '3' },
      rows: { type: 'string' },
      top: { type: 'string', default: '12' },
      json: { type: 'string' },
      save: { type: 'string' },
    },
  });
  if (typeof line === 'number') process.exit(line);
  const { values } = line;
  const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-profile-'));
  try {
    const profiles = await profileRoutes(
      {
        seconds: Number(values.seconds),
        warmup: Number(values.warmup),
        top: Number(values.top),
        work,
        ...(values.rows ? { rows: values.rows.split(';') } : {}),
        ...(values.save ? { save: resolve(values.save) } : {}),
      },
      console.log,
    );
    for (const profile of profiles) {
      console.log(`\n${profile.name}: ${profile.requestsPerSecond.toFixed(0)} req/s, ${profile.busyMicrosPerRequest.toFixed(1)} µs busy per request`);
      for (const bucket of profile.buckets) console.log(`  ${(bucket.share * 100).toFixed(1).padStart(5)}%  ${bucket.bucket}`);
      console.log('  busiest functions:');
      for (const f of profile.functions) console.log(`  ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.name}  ${f.source}`);
    }
    if (values.json) writeFileSync(values.json, JSON.stringify(profiles, null, 2));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
