/**
 * @module The section of BENCHMARKS.md that `npm run bench:ledger` writes (`ledger.ts`), naming its own run;
 * `npm run bench` keeps it as it is (`report.ts`).
 */
import type { Machine, Revision } from './machine.ts';
import { LEDGER_END, LEDGER_START } from './report.ts';

/** One row of the writers' table. */
export interface LedgerRow {
  readonly writers: number;
  /** How often each writer wrote a batch, s: 1, or more when this machine could not drive them at one a second (their writes a second are then scaled by it). */
  readonly everySeconds: number;
  /** Writes a second that the writers would send at a batch every {@link everySeconds} each; that they sent, and that the ledger took (medians over the steady seconds). */
  readonly nominal: number;
  readonly offered: number;
  readonly written: number;
  /**
   * Writers whose batches (from their {@link LedgerResults.fromBatch}th on) the root and the busiest
   * shard took: the writes a second each takes when every writer writes once a second, whatever this
   * machine's speed.
   */
  readonly writersPerObject: { readonly root: number; readonly busiestShard: number };
  /** Calls a second of the root and of the busiest shard, writes scaled to a batch a second per writer: median and highest over the steady seconds. */
  readonly root: { readonly median: number; readonly max: number };
  readonly busiestShard: { readonly median: number; readonly max: number };
  readonly spread: number;
  /** A write's time to its answer as the writer sees it, ms. */
  readonly latencyMs: { readonly p50: number; readonly p99: number };
  /** The workerd process's CPU per write, µs. */
  readonly cpuPerWriteUs: number;
  /** Whether the stored sums equal what was counted; how many applied writes lost their answer and were sent again. */
  readonly exact: boolean;
  readonly resent: number;
  /** Isolates whose last batch a later request had to write: its keeper gave up after 25 s (the store behind), as it does in production. */
  readonly takenOver: number;
  /** Seconds from the end of the traffic until every batch was written. */
  readonly drainSeconds: number;
}

/** One row of the quota's table. */
export interface QuotaRow {
  readonly writers: number;
  /** Lookups a second that all isolates admit together while the quota has room. */
  readonly rate: number;
  readonly quota: number;
  readonly admitted: number;
  readonly spread: number;
  /** From the quota's last lookup to the last one admitted, ms; null when it was never reached. */
  readonly trailMs: number | null;
  readonly exact: boolean;
}

/** What `npm run bench:ledger` measured. */
export interface LedgerResults {
  readonly rows: readonly LedgerRow[];
  readonly noopCpuPerWriteUs: number;
  readonly noopWriters: number;
  readonly quota: readonly QuotaRow[];
  /** Seconds of traffic at each number of writers. */
  readonly seconds: number;
  readonly answersPerBatch: number;
  readonly loseEvery: number;
  readonly quotaSeconds: number;
  /** The first batch of each writer that the per-second figures count. */
  readonly fromBatch: number;
}

const int = (n: number) => Math.round(n).toLocaleString('en');

/** Where the run stops being a model of Cloudflare: from the first number of writers this machine could not drive at a batch a second, or not serve as driven. */
function fairness(rows: readonly LedgerRow[]): string {
  const slowed = rows.find((row) => row.everySeconds > 1);
  const behind = rows.find((row) => row.offered < 0.85 * row.nominal || row.written < 0.9 * row.offered || row.latencyMs.p99 > 1_000);
  const lines = [
    'Where the model stops being fair: every writer and every object share one workerd process here, on two cores shared with other work, where on Cloudflare each object and each isolate run apart.',
  ];
  if (slowed !== undefined)
    lines.push(
      `From ${int(slowed.writers)} writers on, this machine cannot drive a batch a second from each: they write once every few seconds, and their calls a second are scaled to a batch a second; how writes spread over the objects (writers per object) and the exact counts measure the design, the times and the CPU this machine.`,
    );
  if (behind !== undefined)
    lines.push(
      behind.written < 0.9 * behind.offered
        ? `At ${int(behind.writers)} writers the ledger fell behind what the writers sent (${int(behind.written)} writes a second taken of ${int(behind.offered)}, p99 ${int(behind.latencyMs.p99)} ms): its times measure this machine's queue.`
        : `At ${int(behind.writers)} writers the writers sent ${int(behind.offered)} writes a second of ${int(behind.nominal)} due, this machine running their timers late (a batch then takes two bursts), and the ledger took them all: the pace was this machine's, not the ledger's.`,
    );
  if (slowed === undefined && behind === undefined)
    lines.push('At every number of writers measured, the writers wrote a batch a second each and the ledger took them as they came.');
  return lines.join(' ');
}

