/**
 * @module The benchmarks' one table, and `BENCHMARKS.md` around it: what was measured, on what, at
 * which commit, against which targets (docs/hot-path.md, "The targets"), and where the time goes.
 */
import type { AbFigures } from './ab.ts';
import type { ColdStartReport } from './cold-start-report.ts';
import type { ColdFigures, DistantReport, SweepReport, SwitchFigures } from './distant.ts';
import { BULK_SIZE, type HttpReport, type HttpRow, OPTIONS_ROW, PAID_BULK_ROW, REQUESTS_PER_CLIENT, ROUND_WARMUP_SECONDS } from './http.ts';
import type { LookupReport } from './lookup.ts';
import type { Machine, Revision } from './machine.ts';
import { type MemoryReading, type MemoryReport, SETTLED_BYTES } from './memory.ts';
import type { OperationsReport } from './operations.ts';
import type { RouteProfile } from './profile.ts';
import type { ShardedAnswersFigures } from './sharded-answers.ts';
import { mib, percent, si, times } from './stats.ts';

/** Everything one `npm run bench` measured; a part that failed is an error message. */
export interface Results {
  readonly machine: Machine;
  readonly revision: Revision;
  readonly date: string;
  readonly seconds: number;
  readonly lookup: LookupReport | string;
  readonly http: HttpReport | string;
  readonly cold: ColdStartReport | string;
  readonly distant: DistantReport | string;
  readonly memory: MemoryReport | string;
  readonly profile: readonly RouteProfile[] | string;
  readonly shards: ShardedAnswersFigures | string;
  readonly shardsCpu: AbFigures | string;
  readonly hopsCpu: AbFigures | string;
  /** The whole paid app with usage counted, 3 shard Workers against one file (`ab.ts --app --b-shards`): docs/costs.md's sharded lookup. */
  readonly shardsPaidCpu: AbFigures | string;
  /** The billable operations of each kind of request (`operations.ts`), for docs/costs.md. */
  readonly operations: OperationsReport | string;
}

type Row = [measure: string, result: string, latency: string, comparison: string, target: string];

const met = (ok: boolean) => (ok ? '✅' : '❌');
const signed = (bytes: number) => `${bytes >= 0 ? '+' : ''}${mib(bytes)}`;
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');

function lookupRows(report: LookupReport): Row[] {
  const by = (name: string) => report.rows.find((row) => row.name === name);
  const reference = by('maxmind')?.perSecond ?? Number.NaN;
  return report.rows.map((row): Row => {
    const ratio = row.perSecond / reference;
    return [
      `lookups/s, Node: ${row.what}`,
      `**${si(row.perSecond)}/s** (IPv4 ${si(row.ipv4PerSecond)}, IPv6 ${si(row.ipv6PerSecond)}); hits ${percent(row.hitRate, 2)}`,
      '',
      row.name === 'maxmind' ? 'reference' : `${times(ratio)} maxmind`,
      row.name === 'ours' ? `≥ 2× maxmind ${met(ratio >= 2)}` : '',
    ];
  });
}

/** The shards' equality (docs/sharding.md, "Serving"): every document of the sharded build against the one file's (`sharded-answers.ts`). */
function shardsRow(figures: ShardedAnswersFigures): Row {
  const { shards, addresses, found, documents, differences, seconds } = figures;
  return [
    `shards: the default sources built as ${shards} shards, every answer (single and bulk, JSON and XML, positions, 8 languages) against the one file's, each address from the shard its range names (\`bench:shards\`)`,
    `**${differences.length === 0 ? 'all equal' : `${differences.length}+ differ`}**: ${addresses.toLocaleString('en')} seeded addresses (${found.toLocaleString('en')} found), ${documents.toLocaleString('en')} documents in ${seconds.toFixed(0)} s`,
    '',
    '',
    `equal ${met(differences.length === 0)}`,
  ];
}

/** The shards' CPU targets (docs/hot-path.md, "The targets"): N = 3 against N = 1 per request, single lookup at most 1.6×, bulk of 50 at most 1.3×. */
const SHARD_CPU_TARGETS: Readonly<Record<string, number>> = { single: 1.6, bulk: 1.3 };

