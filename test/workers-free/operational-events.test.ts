/**
 * @module What an operator finds with invocation logs off (docs/production.md, "Operational events"): a
 * 503 `DATA_UNAVAILABLE` and a 500 each write an event of their own, with the cause the answer keeps to
 * itself, and no more than three of a kind a minute however many requests fail. The Worker is this
 * file's own module (a fresh isolate's events), called directly.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resetDatabaseForTests } from '../../src/geo/current-database.ts';
import { CURRENT_RECORD_KEY } from '../../src/geo/published.ts';
import worker from '../../src/index.ts';

/** The operational events of `kind` among the lines written to `console.error` while `run` ran, parsed. */
async function eventsOf(kind: string, run: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const lines: unknown[] = [];
  const spy = vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(line));
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return lines
    .filter((line): line is string => typeof line === 'string' && line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((event) => event.event === kind);
}

async function fetchWorker(path: string, bindings: Env): Promise<Response> {
  const request = new Request<unknown, IncomingRequestCfProperties>(`http://free.test${path}`, { headers: { 'CF-Connecting-IP': '198.19.7.1' } });
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, bindings, ctx);
  await response.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return response;
}

afterEach(() => resetDatabaseForTests());

describe('operational events', () => {
  it('write a data-unavailable event for a 503 DATA_UNAVAILABLE, with its cause, three a minute at most', async () => {
    await env.GEO_DATA.delete(CURRENT_RECORD_KEY);
    resetDatabaseForTests();
    const statuses: number[] = [];
    const events = await eventsOf('data-unavailable', async () => {
      for (let i = 0; i < 10; i++) statuses.push((await fetchWorker('/api/v1/json/81.2.69.142', env)).status);
    });
    expect(statuses).toEqual(Array(10).fill(503));
    expect(events).toHaveLength(3);
    for (const event of events) {
      expect(event).toMatchObject({ event: 'data-unavailable', status: 503 });
      expect(String(event.why)).toContain('ipgeo-current.json');
    }
  });

  it('write an internal-error event for a 500, with the error and its stack, three a minute at most', async () => {
    const broken = new Proxy({} as Env, {
      get() {
        throw new Error('secret failure at /home/build/src/secret-module.ts:12:34');
      },
    });
    const statuses: number[] = [];
    const events = await eventsOf('internal-error', async () => {
      for (let i = 0; i < 5; i++) statuses.push((await fetchWorker('/api/v1/json/8.8.8.8', broken)).status);
    });
    expect(statuses).toEqual(Array(5).fill(500));
    expect(events).toHaveLength(3);
    expect(events[0]).toMatchObject({ event: 'internal-error', status: 500, why: 'Error: secret failure at /home/build/src/secret-module.ts:12:34' });
    expect(String(events[0]?.stack)).toContain('secret failure');
  });
});
