/**
 * @module A bench-only Worker for `npm run bench:ledger`: simulated paid isolates, each the production
 * usage state of one isolate (`src/usage/isolate.ts`: its recorder, views and reads), counting answers of
 * a few deployments, kinds and credentials and writing a batch a second (or once every few seconds, when
 * this machine cannot drive them faster) to the ledger of its `USAGE` binding (`ledger-store.js`), as the
 * usage gate makes them. `POST /write` drives writers for some
 * seconds and reads back what the ledger holds; `POST /quota` drives isolates that already know an
 * account's totals against its monthly quota and counts what they admit.
 *
 * JavaScript, as the other bench Workers (`billed.js`): wrangler bundles it with the TypeScript it imports.
 */
import { IsolateUsage } from '../../src/usage/isolate.ts';
import { readLedgerRows, readLedgerTotals } from '../../src/usage/ledger-reads.ts';
import { bindingQuotas, decideQuota } from '../../src/usage/quota.ts';
import { LEDGER_SHARDS, shardName } from '../../src/usage/spread.ts';
import { seededRandom as seeded } from '../../test/support/seeded-random.ts';

const DEPLOYMENTS = ['de', 'us', 'sg', 'au'];
/** Kinds as a paid account's traffic mixes them: mostly single lookups. */
const KINDS = ['single', 'single', 'single', 'bulk', 'distance', 'reference'];
const CREDENTIALS = ['key_0000000000a1', 'key_0000000000a2', 'ip:203.0.113.90', 'website:app.bench.example'];
const TICK_MS = 100;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const today = () => new Date().toISOString().slice(0, 10);

/** The `USAGE` binding with the time from each write to its answer noted (ms), as the writer sees it, and the writes started in each second (`started`, by s since the epoch). */
function timed(namespace, latencies, started) {
  return {
    getByName(name) {
      const stub = namespace.getByName(name);
      return {
        async add(...args) {
          const second = Math.floor(Date.now() / 1000);
          started[second] = (started[second] ?? 0) + 1;
          const startedAt = performance.now();
          try {
            return await stub.add(...args);
          } finally {
            latencies.push(performance.now() - startedAt);
          }
        },
        totals: (...args) => stub.totals(...args),
      };
    },
  };
}

