/**
 * The arithmetic of docs/costs.md (`bench/cost-model.ts`, `bench/costs.ts`): each expected value is
 * worked out by hand below from the prices as the publishers print them (Cloudflare's pricing pages,
 * its observability datasets page for the 4.84 KB of a Workers event), not from `bench/prices.ts` or by
 * running the code.
 */
import { describe, expect, it } from 'vitest';
import { atBatchSize, cloudflareCost, countedOf, type RequestUse, smallestBatchWithin, useOf } from '../../bench/cost-model.ts';
import { hostedCost, withCosts } from '../../bench/costs.ts';
import type { KindOperations } from '../../bench/operations.ts';
import { CLOUDFLARE, HOSTED, type Price } from '../../bench/prices.ts';
import type { Results } from '../../bench/report.ts';

/** A request that uses a little of everything: two invocations, and one event of ours of 500 bytes every thousand requests. */
const USE: RequestUse = {
  cpuMicros: 300,
  durableObjectRequests: 1,
  durableObjectMs: 0.5,
  sqliteRowsWritten: 0.25,
  kvReads: 0.01,
  r2ClassA: 0,
  r2ClassB: 0.001,
  invocations: 2,
  events: 0.001,
  eventBytes: 0.5,
};

/** A cost's lines, found by their price. */
const of = (lines: { price: Price; usd: number; quantity: number }[], price: Price) => lines.find((line) => line.price === price);

describe('a million requests on Cloudflare', () => {
  it('prices each quantity at the published rates (events for Workers Logs until November 2026)', () => {
    const { lines, usd } = cloudflareCost(USE, '2026-11-27', { invocationLogs: true });
    // Workers: $0.30 per million requests.
    expect(of(lines, CLOUDFLARE.workersRequests)?.usd).toBeCloseTo(0.3, 10);
    // 300 µs = 0.3 ms a request, 300,000 CPU ms a million, at $0.02 per million CPU ms = $0.006.
    expect(of(lines, CLOUDFLARE.workersCpu)?.usd).toBeCloseTo(0.006, 10);
    // One Durable Object request each, $0.15 per million.
    expect(of(lines, CLOUDFLARE.durableObjectRequests)?.usd).toBeCloseTo(0.15, 10);
    // 0.5 ms × 1,000,000 = 500 s, × 0.128 GB = 64 GB-s, at $12.50 per million GB-s = $0.0008.
    expect(of(lines, CLOUDFLARE.durableObjectDuration)?.usd).toBeCloseTo(0.0008, 10);
    // 250,000 rows written at $1.00 per million = $0.25.
    expect(of(lines, CLOUDFLARE.sqliteRowsWritten)?.usd).toBeCloseTo(0.25, 10);
    // 10,000 KV reads at $0.50 per million = $0.005.
    expect(of(lines, CLOUDFLARE.kvReads)?.usd).toBeCloseTo(0.005, 10);
    // No R2 Class A; 1,000 Class B operations at $0.36 per million = $0.00036.
    expect(of(lines, CLOUDFLARE.r2ClassA)?.usd).toBe(0);
    expect(of(lines, CLOUDFLARE.r2ClassB)?.usd).toBeCloseTo(0.00036, 10);
    // 2,000,000 invocation logs and 1,000 events of ours at $0.60 per million = $1.2006.
    expect(of(lines, CLOUDFLARE.workersLogsEvents)?.usd).toBeCloseTo(1.2006, 10);
    expect(usd).toBeCloseTo(0.3 + 0.006 + 0.15 + 0.0008 + 0.25 + 0.005 + 0.00036 + 1.2006, 10);
  });

  it('prices Workers Logs by the GB ingested and stored from December 2026, invocation logs off', () => {
    const { lines } = cloudflareCost(USE, '2026-12-01');
    // 1,000 events of ours, each billed as the published average Workers event (4.84 KB), its 500 bytes being less:
    // 4,840,000 bytes = 0.00484 GB, at $0.25 per GB = $0.00121.
    expect(of(lines, CLOUDFLARE.observabilityIngestion)?.quantity).toBeCloseTo(0.00484, 12);
    expect(of(lines, CLOUDFLARE.observabilityIngestion)?.usd).toBeCloseTo(0.00121, 12);
    // Kept 7 days: 0.00484 × 7 / 30 = 0.00112933 GB-month, at $0.10 per GB-month.
    expect(of(lines, CLOUDFLARE.observabilityStorage)?.usd).toBeCloseTo((0.00484 * 7 * 0.1) / 30, 12);
    expect(of(lines, CLOUDFLARE.workersLogsEvents)).toBeUndefined();
    // 30 November is the last day of the price per event.
    expect(of(cloudflareCost(USE, '2026-11-30').lines, CLOUDFLARE.workersLogsEvents)?.usd).toBeCloseTo(0.0006, 12);
  });

  it('adds 4.84 KB an invocation with invocation logs on, and bills an event of ours larger than that at its size', () => {
    const on = cloudflareCost(USE, '2026-12-06', { invocationLogs: true }).lines;
    // 2,000,000 invocations × 4,840 bytes = 9.68 GB, and the 0.00484 GB of our events: 9.68484 GB at $0.25.
    expect(of(on, CLOUDFLARE.observabilityIngestion)?.usd).toBeCloseTo(9.68484 * 0.25, 10);
    expect(of(on, CLOUDFLARE.observabilityStorage)?.usd).toBeCloseTo((9.68484 * 7 * 0.1) / 30, 10);
    // Events of 6,000 bytes each: 1,000 of them = 0.006 GB.
    const large = cloudflareCost({ ...USE, eventBytes: 6 }, '2026-12-06').lines;
    expect(of(large, CLOUDFLARE.observabilityIngestion)?.quantity).toBeCloseTo(0.006, 12);
  });

  it('costs only the request and its CPU when nothing else is used', () => {
    const bare = {
      ...USE,
      durableObjectRequests: 0,
      durableObjectMs: 0,
      sqliteRowsWritten: 0,
      kvReads: 0,
      r2ClassB: 0,
      events: 0,
      eventBytes: 0,
      cpuMicros: 1000,
    };
    // $0.30 + 1 ms × 1,000,000 = 1,000,000 CPU ms at $0.02 per million; two invocations, their logs off.
    expect(cloudflareCost(bare, '2026-12-06').usd).toBeCloseTo(0.32, 10);
  });
});

