/**
 * @module What a million requests of each kind cost on Cloudflare, against the project's targets and
 * beside the hosted APIs' list price of the same lookups: one `npm run bench` run's measured figures
 * (the workerd CPU per request of its HTTP rows, the billable operations and event lines that
 * `operations.ts` counted) priced by `cost-model.ts` at the prices of `prices.ts` in force on the day
 * this runs, and written into docs/costs.md between its markers, naming the run and that day.
 *
 *     npm run bench:costs -- [--from BENCHMARKS.json] [--day YYYY-MM-DD]   the costs again, after a price change
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLineError, parseCommandLine } from '../data/command-line.ts';
import { EVENTS_PER_MINUTE } from '../src/events/bound.ts';
import {
  atBatchSize,
  billedEventBytes,
  type CostLine,
  cloudflareCost,
  countedOf,
  inForce,
  ledgerWrites,
  type RequestUse,
  smallestBatchWithin,
  useOf,
} from './cost-model.ts';
import type { EventLines, KindOperations } from './operations.ts';
import { CLOUDFLARE, HOSTED, type HostedPrice, type Price, unitPrice, WORKERS_EVENT_BYTES } from './prices.ts';
import type { Results } from './report.ts';

/** The project root (`deployment.ts` says the same; not imported, so that the tests of the arithmetic load no Miniflare). */
const ROOT = resolve(import.meta.dirname, '..');

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

/**
 * The project's targets for a million requests at December 2026 prices, in US dollars: the floor that
 * Cloudflare's request price sets ($0.30 a million), with one cent for everything else; the free plan's
 * floor adds its rate limiter's Durable Object request ($0.15 a million).
 */
const PAID_TARGET = 0.31;
const FREE_TARGET = 0.46;

/**
 * The request kinds that docs/costs.md prices, where the run measured each, and their targets; a target's
 * floor is the parts it is made of (the request, and the free plan's rate-limiter request), the cent
 * above it is for the others.
 */
const KINDS = [
  {
    id: 'free',
    name: 'free single lookup (`GET /api/v1/json/{ip}`, rate limit)',
    lookups: 1,
    cpu: { http: 'free-plan lookup' },
    target: FREE_TARGET,
    floor: ['requests', 'Durable Object requests'],
  },
  { id: 'paid', name: 'paid single lookup, usage counted (`GET /api/json/{ip}`, API key)', lookups: 1, cpu: { http: 'paid lookup' }, target: PAID_TARGET },
  { id: 'bulk', name: 'paid bulk of 50 (`POST /api/bulk/json`), usage counted', lookups: 50, cpu: { http: 'paid bulk of 50' }, target: PAID_TARGET },
  { id: 'distance', name: 'paid distance (`POST /api/distance`, two addresses), usage counted', lookups: 2, cpu: { http: 'paid distance' } },
  // Not a lookup the hosted APIs price alike; its cold extreme reads each answer's block from R2 (`coldReads` Class B operations).
  {
    id: 'asn',
    name: 'paid networks by ASN (`GET /api/asn/{asn}`, a typical ASN), usage counted',
    lookups: 1,
    cpu: { http: 'paid ASN' },
    coldReads: 1,
    hosted: false,
  },
  { id: 'shards', name: 'paid single lookup through 3 shard Workers, usage counted', lookups: 1, cpu: { ab: 'paid' }, target: PAID_TARGET },
] as const;

type Kind = (typeof KINDS)[number];