/**
 * CPU per request of B against A for the rows with a target (`ab.ts --json`): the 3 shards' own, or
 * (`floor`) one file's behind as many Workers RPC calls carrying nothing, which the targets are set
 * against too, since a sharded lookup cannot cost less.
 */
function shardCpuRow(figures: AbFigures, floor: boolean): Row {
  const rows = figures.rows.filter(({ row }) => SHARD_CPU_TARGETS[row] !== undefined);
  const what = (row: string) => (row === 'bulk' ? 'bulk of 50' : 'single JSON');
  return [
    floor
      ? 'shards: the least a sharded lookup can cost here: one file behind Workers RPC calls that carry and do nothing, one per lookup and 3 per bulk (`bench:ab --b-hops 3`, lookup-only Workers)'
      : 'shards: CPU per request, 3 shard Workers and the app against one file (`bench:ab --b-shards`, lookup-only Workers, the workerd process)',
    rows.map(({ row, a, b, ratio }) => `${what(row)} **${times(ratio)}** (${b.toFixed(0)} µs against ${a.toFixed(0)} µs)`).join('; '),
    '',
    `medians of ${figures.rounds} rounds, same run`,
    rows
      .map(
        ({ row, ratio }) => `${what(row)} ≤ ${times(SHARD_CPU_TARGETS[row] as number)}${floor ? '' : ` ${met(ratio <= (SHARD_CPU_TARGETS[row] as number))}`}`,
      )
      .join(', '),
  ];
}

/** The paid app's lookup through 3 shard Workers against one file, usage counted in both (`bench:ab --app --b-shards`). */
function shardsPaidRow(figures: AbFigures): Row {
  const row = figures.rows.find((r) => r.row === 'paid');
  return [
    'shards: CPU per request of a paid lookup (the whole `de` app, API key, usage counted), 3 shard Workers against one file (`bench:ab --app --b-shards`, the workerd process)',
    row ? `**${times(row.ratio)}** (${row.b.toFixed(0)} µs against ${row.a.toFixed(0)} µs)` : 'no paid row',
    '',
    `medians of ${figures.rounds} rounds, same run; priced in [docs/costs.md](docs/costs.md)`,
    '',
  ];
}

/** Per request of each kind, the billable operations counted under load (`bench:operations`). */
function operationsRow(report: OperationsReport): Row {
  const parts = Object.entries(report.kinds).map(([kind, counted]) => {
    const per = (total: number) => (total / counted.requests).toPrecision(2);
    const batch = counted.usage.calls === 0 ? '' : `, ${(counted.usage.answers / counted.usage.calls).toFixed(0)} answers per usage write`;
    return `${kind}: DO ${per(counted.rateLimiter.calls + counted.usage.calls)}, rows ${per(counted.usage.rowsWritten)}, KV ${per(counted.kvReads)}, R2 B ${per(counted.r2ClassB)}, shard calls ${per(counted.serviceCalls)}${batch}`;
  });
  return [
    `billable operations per request under load (\`bench:operations\`, ${report.connections} connections, ${report.seconds} s a kind, the production bundles with their bindings counted)`,
    parts.join('; '),
    '',
    'priced in [docs/costs.md](docs/costs.md)',
    '',
  ];
}

/** ` (rounds 81–89%)`: the lowest and highest ratio of `row` to `baseline` within one round. */
function spread(row: HttpRow, baseline: HttpRow): string {
  const ratios = row.rounds.map((perSecond, i) => perSecond / (baseline.rounds[i] ?? Number.NaN)).filter(Number.isFinite);
  if (ratios.length < 2) return '';
  return ` (rounds ${percent(Math.min(...ratios)).replace('%', '')}–${percent(Math.max(...ratios))})`;
}

/** The lookup-only row of the same lookups as each paid row. */
const UNGATED: Readonly<Record<string, string>> = { 'paid lookup': 'single JSON', [PAID_BULK_ROW]: `bulk of ${BULK_SIZE}` };

