/**
 * @module The usage ledger of a busy account (docs/decisions/0009-ledger-spread-over-shards.md), at a
 * small scale of `npm run bench:ledger`: 200 simulated isolates (each the recorder of a paid isolate,
 * with its own batch ids and slot), counting answers of two deployments, three kinds and three
 * credentials and writing a batch a second, with answers lost after the store applied them for a
 * while (so that writes are repeated). The ledger spreads once its root takes more than 100 writes in a
 * second; from then on each writer writes to one object, and no object takes more than its share of the
 * writers (a sixteenth, with room for a random draw of slots); every count arrives exactly once, and a read
 * of the whole ledger sums it. The store is the ledger class of the tests' usage Worker, which counts the
 * calls each object receives (`test/support/usage-faults-worker.ts`). Account `spread-*`: this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { IsolateUsage } from '../../src/usage/isolate.ts';
import type { UsageLedger } from '../../src/usage/ledger.ts';
import { readLedgerRows, readLedgerTotals } from '../../src/usage/ledger-reads.ts';
import { LEDGER_SHARDS, SPREAD_AT_WRITES_PER_SECOND, shardName } from '../../src/usage/spread.ts';
import type { UsageKind } from '../../src/usage/wire.ts';

const bindings = env as unknown as { FAULTY_USAGE: DurableObjectNamespace<UsageLedger>; USAGE_FAULTS: Fetcher };

const WRITERS = 200;
const SECONDS = 5;
const KINDS: readonly UsageKind[] = ['single', 'bulk', 'reference'];
const CREDENTIALS = ['key_00000000000a', 'ip:203.0.113.70', 'website:spread.example'];

/** Sets the store's fault; forgets its counts only when `fresh`. */
async function storeFault(failing: false | 'after', fresh = false): Promise<void> {
  await bindings.USAGE_FAULTS.fetch('http://faults/', { method: 'POST', body: JSON.stringify({ delayMs: 0, failing, keepCounts: !fresh }) });
}

describe('a busy account', () => {
  it(`spreads its ledger, gives no object more than its share of ${WRITERS} writers, and counts every answer once`, async () => {
    const account = `spread-${crypto.randomUUID().slice(0, 8)}`;
    await storeFault(false, true);
    const pending: Promise<unknown>[] = [];
    const request = { ctx: { waitUntil: (promise: Promise<unknown>) => pending.push(promise) }, store: bindings.FAULTY_USAGE };
    const isolates = Array.from({ length: WRITERS }, () => new IsolateUsage());
    const sent = { requests: 0, lookups: 0, problems: 0 };
    const started = Date.now();
    for (let tick = 0; tick < SECONDS * 10; tick++) {
      // Answers lost after they were applied, for a while: the recorders write those parts again.
      if (tick === 15) await storeFault('after');
      if (tick === 18) await storeFault(false);
      for (const [index, usage] of isolates.entries()) {
        if ((index + tick) % 4 !== 0) continue;
        const problem = (index + tick) % 7 === 0;
        const kind = KINDS[index % KINDS.length] as UsageKind;
        const lookups = problem ? 0 : kind === 'bulk' ? 1 + (index % 50) : kind === 'single' ? 1 : 0;
        usage.recorder.record(
          {
            account,
            deployment: index % 2 === 0 ? 'de' : 'sg',
            kind,
            credential: CREDENTIALS[tick % CREDENTIALS.length] as string,
            outcome: problem ? 'problem' : 'success',
            lookups,
          },
          request,
        );
        if (problem) sent.problems += 1;
        else {
          sent.requests += 1;
          sent.lookups += lookups;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, started + (tick + 1) * 100 - Date.now()));
    }
    // Every keeper returns once its batch is written (within its 25 s).
    while (pending.length > 0) await Promise.all(pending.splice(0));

    const today = new Date().toISOString().slice(0, 10);
    const rows = await readLedgerRows(bindings.FAULTY_USAGE, account, today, today);
    const stored = rows.reduce(
      (sum, row) => ({ requests: sum.requests + row.requests, lookups: sum.lookups + row.lookups, problems: sum.problems + row.problems }),
      { requests: 0, lookups: 0, problems: 0 },
    );
    expect(stored).toEqual(sent);
    expect((await readLedgerTotals(bindings.FAULTY_USAGE, account, today, [])).totals.dayTotals).toMatchObject(sent);
    const { writers } = (await (await bindings.USAGE_FAULTS.fetch('http://faults/')).json()) as { writers: Record<string, string[]> };
    const objects = Array.from({ length: LEDGER_SHARDS }, (_, shard) => bindings.FAULTY_USAGE.idFromName(shardName(account, shard)).toString());
    // From its third batch on (the ledger spread at the first, and each writer learned it at its second),
    // each writer writes to one object; every object of the ledger takes some, none more than its share:
    // the writes a second it takes when each writes once a second. Calls a second on this machine depend
    // on its load, not on the design.
    const served = objects.map((id) => writers[id]?.length ?? 0);
    // A sixteenth of the writers, and five standard deviations of a uniform draw of 200 slots.
    const mean = WRITERS / LEDGER_SHARDS;
    const share = Math.ceil(mean + 5 * Math.sqrt(mean * (1 - 1 / LEDGER_SHARDS)));
    console.log(
      `${WRITERS} writers over ${LEDGER_SHARDS} objects after the spread (at ${SPREAD_AT_WRITES_PER_SECOND} writes a second): ${served.join(', ')}; bound ${share}`,
    );
    expect(served.reduce((sum, n) => sum + n, 0)).toBe(WRITERS);
    expect(served.filter((n) => n > 0)).toHaveLength(LEDGER_SHARDS);
    expect(Math.max(...served)).toBeLessThanOrEqual(share);
  }, 60_000);
});