/** The section, naming its run. */
export function ledgerSection(results: { machine: Machine; revision: Revision; date: string; seconds: number; ledger: LedgerResults }): string {
  const { machine, revision, date, ledger } = results;
  const rows = ledger.rows.map(
    (row) =>
      `| ${int(row.writers)} | ${row.everySeconds} s | ${int(row.nominal)} / ${int(row.offered)} / ${int(row.written)} | ${row.spread} | ${int(row.writersPerObject.root)} / ${int(row.writersPerObject.busiestShard)} | ${int(row.root.median)} (${int(row.root.max)}) | ${int(row.busiestShard.median)} (${int(row.busiestShard.max)}) | ${row.latencyMs.p50.toFixed(0)} / ${row.latencyMs.p99.toFixed(0)} ms | ${int(row.cpuPerWriteUs)} µs | ${row.exact ? `yes (${int(row.resent)} sent again${row.takenOver > 0 ? `; ${int(row.takenOver)} taken over` : ''})` : '**no**'} | ${row.drainSeconds.toFixed(1)} s |`,
  );
  const quota = ledger.quota.map((row) => {
    const over = row.admitted - row.quota;
    return `| ${int(row.writers)} | ${int(row.rate)} | ${int(row.quota)} | ${int(row.admitted)} | ${int(over)} | ${(over / row.rate).toFixed(2)} s | ${row.trailMs === null ? 'never reached' : `${int(row.trailMs)} ms`} | ${row.spread} | ${row.exact ? 'yes' : '**no**'} |`;
  });
  return `${LEDGER_START}
## The usage ledger at scale (\`npm run bench:ledger\`)

- **Measured:** commit \`${revision.commit}\`${revision.dirty ? ' with uncommitted changes in the working tree' : ''}, ${date}, in ${(results.seconds / 60).toFixed(1)} minutes.
- **Machine:** ${machine.cpu}, ${machine.cores} cores, ${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB RAM; ${machine.os}; workerd ${machine.workerd}, Miniflare ${machine.miniflare}; 1-minute load average ${machine.loadAverage.toFixed(2)} at the start.
- **How:** one account's ledger (\`src/usage/ledger.ts\`, decision [0009](docs/decisions/0009-ledger-spread-over-shards.md)) in workerd, driven by simulated paid isolates (\`bench/worker/ledger-driver.js\`), each the production usage state of one isolate, counting bursts of ${ledger.answersPerBatch} answers of four deployments, four kinds and four credentials, and writing each burst as a batch of a few rows, with its own batch ids, to the object its slot names; at least ${ledger.seconds} s and four batches of each writer at each number. Writers write a batch a second where this machine can drive them so, else once every few seconds ("a batch every"), their writes a second then scaled to a batch a second each. One write's answer in ${ledger.loseEvery} is lost after the ledger applied it, so that its writer sends it again. Calls per object (writes, reads, shards' syncs, alarms) are counted by the objects themselves (\`bench/worker/ledger-store.js\`) per second, from the writers' batch ${ledger.fromBatch} on (the ledger spreads at their first and they learn it at their second), to the end of the traffic; where writers write every few seconds, over windows of that many seconds, the writes of a window counting as one second's: median (highest). "Writers per object" counts the isolates whose batches (batch ${ledger.fromBatch} of each and later) an object took: the writes a second it takes when each writes once a second, beside which the root takes at most one sync a second from each shard and a shard one alarm a second. CPU is the workerd process's, writers included, per write; a write that applies nothing, at ${int(ledger.noopWriters)} writers, took ${int(ledger.noopCpuPerWriteUs)} µs: the rest is the ledger's own work. "Every count once": the rows read back from every object equal what the isolates counted; where the store fell more than the keepers' 25 s behind, the isolate still holding counts got one more request, whose keeper wrote them, as a later request of a live isolate does ("taken over").

| writers | a batch every | writes/s: due / sent / taken | objects | writers per object: root / busiest shard | root: calls/s at a batch a second each | busiest shard: calls/s at a batch a second each | write → answer p50 / p99 | CPU per write | every count once | written after the traffic within |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |
${rows.join('\n')}

${fairness(ledger.rows)}

**The quota's overshoot** (docs/accounts.md, "Quotas"): isolates that already know the account's totals (each read them first, as a fresh isolate does) admit one lookup at a time, as the usage gate decides, against a monthly quota of ${ledger.quotaSeconds} s of their traffic, until every one has been refused for two seconds. "Over by" is what they admitted beyond the quota; in seconds of the account's traffic, the figure the formula of docs/accounts.md bounds.

| isolates | lookups/s | quota | admitted | over by | over, in seconds of traffic | last admitted after the quota was reached | objects | counted exactly |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
${quota.join('\n')}
${LEDGER_END}`;
}

/** `markdown` with its ledger section replaced by `section`, or `section` added before the profile (or at the end). */
export function withLedgerSection(markdown: string, section: string): string {
  const from = markdown.indexOf(LEDGER_START);
  const to = markdown.indexOf(LEDGER_END, from);
  if (from >= 0 && to >= 0) return `${markdown.slice(0, from)}${section}${markdown.slice(to + LEDGER_END.length)}`;
  const profile = markdown.indexOf('\n## Profile of the isolate');
  return profile >= 0 ? `${markdown.slice(0, profile)}\n${section}\n${markdown.slice(profile)}` : `${markdown.trimEnd()}\n\n${section}\n`;
}
