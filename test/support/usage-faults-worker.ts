/**
 * @module A usage Worker for the tests of a slow, a failing and a busy usage store (`usage-faults.test.ts`,
 * `usage-spread.test.ts`): the production ledger class (`src/usage/ledger.ts`) whose writes and reads
 * first wait, or fail (before they apply, or after: the answer lost), while the test says so (`POST /`
 * with `{"delayMs": n, "failing": false | "before" | "after"}`, which forgets the counts unless `"keepCounts": true`), and which counts the calls each object
 * receives, by second, and the writers whose third and later batches it took (`GET /`). The app under
 * test is given a binding to this class, a Durable Object namespace of its own: a real store, not a
 * mock of one.
 */
import { UsageLedger } from '../../src/usage/ledger.ts';

/** The calls received since the fault was last set: by method, and by object (its id in hex) and second since the epoch; and each object's writers. */
interface Calls {
  add: number;
  totals: number;
  byObject: Record<string, Record<number, number>>;
  /** By object, the isolates (their batch ids' prefix) whose third and later batches it took. */
  writers: Record<string, string[]>;
}

/** The fault in force, and the calls since it was set, for every object of this Worker (they share its isolate). */
let fault: { delayMs: number; failing: false | 'before' | 'after' } = { delayMs: 0, failing: false };
let calls: Calls = { add: 0, totals: 0, byObject: {}, writers: {} };

function count(object: DurableObjectId): void {
  const second = Math.floor(Date.now() / 1000);
  const seconds = calls.byObject[object.toString()] ?? {};
  calls.byObject[object.toString()] = seconds;
  seconds[second] = (seconds[second] ?? 0) + 1;
}

async function faulted<T>(run: () => Promise<T>): Promise<T> {
  if (fault.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
  if (fault.failing === 'before') throw new Error('Network connection lost (a test fault of the usage store)');
  const result = await run();
  if (fault.failing === 'after') throw new Error('Network connection lost after the call was applied (a test fault of the usage store)');
  return result;
}

export class FaultyUsageLedger extends UsageLedger {
  override async add(...args: Parameters<UsageLedger['add']>): ReturnType<UsageLedger['add']> {
    calls.add += 1;
    count(this.ctx.id);
    for (const part of args[0]) {
      const dot = part.id.lastIndexOf('.');
      const writers = calls.writers[this.ctx.id.toString()] ?? [];
      calls.writers[this.ctx.id.toString()] = writers;
      if (Number(part.id.slice(dot + 1)) >= 3 && !writers.includes(part.id.slice(0, dot))) writers.push(part.id.slice(0, dot));
    }
    return faulted(() => super.add(...args));
  }

  override async totals(...args: Parameters<UsageLedger['totals']>): ReturnType<UsageLedger['totals']> {
    calls.totals += 1;
    count(this.ctx.id);
    return faulted(() => super.totals(...args));
  }

  override sync(...args: Parameters<UsageLedger['sync']>): ReturnType<UsageLedger['sync']> {
    count(this.ctx.id);
    return super.sync(...args);
  }

  override async alarm(): Promise<void> {
    count(this.ctx.id);
    await super.alarm();
  }
}

export default {
  async fetch(request: Request): Promise<Response> {
    if (request.method === 'POST') {
      const { keepCounts, ...asked } = (await request.json()) as typeof fault & { keepCounts?: boolean };
      fault = asked;
      if (keepCounts !== true) calls = { add: 0, totals: 0, byObject: {}, writers: {} };
    }
    return Response.json(calls);
  },
};
