/**
 * @module The list prices that docs/costs.md prices a million requests with: Cloudflare's for what a
 * request uses, and the hosted IP geolocation APIs' for the same lookups. Each price is here once,
 * with its source and the day it was read; `costs.ts` computes from these and nothing else, so a price
 * change is an edit of one line here and `npm run bench:costs`.
 *
 * Read from stored copies of the publishers' pages (no live Internet here), on the day each names:
 * Cloudflare's from the source of developers.cloudflare.com (the cloudflare/cloudflare-docs
 * repository), the others from their own pages where a copy was stored, else from a secondary listing
 * (`secondary`). A price with `from` or `until` applies on those days only: `costs.ts` prices at the
 * prices in force on the day it runs.
 */

/** The day most prices below were read (UTC). */
const READ = '2026-11-27';
/** The day Cloudflare Observability's prices and event size were read (UTC). */
const READ_OBSERVABILITY = '2026-12-06';

/** One price: `usd` for every `per` units of `unit`. */
export interface Price {
  /** What is billed, in the publisher's words. */
  readonly what: string;
  /** US dollars for {@link per} units. */
  readonly usd: number;
  readonly per: number;
  readonly unit: string;
  /** What each month includes before the price applies, in {@link unit}s; costs.ts does not subtract it (docs/costs.md, "Assumptions"). */
  readonly includedPerMonth?: number;
  /** The page the price was read from. */
  readonly source: string;
  /** The day it was read (`YYYY-MM-DD`). */
  readonly read: string;
  /** The first and last day the price applies, when the publisher names them (`YYYY-MM-DD`, inclusive). */
  readonly from?: string;
  readonly until?: string;
  /** Set when the figure was not read from the publisher's own page: where it comes from instead. */
  readonly secondary?: string;
}

/** US dollars for one unit of a price. */
export function unitPrice(price: Price): number {
  return price.usd / price.per;
}

const WORKERS_PRICING = 'https://developers.cloudflare.com/workers/platform/pricing/';
const DURABLE_OBJECTS_PRICING = 'https://developers.cloudflare.com/durable-objects/platform/pricing/';
const OBSERVABILITY_PRICING = 'https://developers.cloudflare.com/observability/pricing/';

/** Cloudflare Workers Paid, Standard usage model, and the products a request of this service touches. */
export const CLOUDFLARE = {
  workersRequests: {
    what: 'Workers Standard: requests (a service binding call to another Worker is not one)',
    usd: 0.3,
    per: 1e6,
    unit: 'request',
    includedPerMonth: 10e6,
    source: WORKERS_PRICING,
    read: READ,
  },
  workersCpu: {
    what: 'Workers Standard: CPU time, of every Worker a request runs (service bindings included)',
    usd: 0.02,
    per: 1e6,
    unit: 'CPU ms',
    includedPerMonth: 30e6,
    source: WORKERS_PRICING,
    read: READ,
  },
  durableObjectRequests: {
    what: 'Durable Objects: requests (every RPC method call on a stub is one)',
    usd: 0.15,
    per: 1e6,
    unit: 'request',
    includedPerMonth: 1e6,
    source: DURABLE_OBJECTS_PRICING,
    read: READ,
  },
  durableObjectDuration: {
    what: 'Durable Objects: duration, wall-clock time while active, billed at 128 MB',
    usd: 12.5,
    per: 1e6,
    unit: 'GB-s',
    includedPerMonth: 400_000,
    source: DURABLE_OBJECTS_PRICING,
    read: READ,
  },
  sqliteRowsWritten: {
    what: 'Durable Objects SQLite storage: rows written (setAlarm and deletes count)',
    usd: 1,
    per: 1e6,
    unit: 'row written',
    includedPerMonth: 50e6,
    source: DURABLE_OBJECTS_PRICING,
    read: READ,
  },
  kvReads: {
    what: 'Workers KV: read requests',
    usd: 0.5,
    per: 1e6,
    unit: 'read',
    includedPerMonth: 10e6,
    source: 'https://developers.cloudflare.com/kv/platform/pricing/',
    read: READ,
  },
  r2ClassA: {
    what: 'R2 Standard storage: Class A operations (list, put)',
    usd: 4.5,
    per: 1e6,
    unit: 'operation',
    includedPerMonth: 1e6,
    source: `${WORKERS_PRICING}#r2`,
    read: READ,
  },
  r2ClassB: {
    what: 'R2 Standard storage: Class B operations (get, head)',
    usd: 0.36,
    per: 1e6,
    unit: 'operation',
    includedPerMonth: 10e6,
    source: `${WORKERS_PRICING}#r2`,
    read: READ,
  },
  workersLogsEvents: {
    what: 'Workers Logs: log events written (each invocation’s execution log, each console.log)',
    usd: 0.6,
    per: 1e6,
    unit: 'event',
    includedPerMonth: 20e6,
    source: 'https://developers.cloudflare.com/workers/observability/logs/workers-logs/#pricing',
    read: READ,
    until: '2026-11-30',
  },
  observabilityIngestion: {
    what: 'Cloudflare Observability (Workers Logs from December 2026): ingestion, before compression, the event body with its enriched attributes',
    usd: 0.25,
    per: 1,
    unit: 'GB',
    includedPerMonth: 50,
    source: OBSERVABILITY_PRICING,
    read: READ_OBSERVABILITY,
    from: '2026-12-01',
  },
  observabilityStorage: {
    what: 'Cloudflare Observability: storage, the sum of each day’s most queryable GB over 30 (7 days of retention)',
    usd: 0.1,
    per: 1,
    unit: 'GB-month',
    includedPerMonth: 12,
    source: OBSERVABILITY_PRICING,
    read: READ_OBSERVABILITY,
    from: '2026-12-01',
  },
} as const satisfies Record<string, Price>;