/** What `operations.ts` might count over 4,000 paid answers written in 2 batches of one ledger request each. */
const COUNTED: KindOperations = {
  requests: 4000,
  rateLimiter: { calls: 0, ms: 0 },
  usage: { calls: 2, ms: 10, rowsWritten: 4, answers: 4000, batches: 2 },
  kvReads: 40,
  r2ClassA: 0,
  r2ClassB: 4,
  serviceCalls: 0,
  invocations: 4002,
  invocationLogs: false,
  events: { count: 0, bytes: 0 },
};

describe('a request’s share of what a run counted', () => {
  it('divides each total by the answers', () => {
    expect(useOf(250, COUNTED)).toEqual({
      cpuMicros: 250,
      durableObjectRequests: 2 / 4000,
      durableObjectMs: 10 / 4000,
      sqliteRowsWritten: 4 / 4000,
      kvReads: 40 / 4000,
      r2ClassA: 0,
      r2ClassB: 4 / 4000,
      invocations: 4002 / 4000,
      events: 0,
      eventBytes: 0,
    });
  });

  it('reads a run of November 2026: invocations derived, logs as they were, one ledger request a batch, no events', () => {
    const { invocations, invocationLogs, events, ...rest } = COUNTED;
    const { batches, ...usage } = rest.usage;
    const legacy = countedOf({ ...rest, usage, logEvents: 4002, usageLogged: true } as unknown as Parameters<typeof countedOf>[0]);
    expect(legacy).toMatchObject({ invocations: 4002, invocationLogs: true, events: { count: 0, bytes: 0 }, usage: { batches: 2 } });
  });

  it('writes usage alone: one ledger request a batch of one, with its rows, its time and its invocation', () => {
    const alone = atBatchSize(useOf(250, COUNTED), COUNTED, 1);
    expect(alone.durableObjectRequests).toBe(1);
    // 4 rows over 2 writes: 2 a write; 10 ms over 2 writes: 5 ms.
    expect(alone.sqliteRowsWritten).toBe(2);
    expect(alone.durableObjectMs).toBe(5);
    // The app's invocation and the usage Worker's.
    expect(alone.invocations).toBeCloseTo(2, 10);
    expect(alone.kvReads).toBe(40 / 4000);
  });

  it('counts every ledger request of a batch where the ledger is split', () => {
    // One batch carried by two ledger requests (a ledger per account and deployment, say).
    const split = { ...COUNTED, usage: { ...COUNTED.usage, batches: 1 } };
    const use = atBatchSize(useOf(250, split), split, 10);
    expect(use.durableObjectRequests).toBeCloseTo(0.2, 12);
    expect(use.sqliteRowsWritten).toBeCloseTo(0.4, 12);
  });

  it('leaves a kind that writes no usage as it is', () => {
    const free = { ...COUNTED, rateLimiter: { calls: 4000, ms: 2000 }, usage: { calls: 0, ms: 0, rowsWritten: 0, answers: 0, batches: 0 } };
    const use = useOf(300, free);
    expect(atBatchSize(use, free, 1)).toBe(use);
    expect(smallestBatchWithin(use, free, '2026-12-06', 0.46)).toBeUndefined();
  });
});

