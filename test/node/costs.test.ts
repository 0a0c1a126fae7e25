/**
 * The arithmetic of docs/costs.md (`bench/costs.ts`): each expected value is worked out by hand below
 * from the prices as the publishers print them, not from `bench/prices.ts` or by running the code.
 */
import { describe, expect, it } from 'vitest';
import { aloneInItsBatch, cloudflareCost, hostedCost, type RequestUse, useOf, withCosts } from '../../bench/costs.ts';
import type { KindOperations } from '../../bench/operations.ts';
import { CLOUDFLARE, HOSTED, type Price } from '../../bench/prices.ts';
import type { Results } from '../../bench/report.ts';

/** A request that uses a little of everything. */
const USE: RequestUse = {
  cpuMicros: 300,
  durableObjectRequests: 1,
  durableObjectMs: 0.5,
  sqliteRowsWritten: 0.25,
  kvReads: 0.01,
  r2ClassA: 0,
  r2ClassB: 0.001,
  logEvents: 2,
};

describe('a million requests on Cloudflare', () => {
  it('prices each quantity at the published rates (events for Workers Logs until November 2026)', () => {
    const { lines, usd } = cloudflareCost(USE, '2026-11-27');
    // Lines are found by their price; their values are worked out here.
    const of = (price: Price) => lines.find((line) => line.price === price)?.usd;
    // Workers: $0.30 per million requests.
    expect(of(CLOUDFLARE.workersRequests)).toBeCloseTo(0.3, 10);
    // 300 µs = 0.3 ms a request, 300,000 CPU ms a million, at $0.02 per million CPU ms = $0.006.
    expect(of(CLOUDFLARE.workersCpu)).toBeCloseTo(0.006, 10);
    // One Durable Object request each, $0.15 per million.
    expect(of(CLOUDFLARE.durableObjectRequests)).toBeCloseTo(0.15, 10);
    // 0.5 ms × 1,000,000 = 500 s, × 0.128 GB = 64 GB-s, at $12.50 per million GB-s = $0.0008.
    expect(of(CLOUDFLARE.durableObjectDuration)).toBeCloseTo(0.0008, 10);
    // 250,000 rows written at $1.00 per million = $0.25.
    expect(of(CLOUDFLARE.sqliteRowsWritten)).toBeCloseTo(0.25, 10);
    // 10,000 KV reads at $0.50 per million = $0.005.
    expect(of(CLOUDFLARE.kvReads)).toBeCloseTo(0.005, 10);
    // No R2 Class A; 1,000 Class B operations at $0.36 per million = $0.00036.
    expect(of(CLOUDFLARE.r2ClassA)).toBe(0);
    expect(of(CLOUDFLARE.r2ClassB)).toBeCloseTo(0.00036, 10);
    // 2,000,000 log events at $0.60 per million = $1.20.
    expect(of(CLOUDFLARE.workersLogsEvents)).toBeCloseTo(1.2, 10);
    expect(usd).toBeCloseTo(0.3 + 0.006 + 0.15 + 0.0008 + 0.25 + 0.005 + 0.00036 + 1.2, 10);
  });

  it('prices Workers Logs by the GB ingested from December 2026', () => {
    const { lines } = cloudflareCost(USE, '2026-12-01');
    const logs = lines.find((line) => line.price.unit === 'GB');
    // 2,000,000 events of an assumed 1,000 bytes = 2 GB, at $0.25 per GB = $0.50.
    expect(logs?.quantity).toBeCloseTo(2, 10);
    expect(logs?.usd).toBeCloseTo(0.5, 10);
    expect(lines.some((line) => line.price.unit === 'event')).toBe(false);
    // 30 November is the last day of the price per event.
    expect(cloudflareCost(USE, '2026-11-30').lines.some((line) => line.price.unit === 'event')).toBe(true);
  });

  it('costs only the request and its CPU when nothing else is used', () => {
    const bare = { ...USE, durableObjectRequests: 0, durableObjectMs: 0, sqliteRowsWritten: 0, kvReads: 0, r2ClassB: 0, logEvents: 0, cpuMicros: 1000 };
    // $0.30 + 1 ms × 1,000,000 = 1,000,000 CPU ms at $0.02 per million.
    expect(cloudflareCost(bare, '2026-11-27').usd).toBeCloseTo(0.32, 10);
  });
});

/** What `operations.ts` might count over 4,000 paid answers written in 2 batches. */
const COUNTED: KindOperations = {
  requests: 4000,
  rateLimiter: { calls: 0, ms: 0 },
  usage: { calls: 2, ms: 10, rowsWritten: 4, answers: 4000 },
  kvReads: 40,
  r2ClassA: 0,
  r2ClassB: 4,
  serviceCalls: 0,
  logEvents: 4002,
  usageLogged: true,
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
      logEvents: 4002 / 4000,
    });
  });

  it('writes usage alone: one store request, two rows, one write’s time and its log event per request', () => {
    const alone = aloneInItsBatch(useOf(250, COUNTED), COUNTED);
    expect(alone.durableObjectRequests).toBe(1);
    expect(alone.sqliteRowsWritten).toBe(2);
    // 10 ms over 2 writes: 5 ms a write.
    expect(alone.durableObjectMs).toBe(5);
    // The app's execution log and the usage Worker's.
    expect(alone.logEvents).toBeCloseTo(2, 10);
    expect(alone.kvReads).toBe(40 / 4000);
  });

  it('leaves a kind that writes no usage as it is', () => {
    const free = { ...COUNTED, rateLimiter: { calls: 4000, ms: 2000 }, usage: { calls: 0, ms: 0, rowsWritten: 0, answers: 0 } };
    const use = useOf(300, free);
    expect(aloneInItsBatch(use, free)).toBe(use);
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
    operations: { seconds: 5, connections: 10, kinds: { paid: COUNTED } },
  } as unknown as Results;

  it('replaces only the block between its markers, naming the run', () => {
    const document = 'before\n<!-- costs: written by npm run bench and npm run bench:costs -->\nold\n<!-- /costs -->\nafter\n';
    const written = withCosts(document, results);
    expect(written.startsWith('before\n<!-- costs:')).toBe(true);
    expect(written.endsWith('<!-- /costs -->\nafter\n')).toBe(true);
    expect(written).not.toContain('\nold\n');
    expect(written).toContain('`abc1234`');
    // The paid lookup: $0.30 + 0.25 ms → $0.005 + 2/4000 DO requests → $0.000075 + … ; its row is there, the others say why not.
    expect(written).toMatch(/paid single lookup, usage counted .*\| \$0\.30 \|/);
    expect(written).toMatch(/free single lookup .*not measured/);
  });

  it('refuses a document without the markers', () => {
    expect(() => withCosts('no markers', results)).toThrow(/no block/);
  });
});
