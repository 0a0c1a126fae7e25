/**
 * @module What a million requests of each kind cost on Cloudflare, beside the hosted APIs' list price
 * of the same lookups: computed from one `npm run bench` run's measured figures (the workerd CPU per
 * request of its HTTP rows, the billable operations that `operations.ts` counted) and the prices of
 * `prices.ts`, and written into docs/costs.md between its markers, with the run's commit and date.
 *
 *     npm run bench:costs -- [--from BENCHMARKS.json]   the costs again from the last run's figures (after a price change)
 *
 * Included monthly allowances are not subtracted: the figures are what one more million costs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from '../data/command-line.ts';
import type { KindOperations } from './operations.ts';
import { ASSUMED_LOG_EVENT_BYTES, CLOUDFLARE, HOSTED, type HostedPrice, type Price, unitPrice } from './prices.ts';
import type { Results } from './report.ts';

/**
 * The memory a Durable Object's duration is billed at, in GB: 128 MB whatever it uses, counted as
 * 0.128 GB in the publisher's own examples ("4,320,000 seconds * 128 MB / 1 GB = 552,960 GB-s",
 * https://developers.cloudflare.com/durable-objects/platform/pricing/).
 */
const DURABLE_OBJECT_GB = 0.128;

/** The project root (`deployment.ts` says the same; not imported, so that the tests of the arithmetic load no Miniflare). */
const ROOT = resolve(import.meta.dirname, '..');

/** What one request uses of each billed quantity, on average. */
export interface RequestUse {
  /** CPU time of every Worker the request runs, in µs (the app, and shard Workers over service bindings). */
  readonly cpuMicros: number;
  /** Durable Object requests: RPC calls on stubs (the rate limiter's, the usage store's writes). */
  readonly durableObjectRequests: number;
  /** Wall-clock time that Durable Objects are active for it, in ms. */
  readonly durableObjectMs: number;
  readonly sqliteRowsWritten: number;
  readonly kvReads: number;
  readonly r2ClassA: number;
  readonly r2ClassB: number;
  /** Workers Logs events: one execution log per invocation of a Worker with logs on, and each console.log. */
  readonly logEvents: number;
}

/** One billed quantity of a request kind, per million requests. */
export interface CostLine {
  readonly price: Price;
  /** How many of the price's unit a million requests use. */
  readonly quantity: number;
  readonly usd: number;
}

/** The Workers Logs price in force on `day` (`YYYY-MM-DD`): per event until November 2026, per GB ingested after. */
function logsPrice(day: string): { price: Price; perEvent: number } {
  const events = CLOUDFLARE.workersLogsEvents;
  if (day <= events.until) return { price: events, perEvent: 1 };
  return { price: CLOUDFLARE.observabilityIngestion, perEvent: ASSUMED_LOG_EVENT_BYTES / 1e9 };
}

/**
 * What a million requests that each use `use` cost at Cloudflare's prices ({@link CLOUDFLARE}), by
 * billed quantity; included allowances not subtracted.
 *
 * @param day the day the requests are served (`YYYY-MM-DD`): it picks the Workers Logs price in force.
 */
export function cloudflareCost(use: RequestUse, day: string): { lines: CostLine[]; usd: number } {
  const million = 1e6;
  const logs = logsPrice(day);
  const quantities: [Price, number][] = [
    [CLOUDFLARE.workersRequests, million],
    [CLOUDFLARE.workersCpu, (use.cpuMicros / 1000) * million],
    [CLOUDFLARE.durableObjectRequests, use.durableObjectRequests * million],
    [CLOUDFLARE.durableObjectDuration, (use.durableObjectMs / 1000) * DURABLE_OBJECT_GB * million],
    [CLOUDFLARE.sqliteRowsWritten, use.sqliteRowsWritten * million],
    [CLOUDFLARE.kvReads, use.kvReads * million],
    [CLOUDFLARE.r2ClassA, use.r2ClassA * million],
    [CLOUDFLARE.r2ClassB, use.r2ClassB * million],
    [logs.price, use.logEvents * logs.perEvent * million],
  ];
  const lines = quantities.map(([price, quantity]) => ({ price, quantity, usd: quantity * unitPrice(price) }));
  return { lines, usd: lines.reduce((sum, line) => sum + line.usd, 0) };
}

