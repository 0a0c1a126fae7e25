/**
 * @module What a million requests of one kind cost on Cloudflare: each billed quantity that a request
 * uses, priced at the prices of `prices.ts` in force on a given day, and how a paid request's cost moves
 * with its answers per usage write (the batch). Pure arithmetic over a run's figures (`operations.ts`),
 * for `costs.ts` and its tests; included monthly allowances are not subtracted.
 */
import type { KindOperations } from './operations.ts';
import { CLOUDFLARE, OBSERVABILITY_RETENTION_DAYS, type Price, unitPrice, WORKERS_EVENT_BYTES } from './prices.ts';

/**
 * The memory a Durable Object's duration is billed at, in GB: 128 MB whatever it uses, counted as
 * 0.128 GB in the publisher's own examples ("4,320,000 seconds * 128 MB / 1 GB = 552,960 GB-s",
 * https://developers.cloudflare.com/durable-objects/platform/pricing/).
 */
const DURABLE_OBJECT_GB = 0.128;

/** Days in the month of Observability's storage meter ("GB-month = sum of each day's maximum queryable GB / 30", `prices.ts`). */
const STORAGE_MONTH_DAYS = 30;

/** What one request uses of each billed quantity, on average. */
export interface RequestUse {
  /** CPU time of every Worker the request runs, in µs (the app, and shard Workers over service bindings). */
  readonly cpuMicros: number;
  /** Durable Object requests: RPC calls on stubs (the rate limiter's, the usage ledger's writes). */
  readonly durableObjectRequests: number;
  /** Wall-clock time that Durable Objects are active for it, in ms. */
  readonly durableObjectMs: number;
  readonly sqliteRowsWritten: number;
  readonly kvReads: number;
  readonly r2ClassA: number;
  readonly r2ClassB: number;
  /** Worker invocations: the app's, and each call into a Durable Object or a shard Worker; each writes an invocation log where those are on. */
  readonly invocations: number;
  /** The events this project writes itself (data and operational events), and their bytes (UTF-8). */
  readonly events: number;
  readonly eventBytes: number;
}

/** One billed quantity of a request kind, per million requests. */
export interface CostLine {
  readonly price: Price;
  /** How many of the price's unit a million requests use. */
  readonly quantity: number;
  readonly usd: number;
}

/** Whether `price` applies on `day` (`YYYY-MM-DD`): within its `from` and `until`, where it names them. */
export function inForce(price: Price, day: string): boolean {
  return (price.from === undefined || price.from <= day) && (price.until === undefined || day <= price.until);
}

/**
 * The bytes an event of this project's is billed for: Cloudflare meters the event body with its
 * enriched attributes, whose size it does not publish, so an event is priced at the published average
 * Workers event ({@link WORKERS_EVENT_BYTES}), or at its measured line where that is larger.
 */
export function billedEventBytes(use: Pick<RequestUse, 'events' | 'eventBytes'>): number {
  return use.events === 0 ? WORKERS_EVENT_BYTES : Math.max(use.eventBytes / use.events, WORKERS_EVENT_BYTES);
}

/** The Workers Logs lines of a million requests at the prices in force on `day`: per event until November 2026, by the GB ingested and stored after. */
function logLines(use: RequestUse, day: string, invocationLogs: boolean): [Price, number][] {
  const million = 1e6;
  const logged = invocationLogs ? use.invocations : 0;
  if (inForce(CLOUDFLARE.workersLogsEvents, day)) return [[CLOUDFLARE.workersLogsEvents, (use.events + logged) * million]];
  const ingestedGb = ((use.events * billedEventBytes(use) + logged * WORKERS_EVENT_BYTES) / 1e9) * million;
  return [
    [CLOUDFLARE.observabilityIngestion, ingestedGb],
    [CLOUDFLARE.observabilityStorage, (ingestedGb * OBSERVABILITY_RETENTION_DAYS) / STORAGE_MONTH_DAYS],
  ];
}

/**
 * What a million requests that each use `use` cost at Cloudflare's prices in force on `day`
 * (`YYYY-MM-DD`), by billed quantity; included allowances not subtracted.
 *
 * @param options.invocationLogs whether every invocation writes an invocation log (off by default, as `wrangler.toml` has it).
 * @returns the lines in a fixed order: requests, CPU, Durable Object requests and duration, rows written,
 *   KV reads, R2 Class A and B, then Workers Logs (one line per event, or ingestion and storage).
 */
export function cloudflareCost(use: RequestUse, day: string, options: { invocationLogs?: boolean } = {}): { lines: CostLine[]; usd: number } {
  const million = 1e6;
  const quantities: [Price, number][] = [
    [CLOUDFLARE.workersRequests, million],
    [CLOUDFLARE.workersCpu, (use.cpuMicros / 1000) * million],
    [CLOUDFLARE.durableObjectRequests, use.durableObjectRequests * million],
    [CLOUDFLARE.durableObjectDuration, (use.durableObjectMs / 1000) * DURABLE_OBJECT_GB * million],
    [CLOUDFLARE.sqliteRowsWritten, use.sqliteRowsWritten * million],
    [CLOUDFLARE.kvReads, use.kvReads * million],
    [CLOUDFLARE.r2ClassA, use.r2ClassA * million],
    [CLOUDFLARE.r2ClassB, use.r2ClassB * million],
    ...logLines(use, day, options.invocationLogs ?? false),
  ];
  const lines = quantities.map(([price, quantity]) => ({ price, quantity, usd: quantity * unitPrice(price) }));
  return { lines, usd: lines.reduce((sum, line) => sum + line.usd, 0) };
}