function percentile(sorted, share) {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

/** The ids of the account's objects, root first, as the store's counts name them. */
function objectIds(namespace, account) {
  return Array.from({ length: LEDGER_SHARDS }, (_, shard) => namespace.idFromName(shardName(account, shard)).toString());
}

function sums(rows) {
  return rows.reduce((sum, row) => ({ requests: sum.requests + row.requests, lookups: sum.lookups + row.lookups, problems: sum.problems + row.problems }), {
    requests: 0,
    lookups: 0,
    problems: 0,
  });
}

/**
 * `writers` isolates, each answering a burst of `answersPerBatch` requests once every `everySeconds`
 * and a tick (from a moment of its own in the first period), so that each writes a batch that often, for `seconds`;
 * then every batch written. What was sent, and what the ledger holds.
 */
async function write(env, { account, writers, seconds, everySeconds, answersPerBatch, seed }) {
  const pending = [];
  const random = seeded(seed);
  // One tick more than the period: the burst comes just after the batch of the last one was sealed, as a busy isolate's next answer does.
  const period = Math.round((everySeconds * 1000) / TICK_MS) + 1;
  const started = {};
  // Each isolate with its own binding, whose writes' times it keeps.
  const isolates = Array.from({ length: writers }, (_, index) => {
    const latencies = [];
    return {
      usage: new IsolateUsage(),
      deployment: DEPLOYMENTS[index % DEPLOYMENTS.length],
      phase: Math.floor(random() * period),
      latencies,
      request: { ctx: { waitUntil: (promise) => pending.push(promise) }, store: timed(env.USAGE, latencies, started) },
    };
  });
  const sent = { requests: 0, lookups: 0, problems: 0 };
  const startedAt = Date.now();
  for (let tick = 0; tick < (seconds * 1000) / TICK_MS; tick++) {
    for (const isolate of isolates) {
      if (tick < isolate.phase || (tick - isolate.phase) % period !== 0) continue;
      for (let answer = 0; answer < answersPerBatch; answer++) {
        const kind = KINDS[Math.floor(random() * KINDS.length)];
        const problem = random() < 0.05;
        const lookups = problem ? 0 : kind === 'bulk' ? 1 + Math.floor(random() * 50) : kind === 'distance' ? 2 : kind === 'reference' ? 0 : 1;
        const credential = CREDENTIALS[Math.floor(random() * CREDENTIALS.length)];
        const count = { account, deployment: isolate.deployment, kind, credential, outcome: problem ? 'problem' : 'success', lookups };
        isolate.usage.recorder.record(count, isolate.request);
        if (problem) sent.problems += 1;
        else {
          sent.requests += 1;
          sent.lookups += lookups;
        }
      }
    }
    await sleep(startedAt + (tick + 1) * TICK_MS - Date.now());
  }
  const endedAt = Date.now();
  // Once every keeper has written its batch or given up (25 s), an isolate that still holds counts gets one
  // more request, whose keeper takes the batch over, as a later request of a live isolate does.
  let takenOver = 0;
  for (let round = 0; round < 10; round++) {
    while (pending.length > 0) await Promise.all(pending.splice(0));
    const behind = isolates.filter((isolate) => isolate.usage.recorder.unconfirmed(account).length > 0);
    if (behind.length === 0) break;
    takenOver += behind.length;
    for (const isolate of behind) {
      const count = { account, deployment: isolate.deployment, kind: 'reference', credential: CREDENTIALS[0], outcome: 'success', lookups: 0 };
      isolate.usage.recorder.record(count, isolate.request);
      sent.requests += 1;
    }
  }
  const drainedAt = Date.now();
  const stored = sums(await readLedgerRows(env.USAGE, account, today(), today()));
  const { spread } = await readLedgerTotals(env.USAGE, account, today(), []);
  const latencies = isolates.flatMap((isolate) => isolate.latencies).sort((a, b) => a - b);
  const perIsolate = isolates.map((isolate) => isolate.latencies.length).sort((a, b) => a - b);
  return {
    sent,
    stored,
    spread,
    writes: latencies.length,
    takenOver,
    writesPerIsolate: { min: perIsolate[0] ?? 0, median: percentile(perIsolate, 0.5), max: perIsolate.at(-1) ?? 0 },
    started,
    latencyMs: { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: latencies.at(-1) ?? 0 },
    startedAt,
    endedAt,
    drainedAt,
    objects: objectIds(env.USAGE, account),
  };
}

/**
 * `writers` isolates that know the account's totals (each read them first), each admitting one lookup
 * `lookupsPerSecond` times a second while the monthly quota (that many seconds of their traffic) has
 * room, as the usage gate decides; until every one has been refused for two seconds.
 */
async function quota(env, { account, writers, lookupsPerSecond, quotaSeconds, seed }) {
  const pending = [];
  const request = { ctx: { waitUntil: (promise) => pending.push(promise) }, store: env.USAGE };
  const random = seeded(seed);
  const isolates = Array.from({ length: writers }, () => new IsolateUsage());
  await Promise.all(isolates.map((usage) => usage.reads.known(account, request)));
  const every = Math.max(1, Math.round(1000 / TICK_MS / lookupsPerSecond));
  const offsets = isolates.map(() => Math.floor(random() * every));
  const rate = writers * lookupsPerSecond;
  const limit = rate * quotaSeconds;
  const policies = bindingQuotas({ monthly: limit, dailyWebsite: null }, false, today());
  let admitted = 0;
  let refused = 0;
  let reachedAt = null;
  let lastAdmittedAt = null;
  const startedAt = Date.now();
  for (let tick = 0; Date.now() < (lastAdmittedAt ?? startedAt) + 2_000 || reachedAt === null; tick++) {
    if (tick * TICK_MS > (quotaSeconds + 20) * 1000) break;
    for (const [index, usage] of isolates.entries()) {
      if ((tick + offsets[index]) % every !== 0) continue;
      const decision = decideQuota(policies, usage.used(account), 1, Date.now());
      const count = {
        account,
        deployment: DEPLOYMENTS[index % DEPLOYMENTS.length],
        kind: 'single',
        credential: CREDENTIALS[0],
        lookups: decision.allowed ? 1 : 0,
      };
      usage.recorder.record({ ...count, outcome: decision.allowed ? 'success' : 'problem' }, request);
      if (!decision.allowed) {
        refused += 1;
        continue;
      }
      admitted += 1;
      lastAdmittedAt = Date.now();
      if (admitted === limit) reachedAt = lastAdmittedAt;
    }
    await sleep(startedAt + (tick + 1) * TICK_MS - Date.now());
  }
  while (pending.length > 0) await Promise.all(pending.splice(0));
  const stored = sums(await readLedgerRows(env.USAGE, account, today(), today()));
  const { spread } = await readLedgerTotals(env.USAGE, account, today(), []);
  return {
    quota: limit,
    rate,
    admitted,
    refused,
    stored,
    spread,
    reachedMs: reachedAt === null ? null : reachedAt - startedAt,
    trailMs: reachedAt === null ? null : lastAdmittedAt - reachedAt,
  };
}

export default {
  async fetch(request, env) {
    const path = new URL(request.url).pathname;
    const options = await request.json();
    if (path === '/write') return Response.json(await write(env, options));
    if (path === '/quota') return Response.json(await quota(env, options));
    return new Response('POST /write or /quota', { status: 404 });
  },
};