/** The CPU per request that the run measured for `kind`, µs, or why there is none. */
function cpuOf(results: Results, kind: Kind): number | string {
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
const count = (value: number) => Math.round(value).toLocaleString('en');
const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
const head = (cells: readonly string[], align: readonly string[]) => [line(cells), line(align)];
const link = (price: Price) => `[${new URL(price.source).hostname}](${price.source})`;

/** The parts of a cost table's row, each the sum of its price lines. */
const PARTS = ['requests', 'CPU', 'Durable Object requests', 'DO duration', 'SQLite rows written', 'KV reads', 'R2', 'Workers Logs'] as const;
type Part = (typeof PARTS)[number];

function partOf(cost: CostLine): Part {
  const { price } = cost;
  if (price === CLOUDFLARE.workersRequests) return 'requests';
  if (price === CLOUDFLARE.workersCpu) return 'CPU';
  if (price === CLOUDFLARE.durableObjectRequests) return 'Durable Object requests';
  if (price === CLOUDFLARE.durableObjectDuration) return 'DO duration';
  if (price === CLOUDFLARE.sqliteRowsWritten) return 'SQLite rows written';
  if (price === CLOUDFLARE.kvReads) return 'KV reads';
  if (price === CLOUDFLARE.r2ClassA || price === CLOUDFLARE.r2ClassB) return 'R2';
  return 'Workers Logs';
}

function byPart(lines: readonly CostLine[]): Record<Part, number> {
  const sums = Object.fromEntries(PARTS.map((part) => [part, 0])) as Record<Part, number>;
  for (const cost of lines) sums[partOf(cost)] += cost.usd;
  return sums;
}

/** Why a part costs what it does, from what the request used. */
function partWhy(part: Part, use: RequestUse, counted: KindOperations): string {
  const ledger = ledgerWrites(counted);
  switch (part) {
    case 'CPU':
      return `${use.cpuMicros.toFixed(0)} µs of CPU a request, of every Worker it runs, as workerd used it on the run's machine: an upper bound of the billed CPU`;
    case 'Durable Object requests':
    case 'DO duration':
    case 'SQLite rows written':
      return ledger === undefined
        ? `${per(use.durableObjectRequests)} rate-limiter requests a request`
        : `${per(ledger.requestsPerBatch)} ledger requests of ${per(ledger.rowsPerRequest)} rows per batch of ${count(ledger.answersPerBatch)} answers`;
    case 'KV reads':
      return `${per(use.kvReads)} KV reads a request`;
    case 'R2':
      return `${per(use.r2ClassA + use.r2ClassB)} R2 operations a request`;
    case 'Workers Logs':
      return counted.invocationLogs
        ? `invocation logs on: ${per(use.invocations)} a request, each priced at ${count(WORKERS_EVENT_BYTES)} bytes`
        : `${per(use.events)} events of ours a request`;
    default:
      return 'one Workers request';
  }
}

/**
 * The target cell: met, or by how much it is missed and which part is over: the largest of those
 * beyond the target's floor (`floor`, the parts the target is made of), with why.
 */
function targetCell(total: number, lines: readonly CostLine[], kind: Kind, use: RequestUse, counted: KindOperations, smallest: number | undefined): string {
  if (!('target' in kind)) return '';
  if (total <= kind.target) return `${dollars(kind.target)}: met`;
  const floor: readonly Part[] = 'floor' in kind ? kind.floor : ['requests'];
  const parts = Object.entries(byPart(lines)) as [Part, number][];
  const [part, cost] = parts.filter(([name]) => !floor.includes(name)).sort((a, b) => b[1] - a[1])[0] ?? ['requests', 0];
  const ledger = ledgerWrites(counted);
  const batch =
    ledger !== undefined && smallest !== undefined && Number.isFinite(smallest) && smallest > ledger.answersPerBatch
      ? `; met from ${count(smallest)} answers per usage write, where the run wrote ${count(ledger.answersPerBatch)}`
      : '';
  return `${dollars(kind.target)}: **over by ${usd(total - kind.target)}**: ${part} ${usd(cost)} (${partWhy(part, use, counted)})${batch}`;
}

/** What a request uses at its cold extreme: `reads` more R2 Class B operations (an answer's block read from R2 by range). */
function coldUse(use: RequestUse, reads: number): RequestUse {
  return { ...use, r2ClassB: use.r2ClassB + reads };
}

/** A cell of a kind with a cold extreme: `warm / cold` where the two differ, else the one figure. */
function extremes(warm: string, cold: string | undefined): string {
  return cold === undefined || cold === warm ? warm : `${warm} warm / ${cold} cold`;
}

/** A row's total: to a hundredth of a cent below $10, so that a total just over its target never reads as the target. */
const total = (value: number) => (Number.isFinite(value) && value < 10 ? `$${value.toFixed(4)}` : usd(value));

/** Today's date (UTC), `YYYY-MM-DD`: the day whose prices `npm run bench:costs` uses unless told another. */
function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** The event lines of the run: its Workers' own events by kind, bytes a line and what each is billed as. */
function eventsMarkdown(report: Exclude<Results['operations'], string>): string[] {
  const byKind = Object.entries(report.eventsByKind ?? {}) as [string, EventLines][];
  if (byKind.length === 0) return ['The run recorded no event lines of its Workers (a run before December 2026).'];
  const out = [
    ...head(['event', 'lines', 'bytes a line (average)', 'priced as'], ['---', '---:', '---:', '---:']),
    ...byKind
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, { count: lines, bytes }]) =>
        line([`\`${kind}\``, count(lines), count(bytes / lines), `${count(billedEventBytes({ events: lines, eventBytes: bytes }))} bytes`]),
      ),
  ];
  const { burst } = report;
  if (burst !== undefined) {
    const written = Object.entries(burst.events)
      .map(([kind, { count: lines }]) => `${count(lines)} \`${kind}\``)
      .join(', ');
    out.push(
      '',
      `With no data published, ${count(burst.requests)} lookups in a row on the free deployment were answered 503 ${count(burst.unavailable)} times and wrote ${written || 'no line'}: at most ${EVENTS_PER_MINUTE} of a kind a minute per isolate (\`src/events/bound.ts\`).`,
    );
  }
  return out;
}

