/**
 * @module The figures that prose may state without a generated block, for the figure check
 * (`figures.ts`): constants of the code, each read from the file that holds it, and platform and
 * licence facts, each with the address of its source. A figure in prose is one of them when it has its
 * value (to the digits it is written with) and a line around it holds one of the row's words.
 */
import type { FigureRow } from './figures.ts';

/** This file, as the check's messages name it. */
export const FIGURE_TABLE = 'scripts/check/known-figures.ts';

/** The free plan's limits, as `src/ratelimit/window.ts` states them. */
const WINDOW = 'src/ratelimit/window.ts';
const LIMITS = /limit|request|window|burst|minute|allowance|polic|quota|left|free plan|RATE_LIMITED|rate/i;

/** The constants of the code that prose states, and what names each. */
const CONSTANTS: readonly FigureRow[] = [
  {
    what: 'the isolate budget',
    words: /budget|isolate|stay within|cannot\s+hold/i,
    constant: { file: 'src/geo/budget.ts', name: 'DEFAULT_BUDGET_BYTES' },
    unit: 'B',
  },
  { what: "the burst policy's window", words: LIMITS, constant: { file: WINDOW, name: 'CLIENT_POLICIES', path: [0, 'windowSeconds'] }, unit: 's' },
  { what: "the minute policy's window", words: LIMITS, constant: { file: WINDOW, name: 'CLIENT_POLICIES', path: [1, 'windowSeconds'] }, unit: 's' },
  { what: "the minute policy's quota", words: LIMITS, constant: { file: WINDOW, name: 'CLIENT_POLICIES', path: [1, 'quota'] }, unit: 'in any minute' },
  { what: "the /56's burst window", words: /\/56/, constant: { file: WINDOW, name: 'IPV6_POLICIES', path: [2, 'windowSeconds'] }, unit: 's' },
  { what: "the /56's minute window", words: /\/56/, constant: { file: WINDOW, name: 'IPV6_POLICIES', path: [3, 'windowSeconds'] }, unit: 's' },
  { what: "the /56's minute quota", words: /\/56/, constant: { file: WINDOW, name: 'IPV6_POLICIES', path: [3, 'quota'] }, unit: 'in any minute' },
  { what: "the /48's burst window", words: /\/48/, constant: { file: WINDOW, name: 'IPV6_POLICIES', path: [4, 'windowSeconds'] }, unit: 's' },
  { what: "the /48's minute window", words: /\/48/, constant: { file: WINDOW, name: 'IPV6_POLICIES', path: [5, 'windowSeconds'] }, unit: 's' },
  { what: "the /48's minute quota", words: /\/48/, constant: { file: WINDOW, name: 'IPV6_POLICIES', path: [5, 'quota'] }, unit: 'in any minute' },
  {
    what: 'the largest JSON body',
    words: /body|PAYLOAD_TOO_LARGE/i,
    constant: { file: 'src/routes/json-body.ts', name: 'MAX_JSON_BODY_BYTES' },
    unit: 'bytes',
  },
  {
    what: "the rate limiter's answer time",
    words: /Durable Object|answer|within/i,
    constant: { file: 'src/ratelimit/client.ts', name: 'LIMITER_TIMEOUT_MS' },
    unit: 'ms',
  },
  {
    what: "the isolate rate limiter's time before it tries the Durable Object again",
    words: /fallback|at a time|alone|before it tries|limiter/i,
    constant: { file: 'src/ratelimit/client.ts', name: 'LIMITER_RETRY_MS' },
    unit: 'ms',
  },
  {
    what: 'how long an isolate keeps what it read of the accounts',
    words: /KV|cache|remember|account|keeps it|has read|reach a running server/i,
    constant: { file: 'src/access/directory.ts', name: 'ACCESS_CACHE_TTL_MS' },
    unit: 'ms',
  },
  {
    what: "the memory model's fixed part",
    words: /FIXED|isolate with the Worker's code/,
    constant: { file: 'src/geo/budget.ts', name: 'MEMORY_MODEL', path: ['fixedBytes'] },
    unit: 'B',
  },
  {
    what: "the memory model's full caches",
    words: /CACHES|caches when full/,
    constant: { file: 'src/geo/budget.ts', name: 'MEMORY_MODEL', path: ['cacheBytes'] },
    unit: 'B',
  },
  {
    what: "the memory model's part of the ASN object",
    words: /\bASN\b/,
    constant: { file: 'src/geo/budget.ts', name: 'MEMORY_MODEL', path: ['asnBytes'] },
    unit: 'B',
  },
  {
    what: 'a block of an ASN object',
    words: /block/i,
    constant: { file: 'src/geo/asn-layout.ts', name: 'ASN_LAYOUT', path: ['blockBytes'] },
    unit: 'B',
  },
  {
    what: "how long requests wait for the read of an account's usage totals",
    words: /usage store|first read|that read|wait|admitted|totals/i,
    constant: { file: 'src/usage/reads.ts', name: 'READ_TIMEOUT_MS' },
    unit: 'ms',
  },
  {
    what: 'the largest answer of networks by ASN',
    words: /ASN|No answer exceeds/i,
    constant: { file: 'src/asn/answer.ts', name: 'ASN_ANSWER_MAX_BYTES' },
    unit: 'bytes',
  },
  {
    what: 'the largest ASN index an isolate keeps',
    words: /maxIndexBytes|index \(at most|largest index/i,
    constant: { file: 'src/geo/asn-layout.ts', name: 'ASN_LAYOUT', path: ['maxIndexBytes'] },
    unit: 'B',
  },
  { what: 'the longest a request waits for a load', words: /wait|up to|load/i, constant: { file: 'src/geo/loading.ts', name: 'WAIT_LIMIT_MS' }, unit: 'ms' },
  {
    what: 'how long a load may make no progress',
    words: /progress|stuck|stall/i,
    constant: { file: 'src/geo/load-progress.ts', name: 'LOAD_STALLED_MS' },
    unit: 'ms',
  },
  {
    what: 'the wait after a failed load',
    words: /Retry-After|again|tries|tried|failed/i,
    constant: { file: 'src/geo/retry-after.ts', name: 'RETRY_AFTER_SECONDS' },
    unit: 's',
  },
  { what: "the SHA-256's chunk of a load", words: /chunk/i, constant: { file: 'src/geo/identity.ts', name: 'CHUNK_BYTES' }, unit: 'B' },
  { what: 'the age at which data is stale', words: /stale|older than/i, constant: { file: 'src/geo/identity.ts', name: 'STALE_AFTER_DAYS' }, unit: 'days' },
  {
    what: 'how long a retired version is kept',
    words: /retire|delet|stopped being current|versions are kept/i,
    constant: { file: 'data/publish/record.ts', name: 'RETENTION_DAYS' },
    unit: 'days',
  },
  {
    what: 'the largest flag list file',
    words: /accepted|flag list|list/i,
    constant: { file: 'data/update/flag-lists.ts', name: 'FLAG_LIST_MAX_BYTES' },
    unit: 'B',
  },
  { what: "MaxMind's largest checksum file", words: /\.sha256|checksum/i, constant: { file: 'data/update/maxmind.ts', name: 'CHECKSUM_MAX_BYTES' }, unit: 'B' },
  { what: "MaxMind's largest archive", words: /archive/i, constant: { file: 'data/update/maxmind.ts', name: 'ARCHIVE_MAX_BYTES' }, unit: 'B' },
  { what: 'the most an archive may unpack to', words: /unpack/i, constant: { file: 'data/update/archive.ts', name: 'UNPACKED_MAX_BYTES' }, unit: 'B' },
  { what: 'the largest geofeed', words: /geofeed|hold at most/i, constant: { file: 'data/update/geofeeds.ts', name: 'GEOFEED_MAX_BYTES' }, unit: 'B' },
  { what: 'how long usage is kept', words: /usage|kept|retention/i, constant: { file: 'src/usage/ledger.ts', name: 'RETENTION_DAYS' }, unit: 'days' },
  { what: 'how long a batch id is kept', words: /batch|\bid\b|parts/i, constant: { file: 'src/usage/ledger.ts', name: 'PART_ID_DAYS' }, unit: 'days' },
  { what: 'how long a usage batch is tried', words: /tried|retry|batch/i, constant: { file: 'src/usage/recorder.ts', name: 'KEEP_MS' }, unit: 'ms' },
  {
    what: 'where a reader looks for the metadata',
    words: /metadata/i,
    constant: { file: 'src/mmdb/metadata.ts', name: 'METADATA_SEARCH' },
    unit: 'B',
  },
  {
    what: 'the most operational events of one kind an isolate writes a minute',
    words: /event|log|isolate|bound/i,
    constant: { file: 'src/events/bound.ts', name: 'EVENTS_PER_MINUTE' },
    unit: 'a minute',
  },
  { what: "a paid row's cost target", words: /target|paid|at most/i, constant: { file: 'bench/costs.ts', name: 'PAID_TARGET' }, unit: 'USD' },
  { what: "the free row's cost target", words: /target|free|at most/i, constant: { file: 'bench/costs.ts', name: 'FREE_TARGET' }, unit: 'USD' },
  {
    what: "Cloudflare's price of a million Worker requests, as the costs use it",
    words: /request|floor|Workers/i,
    constant: { file: 'bench/prices.ts', name: 'CLOUDFLARE', path: ['workersRequests', 'usd'] },
    unit: 'USD',
  },
  {
    what: "Cloudflare's price of a million Durable Object requests, as the costs use it",
    words: /Durable Object|rate limiter/i,
    constant: { file: 'bench/prices.ts', name: 'CLOUDFLARE', path: ['durableObjectRequests', 'usd'] },
    unit: 'USD',
  },
  {
    what: "how long Cloudflare's Observability keeps a Workers event, as the costs use it",
    words: /retention|stored|GB-month/i,
    constant: { file: 'bench/prices.ts', name: 'OBSERVABILITY_RETENTION_DAYS' },
    unit: 'days',
  },
  {
    what: "the home page's weight, as the browser test holds it",
    words: /compressed|weight|first view/i,
    constant: { file: 'test/browser/home-page.test.ts', name: 'BUDGET_BYTES' },
    unit: 'B',
  },
];

/** Facts of the platform, the licences and the formats, each as its source states it. */
const FACTS: readonly FigureRow[] = [
  {
    what: "a Worker isolate's memory",
    words: /isolate|Workers? |Cloudflare|memory/i,
    fact: '128 MB',
    source: 'https://developers.cloudflare.com/workers/platform/limits/#memory',
  },
  {
    what: "a request's CPU time on Workers Free",
    words: /Workers Free|free plan|CPU/i,
    fact: '10 ms',
    source: 'https://developers.cloudflare.com/workers/platform/limits/#cpu-time',
  },
  {
    what: "the memory a Durable Object's duration is billed at",
    words: /Durable Object|duration|billed/i,
    fact: '128 MB',
    source: 'https://developers.cloudflare.com/durable-objects/platform/pricing/',
  },
  {
    what: "KV's propagation to every location",
    words: /KV/,
    fact: '60 s',
    source: 'https://developers.cloudflare.com/kv/concepts/how-kv-works/',
  },
  {
    what: "how long `waitUntil` work may run after a request's answer",
    words: /waitUntil/,
    fact: '30 s',
    source: 'https://developers.cloudflare.com/workers/runtime-apis/context/#waituntil',
  },
  {
    what: 'the longest key of Workers KV',
    words: /KV|key/,
    fact: '512 bytes',
    source: 'https://developers.cloudflare.com/kv/platform/limits/',
  },
  {
    what: 'the largest object of the Workers cache',
    words: /per object|cache/i,
    fact: '512 MB',
    source: 'https://developers.cloudflare.com/workers/platform/limits/#cache-api-limits',
  },
  {
    what: 'the time within which GeoLite2 data must be replaced by an update',
    words: /licen[cs]e|GeoLite2|6c/i,
    fact: '30 days',
    source: 'https://www.maxmind.com/en/geolite2/eula (section 6c)',
  },
  {
    what: "a MaxMind DB's data section separator",
    words: /separator/i,
    fact: '16 bytes',
    source: 'https://maxmind.github.io/MaxMind-DB/ ("Data Section Separator")',
  },
];

/** The table: constants of the code, then facts with their sources. */
export const FIGURE_ROWS: readonly FigureRow[] = [...CONSTANTS, ...FACTS];