/** Ratios against a target carry one decimal, so that a result just under it never reads as the target itself (84.8%, not 85%). */
function httpRows(report: HttpReport): Row[] {
  const by = (name: string) => report.rows.find((row) => row.name === name);
  const single = by('single JSON');
  const paid = by('paid lookup');
  return report.rows.map((row: HttpRow): Row => {
    if (row.pending) return [`HTTP: ${row.name} (${row.bundle}: ${row.request})`, `pending: ${row.pending}`, '', '', ''];
    const baseline = by(row.baseline);
    const ofTrivial = row.perSecond / (baseline?.perSecond ?? Number.NaN);
    const comparison: string[] =
      row.name === row.baseline ? ['the runtime’s ceiling'] : [`${percent(ofTrivial, 1)} of ${row.baseline}${baseline ? spread(row, baseline) : ''}`];
    if (row.name !== row.baseline && baseline) comparison.push(`CPU per request ${times(row.cpuPerRequest / baseline.cpuPerRequest)} ${row.baseline}'s`);
    // A paid row against the same lookups without the gate: what the access check and usage counting add.
    const ungated = by(UNGATED[row.name] ?? '');
    if (ungated && !ungated.pending) comparison.push(`CPU per request ${times(row.cpuPerRequest / ungated.cpuPerRequest)} ${ungated.name}'s (lookup-only)`);
    let target = '';
    if (row.name === 'single JSON') target = `≥ 90% of trivial ${met(ofTrivial >= 0.9)}`;
    if (row.name === 'single XML') target = `(≥ 90% of trivial ${met(ofTrivial >= 0.9)})`;
    if (row.name === OPTIONS_ROW) target = `≥ 85% of trivial ${met(ofTrivial >= 0.85)}`;
    if (row.name.startsWith('bulk') && single) {
      const latency = row.p50 / single.p50;
      comparison.push(`p50 ${times(latency)} single JSON's`);
      target = `≤ 3× single latency ${met(latency <= 3)}`;
    }
    if (row.name === 'free-plan lookup' && paid && !paid.pending) {
      const share = row.perSecond / paid.perSecond;
      comparison.push(`${percent(share, 1)} of paid lookup${spread(row, paid)}`);
      target = `≥ 60% of paid ${met(share >= 0.6)}`;
    }
    const statuses =
      row.name === 'free-plan lookup'
        ? `; 429: ${percent(row.tooMany, 2)}`
        : row.non2xx > 0
          ? `; non-2xx ${percent(row.non2xx, 1)} (404: data has no record)`
          : '';
    return [
      `HTTP: ${row.name} (${row.bundle}: ${row.request})`,
      `**${si(row.perSecond)} req/s**${statuses}; workerd CPU ${row.cpuPerRequest.toFixed(0)} µs/request`,
      `${ms(row.p50)} / ${ms(row.p99)} ms`,
      comparison.join('; '),
      target,
    ];
  });
}

function coldRows(report: ColdStartReport): Row[] {
  const { miniflare } = report;
  return [
    [
      `cold start, free bundle: fresh \`workerd serve\` process (the Worker and the R2 and KV simulators it binds) → first \`/api/v1/json/8.8.8.8\` answered (median of ${report.starts})`,
      `**${report.spawnToLookup.toFixed(0)} ms**: ${report.spawnToListening.toFixed(0)} ms to listening + ${report.listeningToLookup.toFixed(0)} ms first request`,
      '',
      `first \`/health\` instead: ${report.spawnToHealth.toFixed(0)} ms (${report.listeningToHealth.toFixed(0)} ms after listening); ` +
        `through Miniflare (also its entry worker, cache, e-mail and dev-control services): ${miniflare.spawnToLookup.toFixed(0)} ms (${miniflare.spawnToListening.toFixed(0)} + ${miniflare.listeningToLookup.toFixed(0)})`,
      `≤ 300 ms ${met(report.spawnToLookup <= 300)}`,
    ],
  ];
}