/** What the bound lets one kind of event cost per isolate that fails for a whole month of 30 days, at `day`'s prices. */
function boundMarkdown(day: string): string {
  const lines = EVENTS_PER_MINUTE * 60 * 24 * 30;
  const use: RequestUse = {
    cpuMicros: 0,
    durableObjectRequests: 0,
    durableObjectMs: 0,
    sqliteRowsWritten: 0,
    kvReads: 0,
    r2ClassA: 0,
    r2ClassB: 0,
    invocations: 0,
    events: lines / 1e6,
    eventBytes: (lines / 1e6) * WORKERS_EVENT_BYTES,
  };
  const logs = cloudflareCost(use, day).lines.filter((cost) => partOf(cost) === 'Workers Logs');
  const total = logs.reduce((sum, cost) => sum + cost.usd, 0);
  return `The bound caps what a fault can cost in logs: one kind of event, failing in an isolate for a whole month, writes at most ${count(lines)} lines (${EVENTS_PER_MINUTE} a minute), ${usd(total)} at ${count(WORKERS_EVENT_BYTES)} bytes each on ${day}.`;
}

/** The block of docs/costs.md: its run, the costs against the targets, what each request used, the events, the hosted prices and the prices used on `day`. */
function costsMarkdown(results: Results, day: string, benchmarksOfRun: boolean): string {
  const operations = typeof results.operations === 'string' ? undefined : results.operations;
  const rows = KINDS.map((kind) => {
    const cpu = cpuOf(results, kind);
    const recorded = operations?.kinds[kind.id];
    if (typeof cpu === 'string' || !recorded) return { kind, why: typeof cpu === 'string' ? cpu : `no operations counted: ${results.operations}` };
    const counted = countedOf(recorded);
    const use = useOf(cpu, counted);
    const logs = { invocationLogs: counted.invocationLogs };
    const costs = (of: RequestUse) => ({
      cost: cloudflareCost(of, day, logs),
      logged: cloudflareCost(of, day, { invocationLogs: true }),
      alone: cloudflareCost(atBatchSize(of, counted, 1), day, logs),
    });
    return {
      kind,
      use,
      counted,
      ...costs(use),
      cold: 'coldReads' in kind ? costs(coldUse(use, kind.coldReads)) : undefined,
      smallest: 'target' in kind ? smallestBatchWithin(use, counted, day, kind.target, logs) : undefined,
    };
  });
  const partial = Object.values(results).some((part) => part === NOT_RUN);
  const invocationLogs = rows.some((row) => 'counted' in row && row.counted?.invocationLogs);
  const out: string[] = [
    `Computed by \`npm run bench\` (and again by \`npm run bench:costs\` after a price change) from the run of commit \`${results.revision.commit}\`${results.revision.dirty ? ' with uncommitted changes' : ''}, ${results.date}, on ${results.machine.cpu} (${results.machine.cores} cores${typeof results.machine.loadAverage === 'number' ? `, 1-minute load average ${results.machine.loadAverage.toFixed(2)} at its start` : ''}): ${partial ? 'a run of only the parts the costs need (`npm run bench -- --parts`), whose figures are in `BENCHMARKS.json` (BENCHMARKS.md is of a whole run, another one)' : benchmarksOfRun ? 'the CPU per request of its rows in [BENCHMARKS.md](../BENCHMARKS.md) and the operations it counted' : 'the CPU per request and the operations it counted, whose figures are in `BENCHMARKS.json` (BENCHMARKS.md is of another run)'}. **Priced at the prices in force on ${day}**, the day this block was written (\`bench/prices.ts\`, read on the days the last table gives). Invocation logs ${invocationLogs ? 'on' : 'off'}, as \`wrangler.toml\` had them for the run; the column before the last prices them on.`,
    '',
    '### A million requests on Cloudflare',
    '',
    ...head(
      [
        'request',
        ...PARTS,
        '**total**',
        'target',
        'answers per usage write below which the target is missed',
        'total with invocation logs on',
        'total, each answer’s usage written alone',
      ],
      ['---', ...Array<string>(PARTS.length + 1).fill('---:'), '---', '---:', '---:', '---:'],
    ),
  ];
  for (const row of rows) {
    if (!('cost' in row) || !row.cost) {
      out.push(line([row.kind.name, `not measured: ${row.why}`, ...Array<string>(PARTS.length + 4).fill('')]));
      continue;
    }
    const parts = byPart(row.cost.lines);
    const coldParts = row.cold && byPart(row.cold.cost.lines);
    const smallest = row.smallest === undefined ? '' : Number.isFinite(row.smallest) ? count(row.smallest) : 'any: over at every batch size';
    out.push(
      line([
        row.kind.name,
        ...PARTS.map((part) => extremes(usd(parts[part]), coldParts && usd(coldParts[part]))),
        extremes(`**${total(row.cost.usd)}**`, row.cold && `**${total(row.cold.cost.usd)}**`),
        targetCell(row.cost.usd, row.cost.lines, row.kind, row.use, row.counted, row.smallest),
        smallest,
        extremes(total(row.logged.usd), row.cold && total(row.cold.logged.usd)),
        row.counted.usage.calls === 0 ? '' : extremes(total(row.alone.usd), row.cold && total(row.cold.alone.usd)),
      ]),
    );
  }
  const extremesOf = rows.filter((row) => 'cold' in row && row.cold !== undefined).map((row) => row.kind.name);
  if (extremesOf.length > 0) {
    out.push(
      '',
      `${extremesOf.join(', ')}: two figures where they differ. **Warm**, as the run measured it: every answer's block kept by the isolate or held by the location's Workers cache (the run filled it with every block first), so no R2 read but the minute's check of the current record. **Cold**: every answer's block read from R2 by range, one Class B operation each (\`coldReads\` in \`bench/costs.ts\`), as on a location whose cache does not hold it yet, and always on \`*.workers.dev\`, where the Cache API keeps nothing ([storage.md](storage.md#the-asn-object)); its CPU is the warm one's.`,
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
        'invocations',
        'events of ours',
        'their bytes',
        'answers per usage write',
        'ledger requests per batch',
        'requests counted',
      ],
      ['---', ...Array<string>(12).fill('---:')],
    ),
  );
  for (const row of rows) {
    if (!('use' in row) || !row.use) continue;
    const { use, counted } = row;
    const ledger = ledgerWrites(counted);
    out.push(
      line([
        row.kind.name,
        use.cpuMicros.toFixed(0),
        per(use.durableObjectRequests),
        per(use.durableObjectMs),
        per(use.sqliteRowsWritten),
        per(use.kvReads),
        `${per(use.r2ClassA)} / ${per(use.r2ClassB)}${'coldReads' in row.kind ? ` (cold: ${per(coldUse(use, row.kind.coldReads).r2ClassB)})` : ''}`,
        per(use.invocations),
        per(use.events),
        per(use.eventBytes),
        ledger === undefined ? '' : count(ledger.answersPerBatch),
        ledger === undefined ? '' : per(ledger.requestsPerBatch),
        counted.requests.toLocaleString('en'),
      ]),
    );
  }
  if (operations !== undefined) out.push('', '### This project’s own events (the run’s lines)', '', ...eventsMarkdown(operations), '', boundMarkdown(day));
  out.push(
    '',
    '### The same lookups at hosted APIs (list price of a million requests)',
    '',
    ...head(['request', 'addresses', ...HOSTED.map((price) => price.plan)], ['---', '---:', ...HOSTED.map(() => '---:')]),
  );
  for (const row of rows) {
    if ('hosted' in row.kind && !row.kind.hosted) continue;
    const cloudflare = 'cost' in row && row.cost ? ` (Cloudflare ${total(row.cost.usd)})` : '';
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
      const used = dates === '' ? '' : inForce(price, day) ? `in force on ${day}` : `not in force on ${day}`;
      const note = [dates, used, price.secondary ? `secondary: ${price.secondary}` : ''].filter(Boolean).join('; ');
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

/**
 * docs/costs.md with its generated block replaced by the costs of `results` at the prices in force on `day`.
 *
 * @param benchmarksOfRun whether BENCHMARKS.md is of the same run (else the block says that its figures are in BENCHMARKS.json only).
 */
export function withCosts(document: string, results: Results, day: string, benchmarksOfRun = true): string {
  const start = document.indexOf(START);
  const end = document.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/costs.md has no block between ${START} and ${END}`);
  return `${document.slice(0, start + START.length)}\n${costsMarkdown(results, day, benchmarksOfRun)}\n${document.slice(end)}`;
}

/** Rewrites docs/costs.md's block from `results`, at the prices in force on `day` (today by default). */
export function writeCosts(results: Results, day = today()): string {
  const file = join(ROOT, 'docs', 'costs.md');
  // BENCHMARKS.md names the date of the run it is of (`report.ts`).
  const benchmarks = join(ROOT, 'BENCHMARKS.md');
  const benchmarksOfRun = existsSync(benchmarks) && readFileSync(benchmarks, 'utf8').includes(results.date);
  writeFileSync(file, withCosts(readFileSync(file, 'utf8'), results, day, benchmarksOfRun));
  return file;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const parsed = parseCommandLine(process.argv.slice(2), {
    command: 'npm run bench:costs',
    usage: `usage: npm run bench:costs -- [--from FILE] [--day YYYY-MM-DD]

Rewrites the costs in docs/costs.md from the figures of the last npm run bench (BENCHMARKS.json)
and the prices of bench/prices.ts in force today, without measuring anything.
  --from FILE  the run's figures (default BENCHMARKS.json)
  --day DAY    price at the prices in force on that day instead (UTC, YYYY-MM-DD)`,
    options: { from: { type: 'string', default: join(ROOT, 'BENCHMARKS.json') }, day: { type: 'string', default: today() } },
  });
  if (typeof parsed === 'number') process.exit(parsed);
  const day = parsed.values.day as string;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day))) {
    process.exit(commandLineError('npm run bench:costs', `--day takes a date as YYYY-MM-DD, not ${JSON.stringify(day)}`));
  }
  const results = JSON.parse(readFileSync(resolve(process.env.INIT_CWD ?? process.cwd(), parsed.values.from as string), 'utf8')) as Results;
  console.log(`Written to ${writeCosts(results, day)} (the run of ${results.revision.commit}, ${results.date}; the prices in force on ${day}).`);
}
