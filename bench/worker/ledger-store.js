/**
 * @module A bench-only usage Worker for `npm run bench:ledger`: the production ledger class
 * (`src/usage/ledger.ts`) that counts the calls each object receives (writes, reads, shards' syncs,
 * alarms) by second since the epoch, and on the bench's word loses the answer of one write in N after
 * applying it (so that the writer sends it again), or applies nothing at all (`noop`: what an RPC call
 * costs without the ledger's work); and which writers (isolates, by their batch ids) each object took
 * batches from, from each writer's `fromBatch`-th batch on (after the ledger spread and the writers
 * learned it). `GET /` answers `{calls, writers}`; `POST /` sets the mode and forgets them.
 *
 * JavaScript, as the other bench Workers (`billed.js`): wrangler bundles it with the TypeScript it imports.
 */
import { UsageLedger } from '../../src/usage/ledger.ts';

/** Calls by object (its id in hex), by second, by method; the writers of each object; the mode. */
let calls = {};
let writers = {};
let mode = { loseEvery: 0, noop: false, fromBatch: 3 };
let writes = 0;

function noteWriters(id, parts) {
  for (const part of parts) {
    const dot = part.id.lastIndexOf('.');
    if (Number(part.id.slice(dot + 1)) < mode.fromBatch) continue;
    const seen = writers[id.toString()] ?? new Set();
    writers[id.toString()] = seen;
    seen.add(part.id.slice(0, dot));
  }
}

function note(id, method) {
  const object = calls[id.toString()] ?? {};
  calls[id.toString()] = object;
  const second = Math.floor(Date.now() / 1000);
  const methods = object[second] ?? {};
  object[second] = methods;
  methods[method] = (methods[method] ?? 0) + 1;
}

export class MeasuredLedger extends UsageLedger {
  async add(parts, today, place) {
    note(this.ctx.id, 'add');
    noteWriters(this.ctx.id, parts);
    if (mode.noop) {
      const none = { requests: 0, lookups: 0, problems: 0, websiteLookups: 0 };
      return { day: today, dayTotals: none, month: `${today.slice(0, 7)}-01`, monthTotals: none, spread: 1 };
    }
    const answer = await super.add(parts, today, place);
    writes += 1;
    if (mode.loseEvery > 0 && writes % mode.loseEvery === 0) throw new Error('the answer of an applied write was lost (bench:ledger)');
    return answer;
  }

  async totals(day, partIds) {
    note(this.ctx.id, 'totals');
    return super.totals(day, partIds);
  }

  sync(shard, totals) {
    note(this.ctx.id, 'sync');
    return super.sync(shard, totals);
  }

  async alarm() {
    note(this.ctx.id, 'alarm');
    return super.alarm();
  }
}

export default {
  async fetch(request) {
    if (request.method === 'POST') {
      mode = await request.json();
      calls = {};
      writers = {};
      writes = 0;
      return new Response(null, { status: 204 });
    }
    return Response.json({ calls, writers: Object.fromEntries(Object.entries(writers).map(([id, seen]) => [id, seen.size])) });
  },
};