/**
 * A hosted API's list price of a million requests of `lookups` addresses each: per address when it
 * bills each address of a bulk request, else per request; NaN for a flat plan (its fee does not grow
 * with the requests).
 */
export function hostedCost(price: HostedPrice, lookups: number): number {
  if (price.flat) return Number.NaN;
  return 1e6 * (price.billsEachAddress ? lookups : 1) * unitPrice(price);
}

/** What `npm run bench -- --parts` records for a part it did not run (`run.ts`). */
export const NOT_RUN = 'not run (--parts)';

/** The request kinds that docs/costs.md prices, and where the run measured each. */
const KINDS = [
  { id: 'free', name: 'free single lookup (`GET /api/v1/json/{ip}`, rate limit)', lookups: 1, cpu: { http: 'free-plan lookup' } },
  { id: 'paid', name: 'paid single lookup, usage counted (`GET /api/json/{ip}`, API key)', lookups: 1, cpu: { http: 'paid lookup' } },
  { id: 'bulk', name: 'paid bulk of 50 (`POST /api/bulk/json`), usage counted', lookups: 50, cpu: { http: 'paid bulk of 50' } },
  { id: 'distance', name: 'paid distance (`POST /api/distance`, two addresses), usage counted', lookups: 2, cpu: { http: 'paid distance' } },
  { id: 'shards', name: 'paid single lookup through 3 shard Workers, usage counted', lookups: 1, cpu: { ab: 'paid' } },
] as const;

/** Per request, from the totals that `operations.ts` counted over `requests` answers. */
export function useOf(cpuMicros: number, operations: KindOperations): RequestUse {
  const per = (total: number) => total / operations.requests;
  return {
    cpuMicros,
    durableObjectRequests: per(operations.rateLimiter.calls + operations.usage.calls),
    durableObjectMs: per(operations.rateLimiter.ms + operations.usage.ms),
    sqliteRowsWritten: per(operations.usage.rowsWritten),
    kvReads: per(operations.kvReads),
    r2ClassA: per(operations.r2ClassA),
    r2ClassB: per(operations.r2ClassB),
    logEvents: per(operations.logEvents),
  };
}

/**
 * The same request if its usage were written alone, one answer per batch (an account's answers spread
 * over isolates that each see under one a second): one write to the usage store per request, with its
 * two rows (the batch's id and the count's row), each write as long as the run's writes took on average.
 * Unchanged for a kind that writes no usage.
 */
export function aloneInItsBatch(use: RequestUse, operations: KindOperations): RequestUse {
  const { usage } = operations;
  if (usage.calls === 0) return use;
  const per = (total: number) => total / operations.requests;
  const logsPerUsageCall = operations.usageLogged ? 1 : 0;
  return {
    ...use,
    durableObjectRequests: per(operations.rateLimiter.calls) + 1,
    durableObjectMs: per(operations.rateLimiter.ms) + usage.ms / usage.calls,
    sqliteRowsWritten: 2,
    logEvents: use.logEvents - per(usage.calls) * logsPerUsageCall + logsPerUsageCall,
  };
}

/** The CPU per request that the run measured for `kind`, µs, or why there is none. */
function cpuOf(results: Results, kind: (typeof KINDS)[number]): number | string {
  if ('http' in kind.cpu) {
    if (typeof results.http === 'string') return `the HTTP part failed: ${results.http}`;
    const name = kind.cpu.http;
    const row = results.http.rows.find((r) => r.name === name);
    if (!row || row.pending) return `no HTTP row "${name}"${row?.pending ? `: ${row.pending}` : ''}`;
    return row.cpuPerRequest;
  }
  if (typeof results.shardsPaidCpu === 'string') return `the 3-shard paid part failed: ${results.shardsPaidCpu}`;
  const name = kind.cpu.ab;
  const row = results.shardsPaidCpu.rows.find((r) => r.row === name);
  return row ? row.b : `no row "${name}" in the 3-shard paid part`;
}