/** How a switch was logged: `switch` with its verification and wait, or not, and the loads beside it. */
function loggedSwitch(figures: SwitchFigures): string {
  const { logged, loads } = figures;
  const more = loads === 1 ? '' : `; ${loads} loads`;
  if (!logged) return `**not logged**${more}`;
  const verify = logged.verifyMs === undefined ? '' : `verify ${(logged.verifyMs / 1000).toFixed(1)} s, `;
  return `logged: ${verify}wait ${(logged.waitMs / 1000).toFixed(1)} s, from ${logged.source}${more}`;
}

function distantRows(report: DistantReport): Row[] {
  const { distance, noCache, cache } = report;
  const far = `R2 ${distance.latencyMs} ms to the first byte, ${distance.megabytesPerSecond} MB/s (\`bench/worker/distant.js\`, free bundle through Miniflare, ${report.connections} steady clients)`;
  const cold = (what: string, figures: ColdFigures) =>
    `${what} ${figures.coldMs.toFixed(0)} ms (load CPU ${figures.cpuMs.toFixed(0)} ms, isolate peak ${mib(figures.peakBytes)}, ${figures.failed} failed)`;
  const switched = (what: string, figures: SwitchFigures) =>
    `${what}: slowest ${figures.slowestMs.toFixed(0)} ms of ${figures.requests.toLocaleString('en')}, ${figures.failed} failed, ArrayBuffers at most ${mib(figures.arrayBuffersPeakBytes)}, switch ${loggedSwitch(figures)}`;
  const colds = [noCache.cold, cache.coldEmpty, cache.coldFilled];
  const failed = colds.reduce((sum, figures) => sum + figures.failed, 0);
  const switches = [noCache.switch, cache.switch];
  const switchFailed = switches.reduce((sum, figures) => sum + figures.failed, 0);
  const loggedOnce = switches.every((figures) => figures.logged !== undefined && figures.loads === 1);
  return [
    [
      `cold start under load, ${far}: first lookup of a fresh process answered`,
      `**${cold('cache off', noCache.cold)}**; ${cold('cache empty', cache.coldEmpty)}; ${cold('cache filled', cache.coldFilled)}`,
      '',
      'load CPU: samples of the isolate’s V8 profile under reading, hashing and parsing; the other requests wait meanwhile (slowest = the cold start)',
      `no request fails ${met(failed === 0)}`,
    ],
    [
      `switch under load, ${far}: another build published until every answer names it`,
      `**${switched('cache off', noCache.switch)}; ${switched('cache on', cache.switch)}**`,
      '',
      `verified while the old database answers, then the old one released and the new one loaded; the isolate's clock moved a minute on, so that its check is due at once (seen ${(noCache.switch.seenAfterMs / 1000).toFixed(1)} s and ${(cache.switch.seenAfterMs / 1000).toFixed(1)} s after publishing)`,
      `no request fails ${met(switchFailed === 0)}, one load and its switch logged ${met(loggedOnce)}`,
    ],
  ];
}

