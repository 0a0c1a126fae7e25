/**
 * @module The usage ledger of a busy account (docs/decisions/0008-ledger-spread-over-shards.md), at a
 * small scale of `npm run bench:ledger`: 200 simulated isolates (each the recorder of a paid isolate,
 * with its own batch ids and slot), counting answers of two deployments, three kinds and three
 * credentials and writing a batch a second, with answers lost after the store applied them for a
 * while (so that writes are repeated). The ledger spreads once its root takes more than 100 writes in a
 * second; from then on no object takes more than its share of the writers a second (a sixteenth, with
 * room for an uneven draw of slots) plus the shards' syncs; every count arrives exactly once, and a read
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
const SECONDS = 4;
const KINDS: readonly UsageKind[] = ['single', 'bulk', 'reference'];
const CREDENTIALS = ['key_00000000000a', 'ip:203.0.113.70', 'website:spread.example'];

async function storeFault(failing: false | 'after'): Promise<void> {
  await bindings.USAGE_FAULTS.fetch('http://faults/', { method: 'POST', body: JSON.stringify({ delayMs: 0, failing }) });
}

describe('a busy account', () => {
  it(`spreads its ledger, gives no object more than its share of ${WRITERS} writers a second, and counts every answer once`, async () => {
    const account = `spread-${crypto.randomUUID().slice(0, 8)}`;
    await storeFault(false);
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
    const { byObject } = (await (await bindings.USAGE_FAULTS.fetch('http://faults/')).json()) as { byObject: Record<string, Record<string, number>> };
    const objects = Array.from({ length: LEDGER_SHARDS }, (_, shard) => bindings.FAULTY_USAGE.idFromName(shardName(account, shard)).toString());
    // Every object of the ledger was written: it spread.
    expect(objects.filter((id) => byObject[id] !== undefined)).toHaveLength(LEDGER_SHARDS);
    // Before the spread the root took every writer, from the second after it a sixteenth of them (at most
    // twice that, for an uneven draw of 200 slots) and the shards' syncs and its own alarm.
    const spreadSecond = Math.min(...Object.keys(byObject[objects[0] as string] ?? {}).map(Number)) + 1;
    const share = 2 * Math.ceil(WRITERS / LEDGER_SHARDS) + LEDGER_SHARDS;
    const busiest = Math.max(
      ...objects.flatMap((id) => Object.entries(byObject[id] ?? {}).flatMap(([second, calls]) => (Number(second) > spreadSecond ? [calls] : []))),
    );
    console.log(
      `${WRITERS} writers: the busiest object took ${busiest} calls in a second after the spread (bound ${share}; spread at ${SPREAD_AT_WRITES_PER_SECOND} writes a second)`,
    );
    expect(busiest).toBeLessThanOrEqual(share);
  }, 60_000);
});