const usd = (value: number) => {
  if (!Number.isFinite(value)) return '–';
  if (value >= 100) return `$${Math.round(value).toLocaleString('en')}`;
  if (value >= 1) return `$${value.toFixed(2)}`;
  if (value === 0) return '$0';
  return `$${value.toPrecision(2)}`;
};
/** A list price as printed: cents at least ($0.30, $12.50), every digit below a cent ($0.000539). */
const dollars = (value: number) => (value >= 0.01 ? `$${value.toFixed(2)}` : `$${value}`);
/** `million requests`, `50,000 lookups`, `GB`: the quantity a price is for. */
function quantityOf(price: Price): string {
  if (price.per === 1) return price.unit;
  const units = /^(CPU ms|GB-s|GB)$/.test(price.unit) ? price.unit : price.unit.replace(/^(\S+)/, '$1s');
  return `${price.per === 1e6 ? 'million' : price.per.toLocaleString('en')} ${units}`;
}
const per = (value: number) => (value === 0 ? '0' : value >= 10 ? value.toFixed(0) : value.toPrecision(2));
const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
const head = (cells: readonly string[], align: readonly string[]) => [line(cells), line(align)];
const link = (price: Price) => `[${new URL(price.source).hostname}](${price.source})`;

/** The block of docs/costs.md that the run writes: its run, the inputs, the costs, the hosted prices and the prices used. */
function costsMarkdown(results: Results): string {
  const day = results.date.slice(0, 10);
  const operations = typeof results.operations === 'string' ? undefined : results.operations;
  const rows = KINDS.map((kind) => {
    const cpu = cpuOf(results, kind);
    const counted = operations?.kinds[kind.id];
    if (typeof cpu === 'string' || !counted) return { kind, why: typeof cpu === 'string' ? cpu : `no operations counted: ${results.operations}` };
    const use = useOf(cpu, counted);
    return { kind, use, counted, cost: cloudflareCost(use, day), alone: cloudflareCost(aloneInItsBatch(use, counted), day) };
  });
  const logs = logsPrice(day).price;
  const partial = Object.values(results).some((part) => part === NOT_RUN);
  const out: string[] = [
    `Computed by \`npm run bench\` (and again by \`npm run bench:costs\` after a price change) from the run of commit \`${results.revision.commit}\`${results.revision.dirty ? ' with uncommitted changes' : ''}, ${results.date}, on ${results.machine.cpu} (${results.machine.cores} cores): ${partial ? 'a run of only the parts the costs need (`npm run bench -- --parts`), whose figures are in `BENCHMARKS.json` (BENCHMARKS.md is of a whole run, another one)' : 'the CPU per request of its rows in [BENCHMARKS.md](../BENCHMARKS.md) and the operations it counted'}. Prices of \`bench/prices.ts\`, read on the days the last table gives; Workers Logs at the price in force on the run's day.`,
    '',
    '### A million requests on Cloudflare',
    '',
    ...head(
      [
        'request',
        'requests',
        'CPU',
        'Durable Object requests',
        'DO duration',
        'SQLite rows written',
        'KV reads',
        'R2',
        'Workers Logs',
        '**total**',
        'total, each answer’s usage written alone',
      ],
      ['---', ...Array<string>(10).fill('---:')],
    ),
  ];
  for (const row of rows) {
    if (!('cost' in row) || !row.cost) {
      out.push(line([row.kind.name, `not measured: ${row.why}`, ...Array<string>(9).fill('')]));
      continue;
    }
    const [requests, cpu, doRequests, doDuration, rows_, kv, r2a, r2b, logCost] = row.cost.lines.map((l) => l.usd) as number[];
    out.push(
      line([
        row.kind.name,
        usd(requests ?? Number.NaN),
        usd(cpu ?? Number.NaN),
        usd(doRequests ?? Number.NaN),
        usd(doDuration ?? Number.NaN),
        usd(rows_ ?? Number.NaN),
        usd(kv ?? Number.NaN),
        usd((r2a ?? 0) + (r2b ?? 0)),
        usd(logCost ?? Number.NaN),
        `**${usd(row.cost.usd)}**`,
        row.counted.usage.calls === 0 ? '' : usd(row.alone.usd),
      ]),
    );
  }
  out.push(
    '',
    '### What each request used (the run’s measurements)',
    '',
    ...head(
      [
        'request',
        'CPU µs',
        'DO requests',
        'DO active ms',
        'rows written',
        'KV reads',
        'R2 Class A / B',
        'log events',
        'answers per usage write',
        'requests counted',
      ],
      ['---', ...Array<string>(9).fill('---:')],
    ),
  );
  for (const row of rows) {
    if (!('use' in row) || !row.use) continue;
    const { use, counted } = row;
    const batch = counted.usage.calls === 0 ? '' : per(counted.usage.answers / counted.usage.calls);
    out.push(
      line([
        row.kind.name,
        use.cpuMicros.toFixed(0),
        per(use.durableObjectRequests),
        per(use.durableObjectMs),
        per(use.sqliteRowsWritten),
        per(use.kvReads),
        `${per(use.r2ClassA)} / ${per(use.r2ClassB)}`,
        per(use.logEvents),
        batch,
        counted.requests.toLocaleString('en'),
      ]),
    );
  }
  out.push(
    '',
    '### The same lookups at hosted APIs (list price of a million requests)',
    '',
    ...head(['request', 'addresses', ...HOSTED.map((price) => price.plan)], ['---', '---:', ...HOSTED.map(() => '---:')]),
  );
  for (const row of rows) {
    const cloudflare = 'cost' in row && row.cost ? ` (Cloudflare ${usd(row.cost.usd)})` : '';
    out.push(
      line([
        `${row.kind.name}${cloudflare}`,
        String(row.kind.lookups),
        ...HOSTED.map((price) => (price.flat ? 'flat fee, no limit' : usd(hostedCost(price, row.kind.lookups)))),
      ]),
    );
  }
  const all: Price[] = [...Object.values(CLOUDFLARE), ...HOSTED];
  out.push(
    '',
    '### Prices',
    '',
    ...head(['what', 'price', 'included a month (not subtracted)', 'source', 'read', 'note'], ['---', '---:', '---:', '---', '---', '---']),
    ...all.map((price) => {
      const plan = 'plan' in price ? `${(price as HostedPrice).plan}: ` : '';
      const amount = Number.isFinite(price.usd) ? `${dollars(price.usd)} per ${quantityOf(price)}` : 'not known';
      const dates = [price.from ? `from ${price.from}` : '', price.until ? `until ${price.until}` : ''].filter(Boolean).join(', ');
      const note = [price === logs ? 'used for this run' : '', dates, price.secondary ? `secondary: ${price.secondary}` : ''].filter(Boolean).join('; ');
      return line([
        `${plan}${price.what}`,
        amount,
        price.includedPerMonth === undefined ? '' : price.includedPerMonth.toLocaleString('en'),
        link(price),
        price.read,
        note,
      ]);
    }),
  );
  return out.join('\n');
}

