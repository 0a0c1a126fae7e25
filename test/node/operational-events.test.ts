/**
 * The bound on operational events (`src/events/bound.ts`, `operational.ts`): at most three of a kind in
 * any minute of an isolate, the rest counted and named by the next one written. Clocks are given, never
 * waited for.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventBound } from '../../src/events/bound.ts';
import { reportEvent } from '../../src/events/operational.ts';

/** A clock the test moves: ms since an arbitrary start. */
function clock(start = 1_000_000) {
  const time = { now: start };
  return { time, now: () => time.now };
}

describe('EventBound', () => {
  it('admits three of a kind in a minute, holds back the rest, and counts them for the next one admitted', () => {
    const { time, now } = clock();
    const bound = new EventBound(now);
    const admitted = Array.from({ length: 10 }, () => bound.admit('data-unavailable'));
    expect(admitted).toEqual([{ suppressed: 0 }, { suppressed: 0 }, { suppressed: 0 }, null, null, null, null, null, null, null]);
    // 59.999 s after the first: the window still holds three.
    time.now += 59_999;
    expect(bound.admit('data-unavailable')).toBeNull();
    // A minute after the first one written, one more may go, and says that eight were held back.
    time.now += 1;
    expect(bound.admit('data-unavailable')).toEqual({ suppressed: 8 });
    expect(bound.admit('data-unavailable')).toEqual({ suppressed: 0 });
  });

  it('never writes more than three in any 60 s, whatever the spacing', () => {
    const { time, now } = clock();
    const bound = new EventBound(now);
    const written: number[] = [];
    // An event every 7 s for ten minutes.
    for (let i = 0; i < 90; i++) {
      if (bound.admit('revoked-key') !== null) written.push(time.now);
      time.now += 7_000;
    }
    for (const at of written) expect(written.filter((t) => t >= at && t < at + 60_000).length).toBeLessThanOrEqual(3);
    // 0, 7 and 14 s, then every 63 s the next after the window: 63, 70, 77, 126, …: 3 in each 63 s.
    expect(written.slice(0, 6)).toEqual([0, 7, 14, 63, 70, 77].map((s) => 1_000_000 + s * 1000));
  });

  it('bounds each kind apart: a flood of one leaves another its three', () => {
    const { now } = clock();
    const bound = new EventBound(now);
    for (let i = 0; i < 100; i++) bound.admit('rate-limiter-unreachable');
    expect([bound.admit('usage-write-failed'), bound.admit('usage-write-failed'), bound.admit('usage-write-failed')]).toEqual([
      { suppressed: 0 },
      { suppressed: 0 },
      { suppressed: 0 },
    ]);
    expect(bound.admit('usage-write-failed')).toBeNull();
  });
});

describe('reportEvent', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes one JSON line per event admitted, at its level, with the location and the count held back', () => {
    let now = 5_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const errors: string[] = [];
    const warnings: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    vi.spyOn(console, 'warn').mockImplementation((line: string) => void warnings.push(line));
    const place = { cf: { colo: 'FRA' } };
    for (let i = 0; i < 50; i++) reportEvent({ event: 'data-unavailable', status: 503, why: 'the load did not finish within 20 s' }, place);
    for (let i = 0; i < 5; i++) reportEvent({ event: 'revoked-key', account: 'acme', key: 'key_1' });
    expect(errors.map((line) => JSON.parse(line))).toEqual(
      Array(3).fill({ event: 'data-unavailable', status: 503, why: 'the load did not finish within 20 s', colo: 'FRA' }),
    );
    expect(warnings.map((line) => JSON.parse(line))).toEqual(Array(3).fill({ event: 'revoked-key', account: 'acme', key: 'key_1' }));
    now += 60_000;
    reportEvent({ event: 'data-unavailable', status: 503, why: 'the current record cannot be read' }, place);
    expect(JSON.parse(errors.at(-1) ?? '')).toEqual({
      event: 'data-unavailable',
      status: 503,
      why: 'the current record cannot be read',
      colo: 'FRA',
      suppressed: 47,
    });
  });

  it('cuts long strings, so that no input makes an event large', () => {
    vi.spyOn(Date, 'now').mockReturnValue(9_000_000_000);
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
    reportEvent({ event: 'invalid-account-entry', key: `key:${'x'.repeat(10_000)}`, why: 'y'.repeat(10_000) });
    reportEvent({ event: 'internal-error', status: 500, why: 'z'.repeat(10_000), stack: 's'.repeat(10_000) });
    const [entry, internal] = lines.map((line) => JSON.parse(line));
    expect([entry.key.length, entry.why.length, internal.why.length, internal.stack.length]).toEqual([300, 300, 300, 1000]);
    for (const line of lines) expect(line.length).toBeLessThan(1_200 + 300);
  });
});
