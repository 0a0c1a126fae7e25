/**
 * @module A bench-only Worker entry: the production Worker (`src/index.ts`) with its bindings wrapped
 * so that every billable call it makes is counted: Durable Object RPC calls (with their wall time, and
 * for the usage store's writes the rows and answers they carry), KV reads, R2 operations, and calls to
 * shard Workers over service bindings. `GET /__bench/billed` answers the counts so far, before the app
 * sees the request. `npm run bench` (`bench/operations.ts`) loads it beside the CPU rows, never in
 * them: the wrapping costs CPU of its own.
 *
 * JavaScript, for the reason `lookup-only.js` gives.
 */
import worker from '../../src/index.ts';

/** Counts by name (`RATE_LIMITER.hit`, `ACCOUNTS.get`, …): calls, wall ms, rows written, answers carried and batches begun. */
const counts = {};

function note(name, ms = 0, rows = 0, answers = 0, batches = 0) {
  const entry = counts[name] ?? { calls: 0, ms: 0, rows: 0, answers: 0, batches: 0 };
  entry.calls += 1;
  entry.ms += ms;
  entry.rows += rows;
  entry.answers += answers;
  entry.batches += batches;
  counts[name] = entry;
}

/** The ids of the usage parts written so far: a batch is every part of one id, however many ledger requests carry it. */
const batchIds = new Set();

/**
 * What a usage write carries (`src/usage/recorder.ts`, `ledger.ts`): per part, the row of its id and
 * one row per counted row (an upsert); the answers the rows count; and the batches it is the first
 * write of (a part id not seen before), so that the ledger requests per batch are known.
 */
function usageWrite(args) {
  const [parts] = args;
  let rows = 0;
  let answers = 0;
  let batches = 0;
  for (const part of parts ?? []) {
    rows += 1 + part.rows.length;
    for (const row of part.rows) answers += row.requests + row.problems;
    if (!batchIds.has(part.id)) {
      batchIds.add(part.id);
      batches += 1;
    }
  }
  return { rows, answers, batches };
}

/** `target` whose method calls are counted under `prefix.method`, timed until their promise settles. */
function counted(target, prefix, wrapResult = () => undefined) {
  return new Proxy(target, {
    get(object, property) {
      const value = object[property];
      if (typeof property !== 'string' || typeof value !== 'function') return value;
      return (...args) => {
        const result = object[property](...args);
        const wrapped = wrapResult(property, result);
        if (wrapped !== undefined) return wrapped;
        const name = `${prefix}.${property}`;
        const carried = prefix === 'USAGE' && property === 'add' ? usageWrite(args) : { rows: 0, answers: 0, batches: 0 };
        const started = performance.now();
        if (result && typeof result.then === 'function') {
          return Promise.resolve(result).then(
            (settled) => {
              note(name, performance.now() - started, carried.rows, carried.answers, carried.batches);
              return settled;
            },
            (error) => {
              note(name, performance.now() - started);
              throw error;
            },
          );
        }
        note(name);
        return result;
      };
    },
  });
}

/** A Durable Object namespace whose stubs count their RPC calls under its binding's name. */
function countedNamespace(namespace, binding) {
  return counted(namespace, `${binding}.namespace`, (property, result) => (['get', 'getByName'].includes(property) ? counted(result, binding) : undefined));
}

const wrappedEnvs = new WeakMap();

/** The env with its billed bindings counted; one wrapped env per env, so that per-isolate state keyed by a binding stays put. */
function countedEnv(env) {
  let wrapped = wrappedEnvs.get(env);
  if (wrapped === undefined) {
    wrapped = { ...env };
    for (const binding of ['RATE_LIMITER', 'USAGE']) if (env[binding]) wrapped[binding] = countedNamespace(env[binding], binding);
    for (const binding of ['ACCOUNTS', 'GEO_DATA']) if (env[binding]) wrapped[binding] = counted(env[binding], binding);
    for (const binding of Object.keys(env).filter((name) => /^SHARD_\d+$/.test(name))) wrapped[binding] = counted(env[binding], 'SHARD');
    wrappedEnvs.set(env, wrapped);
  }
  return wrapped;
}

export default {
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === '/__bench/billed') return Response.json(counts);
    return worker.fetch(request, countedEnv(env), ctx);
  },
};
// The deployment's Durable Object binding names this class.
export { RateLimiter } from '../../src/ratelimit/rate-limiter.ts';