const START = '<!-- costs: written by npm run bench and npm run bench:costs -->';
const END = '<!-- /costs -->';

/** docs/costs.md with its generated block replaced by {@link costsMarkdown} of `results`. */
export function withCosts(document: string, results: Results): string {
  const start = document.indexOf(START);
  const end = document.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/costs.md has no block between ${START} and ${END}`);
  return `${document.slice(0, start + START.length)}\n${costsMarkdown(results)}\n${document.slice(end)}`;
}

/** Rewrites docs/costs.md's block from `results`. */
export function writeCosts(results: Results): string {
  const file = join(ROOT, 'docs', 'costs.md');
  writeFileSync(file, withCosts(readFileSync(file, 'utf8'), results));
  return file;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const parsed = parseCommandLine(process.argv.slice(2), {
    command: 'npm run bench:costs',
    usage: `usage: npm run bench:costs -- [--from FILE]

Rewrites the costs in docs/costs.md from the figures of the last npm run bench (BENCHMARKS.json)
and the prices of bench/prices.ts, without measuring anything.
  --from FILE  the run's figures (default BENCHMARKS.json)`,
    options: { from: { type: 'string', default: join(ROOT, 'BENCHMARKS.json') } },
  });
  if (typeof parsed === 'number') process.exit(parsed);
  const results = JSON.parse(readFileSync(resolve(process.env.INIT_CWD ?? process.cwd(), parsed.values.from as string), 'utf8')) as Results;
  console.log(`Written to ${writeCosts(results)} (the run of ${results.revision.commit}, ${results.date}).`);
}