/**
 * How long Workers Logs keep an event, in days: "Default retention: 7 days" for the `workers` dataset
 * (https://developers.cloudflare.com/observability/logs/datasets/, read 2026-12-06). An event ingested
 * is stored that long, so a GB ingested a day is 7/30 of a GB-month stored ({@link CLOUDFLARE}'s
 * `observabilityStorage`: "GB-month = sum of each day's maximum queryable GB / 30").
 */
export const OBSERVABILITY_RETENTION_DAYS = 7;

/**
 * The average size of a Workers event as Cloudflare's ingestion meters it, in bytes: "4.84 KB", the
 * "Average event size" of the `workers` dataset, which Cloudflare calls an estimate that varies by
 * record (https://developers.cloudflare.com/observability/logs/datasets/, read 2026-12-06; its KB
 * taken as 1,000 bytes, as its GB as 10^9). It prices an invocation log, whose request and response
 * metadata no local runtime writes; this project's own events are measured (`operations.ts`).
 */
export const WORKERS_EVENT_BYTES = 4_840;

/** A hosted API's list price of one IP lookup, or of a flat plan. */
export interface HostedPrice extends Price {
  /** The product and plan, in the publisher's words. */
  readonly plan: string;
  /** Whether a bulk request is billed per address in it (`true`) or per request. */
  readonly billsEachAddress: boolean;
  /** A flat monthly plan with no request limit: {@link Price.usd} is then per month, not per lookup. */
  readonly flat?: boolean;
}

/** The hosted APIs that an operator of this service competes with, their price of a lookup beyond any plan's allowance. */
export const HOSTED: readonly HostedPrice[] = [
  {
    plan: 'MaxMind GeoIP City Plus web service (formerly GeoIP2 Precision City)',
    what: 'cost per query, from prepaid service credit',
    usd: 0.0003,
    per: 1,
    unit: 'lookup',
    billsEachAddress: true,
    source: 'https://support.maxmind.com/hc/en-us/articles/4407158222491-Purchase-Service-Credit',
    read: READ,
  },
  {
    plan: 'ipinfo Core, pay as you go',
    what: 'overage request pricing: per request',
    usd: 0.000539,
    per: 1,
    unit: 'lookup',
    billsEachAddress: true,
    source: 'https://ipinfo.io/faq/article/90-manage-overages',
    read: READ,
  },
  {
    plan: 'ipgeolocation.io Pro (1,000,000 credits a month for 79 USD)',
    what: 'overage: 5 USD per 50,000 credits, a credit per valid address of a bulk lookup',
    usd: 5,
    per: 50_000,
    unit: 'lookup',
    billsEachAddress: true,
    source: 'https://ipgeolocation.io/pricing.html',
    read: READ,
    secondary:
      'the plans listing of api-evangelist/ipgeolocation (https://raw.githubusercontent.com/api-evangelist/ipgeolocation/refs/heads/main/plans/ipgeolocation-plans-pricing.yml), marked generated and unverified; credits per address from https://ipgeolocation.io/documentation/credits-usage.html',
  },
  {
    plan: 'ip-api Pro',
    what: 'a flat monthly fee, unlimited requests',
    usd: Number.NaN,
    per: 1,
    unit: 'month',
    billsEachAddress: false,
    flat: true,
    source: 'https://members.ip-api.com/',
    read: READ,
    secondary: 'no stored copy of the price page; the fee is not given here (other listings mention about 13 a month, unverified)',
  },
];