describe('the batch below which a paid request passes its target', () => {
  // Nothing but the request and its usage writes: CPU, KV and R2 at 0.
  const bare = { ...COUNTED, kvReads: 0, r2ClassB: 0 };
  const use = useOf(0, bare);

  it('is where the batch’s cost over its answers fills what the request leaves of the target', () => {
    // A batch: a Durable Object request ($0.15 a million), 5 ms at 0.128 GB (0.00064 GB-s, $12.50 a million
    // GB-s: $0.000000008), two rows ($1 a million each): $0.000002158. A million requests in batches of b:
    // $0.30 + $2.158 / b ≤ $0.31 from b = 215.8, so 216.
    expect(smallestBatchWithin(use, bare, '2026-12-06', 0.31)).toBe(216);
    expect(cloudflareCost(atBatchSize(use, bare, 216), '2026-12-06').usd).toBeLessThanOrEqual(0.31);
    expect(cloudflareCost(atBatchSize(use, bare, 215), '2026-12-06').usd).toBeGreaterThan(0.31);
  });

  it('doubles with two ledger requests a batch, and is infinite when the rest is over already', () => {
    const split = { ...bare, usage: { ...bare.usage, batches: 1 } };
    // $4.316 / b ≤ $0.01 from b = 431.6.
    expect(smallestBatchWithin(useOf(0, split), split, '2026-12-06', 0.31)).toBe(432);
    // 1 ms of CPU a request: $0.32 before any usage.
    expect(smallestBatchWithin(useOf(1000, bare), bare, '2026-12-06', 0.31)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('the hosted APIs’ list prices', () => {
  const plan = (start: string) => HOSTED.find((price) => price.plan.startsWith(start));

  it('bills each address of a bulk request', () => {
    // MaxMind City Plus: $0.0003 a query; a million bulk requests of 50 = 50,000,000 queries = $15,000.
    expect(hostedCost(plan('MaxMind') as (typeof HOSTED)[number], 50)).toBeCloseTo(15_000, 6);
    // ipinfo Core: $0.000539 a request; a million single lookups = $539; a distance (two) = $1,078.
    expect(hostedCost(plan('ipinfo') as (typeof HOSTED)[number], 1)).toBeCloseTo(539, 6);
    expect(hostedCost(plan('ipinfo') as (typeof HOSTED)[number], 2)).toBeCloseTo(1078, 6);
    // ipgeolocation.io: $5 per 50,000 credits = $100 a million lookups.
    expect(hostedCost(plan('ipgeolocation') as (typeof HOSTED)[number], 1)).toBeCloseTo(100, 6);
  });

  it('has no price per million for a flat plan', () => {
    expect(hostedCost(plan('ip-api') as (typeof HOSTED)[number], 1)).toBeNaN();
  });
});

describe('docs/costs.md', () => {
  const results = {
    machine: { cpu: 'a CPU', cores: 2 },
    revision: { commit: 'abc1234', dirty: false },
    date: '2026-11-27T08:00:00Z',
    http: { rows: [{ name: 'paid lookup', cpuPerRequest: 250 }] },
    shardsPaidCpu: 'not run (--parts)',
    operations: {
      seconds: 5,
      connections: 10,
      kinds: { paid: COUNTED },
      eventsByKind: { load: { count: 2, bytes: 400 } },
      burst: { requests: 200, unavailable: 200, events: { 'data-unavailable': { count: 3, bytes: 390 } } },
    },
  } as unknown as Results;
  const document = 'before\n<!-- costs: written by npm run bench and npm run bench:costs -->\nold\n<!-- /costs -->\nafter\n';

  it('replaces only the block between its markers, naming the run and the day of its prices', () => {
    const written = withCosts(document, results, '2026-12-06');
    expect(written.startsWith('before\n<!-- costs:')).toBe(true);
    expect(written.endsWith('<!-- /costs -->\nafter\n')).toBe(true);
    expect(written).not.toContain('\nold\n');
    expect(written).toContain('`abc1234`');
    expect(written).toContain('**Priced at the prices in force on 2026-12-06**');
    // The paid lookup: $0.30 + 0.25 ms → $0.005 + 2/4000 DO requests and rows … = about $0.31, over by a little.
    expect(written).toMatch(/\| paid single lookup, usage counted .*\| \$0\.30 \| \$0\.0050 \|/);
    expect(written).toMatch(/free single lookup .*not measured/);
    expect(written).toContain('wrote 3 `data-unavailable`');
    // A run of some parts only (the 3-shard part was not run) says so.
    expect(written).toContain('a run of only the parts the costs need');
    const whole = { ...results, shardsPaidCpu: 'exit status 1' } as Results;
    expect(withCosts(document, whole, '2026-12-06')).toContain('the CPU per request of its rows in [BENCHMARKS.md]');
    expect(withCosts(document, whole, '2026-12-06', false)).toContain('whose figures are in `BENCHMARKS.json` (BENCHMARKS.md is of another run)');
  });

  it('reprices the same figures at the prices of another day, without measuring', () => {
    const november = withCosts(document, results, '2026-11-27');
    const december = withCosts(document, results, '2026-12-06');
    expect(november).toMatch(/Workers Logs: log events written .*\| until 2026-11-30; in force on 2026-11-27 \|/);
    expect(december).toMatch(/Workers Logs: log events written .*\| until 2026-11-30; not in force on 2026-12-06 \|/);
    expect(december).toMatch(/Observability .*ingestion.*\| from 2026-12-01; in force on 2026-12-06 \|/);
  });

  it('prices networks by ASN at its warm and cold extremes: no R2 read for an answer, or one Class B read each', () => {
    const asn = {
      ...results,
      http: { rows: [{ name: 'paid ASN', cpuPerRequest: 500 }] },
      operations: { ...(results.operations as object), kinds: { asn: COUNTED } },
    } as unknown as Results;
    const written = withCosts(document, asn, '2026-12-06');
    // Warm: $0.30 requests + 0.5 ms CPU ($0.010) + 500 DO requests ($0.000075) + 2.5 s × 0.128 GB of DO time ($0.000004)
    // + 1,000 rows ($0.001) + 10,000 KV reads ($0.005) + 1,000 Class B reads ($0.00036) = $0.316439.
    // Cold: one more Class B read an answer, 1,000,000 at $0.36 per million: $0.36036 of R2, $0.676439 in all.
    expect(written).toMatch(
      /\| paid networks by ASN .*\| \$0\.30 \| \$0\.010 \| .* \| \$0\.00036 warm \/ \$0\.36 cold \| \$0 \| \*\*\$0\.3164\*\* warm \/ \*\*\$0\.6764\*\* cold \|/,
    );
    expect(written).toMatch(/\| paid networks by ASN .*\| 0 \/ 0\.0010 \(cold: 1\.0\) \|/);
    expect(written).toContain('**Cold**: every answer');
    // The hosted APIs' prices are of address lookups: no ASN row there.
    expect(written.split('### The same lookups at hosted APIs')[1]).not.toContain('networks by ASN');
  });

  it('refuses a document without the markers', () => {
    expect(() => withCosts('no markers', results, '2026-12-06')).toThrow(/no block/);
  });
});