function memoryRows(report: MemoryReport): Row[] {
  const delta = (to: MemoryReading, from: MemoryReading, key: keyof MemoryReading) => to[key] - from[key];
  const rounds = report.afterRounds;
  const last = rounds.at(-1) ?? report.afterControl;
  const added = delta(report.afterLoad, report.beforeLoad, 'isolate');
  const full = delta(last, report.beforeLoad, 'isolate');
  const growth = (key: keyof MemoryReading) => rounds.map((reading, i) => signed(delta(reading, rounds[i - 1] ?? report.afterControl, key)));
  const settled = delta(last, rounds.at(-2) ?? report.afterControl, 'isolate');
  const lookups = report.lookups.toLocaleString('en');
  return [
    [
      'memory: the database loaded (lookup-only bundle); isolate = V8 heap in use after a full collection + ArrayBuffers',
      `**isolate +${mib(added)}** (${mib(report.beforeLoad.isolate)} → ${mib(report.afterLoad.isolate)}; file ${mib(report.databaseBytes)}); process RSS +${mib(delta(report.afterLoad, report.beforeLoad, 'process'))}`,
      '',
      `with the caches full (after ${(rounds.length * report.lookups).toLocaleString('en')} lookups): isolate +${mib(full)} over before the load (${mib(last.isolate)}; heap committed: ${mib(last.committed)})`,
      // The budget (docs/architecture.md, "Rules that hold everywhere"): the database and every cache within 96 MiB of the isolate.
      `isolate ≤ 96 MiB ${met(last.isolate <= 96 * 1024 * 1024)}`,
    ],
    [
      'memory: the isolate’s peak during a cold load, from the first lookup until 3 s after its answer (sampled every 25 ms, garbage included)',
      `**Workers cache empty ${mib(report.loadPeak.cacheEmpty)}**; filled ${mib(report.loadPeak.cacheFilled)}`,
      '',
      'cache empty: read from R2, then copied into the cache from the same buffer; filled: read from the cache',
      `isolate ≤ 96 MiB ${met(Math.max(report.loadPeak.cacheEmpty, report.loadPeak.cacheFilled) <= 96 * 1024 * 1024)}`,
    ],
    [
      `memory: rounds of ${lookups} lookups, until one adds < ${mib(SETTLED_BYTES)}`,
      `**isolate ${growth('isolate').join(', ')}**`,
      '',
      `process RSS ${growth('process').join(', ')}; control, ${lookups} \`/health\` after the load: isolate ${signed(delta(report.afterControl, report.afterLoad, 'isolate'))}, process ${signed(delta(report.afterControl, report.afterLoad, 'process'))}`,
      `no growth once the caches are full ${met(rounds.length > 0 && settled < SETTLED_BYTES)}`,
    ],
  ];
}