/** A kind's figures as a run of before December 2026 wrote them, with the fields that runs write since. */
type Recorded = Omit<KindOperations, 'invocations' | 'invocationLogs' | 'events'> &
  Partial<Pick<KindOperations, 'invocations' | 'invocationLogs' | 'events'>> & { readonly usageLogged?: boolean };

/**
 * A kind's figures in today's shape, from a run of any date: a run before December 2026 wrote no own
 * events per request (its request path logged nothing), derived its invocations the same way, had
 * invocation logs on, and wrote one ledger request per batch.
 */
export function countedOf(recorded: Recorded): KindOperations {
  const { rateLimiter, usage, serviceCalls, requests } = recorded;
  return {
    ...recorded,
    usage: { ...usage, batches: usage.batches ?? usage.calls },
    invocations: recorded.invocations ?? requests + rateLimiter.calls + usage.calls + serviceCalls,
    invocationLogs: recorded.invocationLogs ?? recorded.usageLogged ?? false,
    events: recorded.events ?? { count: 0, bytes: 0 },
  };
}

/** Per request, from the totals that `operations.ts` counted over `requests` answers. */
export function useOf(cpuMicros: number, operations: KindOperations): RequestUse {
  const per = (total: number) => total / operations.requests;
  return {
    cpuMicros,
    durableObjectRequests: per(operations.rateLimiter.calls + operations.usage.calls),
    durableObjectMs: per(operations.rateLimiter.ms + operations.usage.ms),
    sqliteRowsWritten: per(operations.usage.rowsWritten),
    kvReads: per(operations.kvReads),
    r2ClassA: per(operations.r2ClassA),
    r2ClassB: per(operations.r2ClassB),
    invocations: per(operations.invocations),
    events: per(operations.events.count),
    eventBytes: per(operations.events.bytes),
  };
}

/**
 * What one batch of usage costs in ledger requests (each a Durable Object request with its active time
 * and its rows), as the run wrote them: however the ledger is split (by account, or by account,
 * deployment and isolate), a batch is every ledger request that carries one part id.
 */
export interface LedgerWrites {
  readonly requestsPerBatch: number;
  readonly msPerRequest: number;
  readonly rowsPerRequest: number;
  /** The run's batch size: answers per batch. */
  readonly answersPerBatch: number;
}

/** The run's ledger writes; undefined for a kind that writes no usage. */
export function ledgerWrites(operations: KindOperations): LedgerWrites | undefined {
  const { usage } = operations;
  if (usage.calls === 0) return undefined;
  const batches = usage.batches ?? usage.calls;
  return {
    requestsPerBatch: usage.calls / batches,
    msPerRequest: usage.ms / usage.calls,
    rowsPerRequest: usage.rowsWritten / usage.calls,
    answersPerBatch: usage.answers / batches,
  };
}

/**
 * `use` with its answers counted in batches of `answers` (1: each answer written alone, an account's
 * answers spread over isolates that each see less than one a second), each batch costing what the run's
 * cost ({@link ledgerWrites}). Unchanged for a kind that writes no usage.
 */
export function atBatchSize(use: RequestUse, operations: KindOperations, answers: number): RequestUse {
  const ledger = ledgerWrites(operations);
  if (ledger === undefined) return use;
  const per = (total: number) => total / operations.requests;
  const ledgerRequests = ledger.requestsPerBatch / answers;
  return {
    ...use,
    durableObjectRequests: per(operations.rateLimiter.calls) + ledgerRequests,
    durableObjectMs: per(operations.rateLimiter.ms) + ledgerRequests * ledger.msPerRequest,
    sqliteRowsWritten: ledgerRequests * ledger.rowsPerRequest,
    invocations: use.invocations - per(operations.usage.calls) + ledgerRequests,
  };
}

/**
 * The fewest answers per usage write at which a million requests cost at most `target` dollars on
 * `day`: below it, they cost more. The cost is a part that no batch changes plus the batch's cost over
 * its answers, so the bound is exact. `Infinity` when the part that no batch changes is over `target`
 * already; undefined for a kind that writes no usage.
 *
 * @param options.invocationLogs as for {@link cloudflareCost}.
 */
export function smallestBatchWithin(
  use: RequestUse,
  operations: KindOperations,
  day: string,
  target: number,
  options: { invocationLogs?: boolean } = {},
): number | undefined {
  if (ledgerWrites(operations) === undefined) return undefined;
  const unbatched = cloudflareCost(atBatchSize(use, operations, Number.POSITIVE_INFINITY), day, options).usd;
  const perBatch = cloudflareCost(atBatchSize(use, operations, 1), day, options).usd - unbatched;
  if (unbatched >= target) return Number.POSITIVE_INFINITY;
  return Math.max(1, Math.ceil(perBatch / (target - unbatched) - 1e-9));
}
