/**
 * @module A usage Worker for the tests of a slow and of a failing usage store (`test/workers-paid/usage-faults.test.ts`):
 * the production ledger class (`src/usage/ledger.ts`) whose writes and reads from the paid apps first wait,
 * or fail, while the test says so (`POST /fault` with `{"delayMs": n, "failing": bool}`). The app under test
 * is given a binding to this class, a Durable Object namespace of its own: a real store, not a mock of one.
 */
import { UsageLedger } from '../../src/usage/ledger.ts';

/** The fault in force, for every object of this Worker (they share its isolate). */
let fault = { delayMs: 0, failing: false };

async function faulted(): Promise<void> {
  if (fault.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
  if (fault.failing) throw new Error('Network connection lost (a test fault of the usage store)');
}

export class FaultyUsageLedger extends UsageLedger {
  override async add(...args: Parameters<UsageLedger['add']>): ReturnType<UsageLedger['add']> {
    await faulted();
    return super.add(...args);
  }

  override async totals(...args: Parameters<UsageLedger['totals']>): ReturnType<UsageLedger['totals']> {
    await faulted();
    return super.totals(...args);
  }
}

export default {
  async fetch(request: Request): Promise<Response> {
    fault = (await request.json()) as typeof fault;
    return new Response(null, { status: 204 });
  },
};