/** The one table, as Markdown (also what the console shows). */
export function table(results: Results): string {
  const rows: Row[] = [];
  const failed = (what: string, error: string): Row => [what, `failed: ${error.split('\n')[0]}`, '', '', ''];
  rows.push(...(typeof results.lookup === 'string' ? [failed('lookups', results.lookup)] : lookupRows(results.lookup)));
  rows.push(...(typeof results.http === 'string' ? [failed('HTTP', results.http)] : httpRows(results.http)));
  rows.push(...(typeof results.cold === 'string' ? [failed('cold start', results.cold)] : coldRows(results.cold)));
  rows.push(...(typeof results.distant === 'string' ? [failed('cold start and switch, distant R2', results.distant)] : distantRows(results.distant)));
  rows.push(...(typeof results.memory === 'string' ? [failed('memory', results.memory)] : memoryRows(results.memory)));
  rows.push(typeof results.shards === 'string' ? failed('shards: every answer equal to one file’s', results.shards) : shardsRow(results.shards));
  rows.push(typeof results.shardsCpu === 'string' ? failed('shards: CPU per request', results.shardsCpu) : shardCpuRow(results.shardsCpu, false));
  rows.push(typeof results.hopsCpu === 'string' ? failed('shards: CPU of empty hops', results.hopsCpu) : shardCpuRow(results.hopsCpu, true));
  rows.push(typeof results.shardsPaidCpu === 'string' ? failed('shards: CPU of a paid lookup', results.shardsPaidCpu) : shardsPaidRow(results.shardsPaidCpu));
  rows.push(typeof results.operations === 'string' ? failed('billable operations per request', results.operations) : operationsRow(results.operations));
  const header: Row = ['measure', 'result', 'latency p50 / p99', 'compared', 'target'];
  const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The profile section: where each route's isolate time goes. */
function profileSection(profiles: readonly RouteProfile[] | string): string {
  if (typeof profiles === 'string') return `The profile failed: ${profiles.split('\n')[0]}`;
  const buckets = [...new Set(profiles.flatMap((p) => p.buckets.map((b) => b.bucket)))];
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const lines = [
    line(['isolate time per request', ...profiles.map((p) => `${p.name}: ${p.busyMicrosPerRequest.toFixed(0)} µs`)]),
    line(['---', ...profiles.map(() => '---:')]),
    ...buckets.map((bucket) =>
      line([
        bucket,
        ...profiles.map((p) => {
          const share = p.buckets.find((b) => b.bucket === bucket)?.share ?? 0;
          return share ? `${percent(share, 1)} (${(share * p.busyMicrosPerRequest).toFixed(1)} µs)` : '';
        }),
      ]),
    ),
  ];
  const busiest = profiles.map(
    (p) =>
      `- **${p.name}**: ${p.functions
        .slice(0, 8)
        .map((f) => `${f.name} ${f.source ? `(${f.source}) ` : ''}${percent(f.share, 1)}`)
        .join(', ')}`,
  );
  return [...lines, '', 'Busiest functions (self time, share of the busy samples):', '', ...busiest].join('\n');
}

const ANALYSIS_START = '<!-- analysis: kept by npm run bench -->';
const ANALYSIS_END = '<!-- /analysis -->';
const SWEEP_START = '<!-- sweep: written by npm run bench:cold -- --sweep, kept by npm run bench -->';
const SWEEP_END = '<!-- /sweep -->';
/** The markers of the usage ledger's section, written by `npm run bench:ledger` (`ledger-report.ts`) and kept by `npm run bench`. */
export const LEDGER_START = '<!-- ledger: written by npm run bench:ledger, kept by npm run bench -->';
export const LEDGER_END = '<!-- /ledger -->';

/** The part of `markdown` from `start` to `end`, both included, if it has one. */
function block(markdown: string | undefined, start: string, end: string): string | undefined {
  const from = markdown?.indexOf(start) ?? -1;
  const to = markdown?.indexOf(end, from) ?? -1;
  return markdown !== undefined && from >= 0 && to >= 0 ? markdown.slice(from, to + end.length) : undefined;
}

/** What `npm run bench:cold -- --sweep` measured, and the run it names. */
export interface SweepResults {
  readonly machine: Machine;
  readonly revision: Revision;
  readonly date: string;
  readonly seconds: number;
  readonly sweep: SweepReport;
}

/** One row of the sweep's table, for one distance and the cache off or on. */
function sweepLine(row: Extract<SweepReport['rows'][number], { noCache: unknown }>, cached: boolean): string {
  const { cold, switch: figures } = cached ? row.cache : row.noCache;
  const failed = (count: number) => (count === 0 ? '0 failed' : `**${count.toLocaleString('en')} failed**`);
  return [
    `${row.distance.latencyMs} ms, ${row.distance.megabytesPerSecond} MB/s`,
    cached ? 'on' : 'off',
    `${(cold.coldMs / 1000).toFixed(1)} s from ${cold.source ?? '?'}, ${failed(cold.failed)}`,
    `${figures.requests.toLocaleString('en')}, ${failed(figures.failed)}`,
    `${(figures.slowestMs / 1000).toFixed(1)} s`,
    mib(figures.peakBytes),
    mib(figures.arrayBuffersPeakBytes),
    loggedSwitch(figures),
  ].join(' | ');
}

/** The speeds at which requests failed, in a sentence of the sweep's section. */
function failingSpeeds(sweep: SweepReport): string {
  const measured = sweep.rows.filter((row) => 'noCache' in row);
  const failing = (cached: boolean) =>
    measured.filter((row) => (cached ? row.cache : row.noCache).switch.failed + (cached ? row.cache : row.noCache).cold.failed > 0).map((row) => row.distance);
  const named = (distances: readonly { latencyMs: number; megabytesPerSecond: number }[]) =>
    distances.length === 0 ? 'at no speed measured' : `at ${distances.map((d) => `${d.megabytesPerSecond} MB/s (${d.latencyMs} ms)`).join(', ')}`;
  return `Requests failed (\`503 DATA_UNAVAILABLE\`, mostly after the 20 s wait limit) with the cache off ${named(failing(false))}; with it on ${named(failing(true))}.`;
}

/** The section of `BENCHMARKS.md` that a sweep writes, naming its own run. */
export function sweepSection(results: SweepResults): string {
  const { machine, revision, sweep } = results;
  const header = [
    'R2: first byte, throughput',
    'Workers cache',
    'cold start: first answer, failed',
    'switch: requests, failed',
    'slowest request',
    'isolate peak',
    'ArrayBuffers at most',
    '`switch` event',
  ];
  const lines = sweep.rows.flatMap((row) =>
    'error' in row
      ? [
          [
            `${row.distance.latencyMs} ms, ${row.distance.megabytesPerSecond} MB/s`,
            `failed: ${row.error.replaceAll('|', '\\|')}`,
            ...header.slice(2).map(() => ''),
          ].join(' | '),
        ]
      : [sweepLine(row, false), sweepLine(row, true)],
  );
  return `${SWEEP_START}
## Switching over a slow bucket (\`npm run bench:cold -- --sweep\`)

- **Measured:** commit \`${revision.commit}\`${revision.dirty ? ' with uncommitted changes in the working tree' : ''}, ${results.date}, in ${(results.seconds / 60).toFixed(1)} minutes.
- **Machine:** ${machine.cpu}, ${machine.cores} cores, ${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB RAM; ${machine.os}; workerd ${machine.workerd}, Miniflare ${machine.miniflare}; 1-minute load average ${machine.loadAverage.toFixed(2)} at the start.
- **How:** the production free Worker through \`bench/worker/distant.js\`, whose R2 answers each read after the first-byte delay and sends the body at the throughput; ${sweep.connections} steady clients. Each row starts a fresh process with the Workers cache off (as on \`*.workers.dev\`), then one with it on (its cold start reads the copy an earlier process left, the first row's reads R2); each publishes a build of the same size (${mib(sweep.databaseBytes)}) and moves the isolate's clock a minute on, so that its minute's check is due at once. The switch's figures run from the publication until 2 s after the first answer from the new version; the peaks are the isolate's (V8 heap in use, garbage included, plus ArrayBuffers) sampled every 25 ms; the \`switch\` event's verification and wait are by the Worker's clock, and "loads" counts the \`load\` events logged meanwhile (one when all is well).

| ${header.join(' | ')} |
| ${header.map(() => '---').join(' | ')} |
${lines.map((line) => `| ${line} |`).join('\n')}

${failingSpeeds(sweep)}
${SWEEP_END}`;
}

/** `markdown` with its sweep section replaced by `section`, or `section` added before the profile (or at the end). */
export function withSweepSection(markdown: string, section: string): string {
  const old = block(markdown, SWEEP_START, SWEEP_END);
  if (old !== undefined) return markdown.replace(old, () => section);
  const profile = markdown.indexOf('\n## Profile of the isolate');
  return profile >= 0 ? `${markdown.slice(0, profile)}\n${section}\n${markdown.slice(profile)}` : `${markdown.trimEnd()}\n\n${section}\n`;
}

/** `BENCHMARKS.md`: the latest figures, keeping the hand-written analysis of the previous file. */
export function benchmarksMarkdown(results: Results, previous: string | undefined): string {
  const { machine, revision } = results;
  const kept = block(previous, ANALYSIS_START, ANALYSIS_END);
  const analysis = kept ?? `${ANALYSIS_START}\n_The analyses: to be written from the figures and the profile._\n${ANALYSIS_END}`;
  // The sweep is a run of its own (about a quarter of an hour): its section is kept as it was written.
  const sweep = block(previous, SWEEP_START, SWEEP_END);
  // So is the usage ledger's (`npm run bench:ledger`, a few minutes).
  const ledger = block(previous, LEDGER_START, LEDGER_END);
  const http = typeof results.http === 'string' ? undefined : results.http;
  const lookup = typeof results.lookup === 'string' ? undefined : results.lookup;
  return `# Benchmarks

Written by \`npm run bench\` (scripts in \`bench/\`; about ${Math.ceil(results.seconds / 60)} minutes). Each part also runs alone:
\`npm run bench:lookup\`, \`bench:http\`, \`bench:profile\`, \`bench:cold\`, \`bench:memory\`. Whether a change is faster is
decided by \`npm run bench:ab\`, which runs two builds side by side in one run (figures of separate runs move by 5–10% here).
The run's figures are also in \`BENCHMARKS.json\`, from which [docs/costs.md](docs/costs.md) prices a million requests of each kind.

- **Measured:** commit \`${revision.commit}\`${revision.dirty ? ' with uncommitted changes in the working tree' : ''}, ${results.date}.
- **Machine:** ${machine.cpu}, ${machine.cores} cores, ${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB RAM; ${machine.os}; 1-minute load average ${machine.loadAverage.toFixed(2)} at the start (other work on the machine skews the figures).
- **Software:** Node ${machine.node} for the lookups and the load generator (autocannon ${machine.autocannon}); the Worker bundles (\`wrangler deploy --dry-run\`) run by workerd ${machine.workerd} through Miniflare ${machine.miniflare}, which simulates R2, KV and Durable Objects inside the same workerd process and is otherwise out of the way: each Worker is served on a loopback socket of its own, without Miniflare's entry worker or wrangler's proxy in front. The cold start runs \`workerd serve\` on a configuration of only the Worker and the simulators of what it binds (\`bench/worker/serve.ts\`), since Miniflare's other services start in the same process before the Worker listens; its figure through Miniflare is given beside it.
- **Lookups:** ${lookup ? `${lookup.ipv4.toLocaleString('en')} random public IPv4 and ${lookup.ipv6.toLocaleString('en')} IPv6 addresses (seed ${lookup.seed}), the same for every reader, medians of ${lookup.runs} runs after a warm-up, readers alternating` : 'see the table'}.
- **HTTP:** ${http ? `autocannon with ${http.connections} connections, each row ${http.rounds} × ${http.seconds} s, rows interleaved round by round, each round after ${ROUND_WARMUP_SECONDS} s of the same load unmeasured; requests/s are medians over rounds and ratios are of those medians, with in brackets the lowest and highest ratio within one round (how much the figures move on this machine); latencies are percentiles of every response` : 'see the table'}. \`lookup-only\` is \`bench/worker/lookup-only.js\`: the production lookup and bulk routes without the plan gate in front; \`free\` and \`de\` are the production deployments; the paid rows' answers are counted for their account into the usage Worker beside \`de\`, in the same workerd process, so the CPU of counting and of writing it is in their figures.

${table(results)}

## Analyses

${analysis}
${sweep === undefined ? '' : `\n${sweep}\n`}${ledger === undefined ? '' : `\n${ledger}\n`}
## Profile of the isolate under load (\`npm run bench:profile\`)

${profileSection(results.profile)}

## Notes

- The trivial route is \`GET /health\` (\`src/routes/health.ts\`): a liveness probe registered before every middleware, so no rate limit, no access check and no database.
- Lookups are taken in turn from a seeded sample of 120,000 addresses (five IPv4 to one IPv6), so that the caches see varied addresses; about 0.3% of them have no record and answer 404.
- The free-plan row sends each client address (\`CF-Connecting-IP\`) ${REQUESTS_PER_CLIENT} requests, then moves to a new one: the limit is 10 in 10 s, so 429s are rare and reported; every new client is a new Durable Object. Durable Object storage is kept in memory (\`unsafeEphemeralDurableObjects\`): the rate limiter stores nothing, but local workerd would otherwise create SQLite files on disk for each new object, a local cost that caps this row near a fifth of the paid lookup (\`BENCH_DO_ON_DISK=1 npm run bench:http\` measures it).
- Memory is read twice at each step, after a second of quiet: the **isolate** (what the Workers limit of 128 MB counts: the V8 heap in use after a full collection, forced through the inspector by a heap snapshot, plus ArrayBuffer backing stores such as the database file) and the **process** (the resident set of the whole workerd process, which also hosts Miniflare's R2, KV and Durable Object simulators and grows by some 200 MB over its first 200,000 requests of any kind, so it is read after that; the same number of \`/health\` requests after the load is the control for noise). What the lookups add is the per-database caches filling to their fixed size (\`src/lookup/entry-caches.ts\`).
`;
}
