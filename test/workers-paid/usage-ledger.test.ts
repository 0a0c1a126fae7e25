/**
 * @module The usage store (`src/usage/ledger.ts`) through its binding, as the paid Workers call it: a part
 * is applied once however often it is sent, totals of a day and its month, read-your-writes ids, and
 * rows kept 400 days after their day, then deleted. Days are fixed in the tests (a part carries its
 * writer's day), so nothing waits. Objects `ledger-*` with random suffixes: this file only.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { UsageLedger } from '../../src/usage/ledger.ts';
import type { UsageRow } from '../../src/usage/wire.ts';

const store = env.USAGE as unknown as DurableObjectNamespace<UsageLedger>;
const ledger = (name: string) => store.getByName(`${name}-${crypto.randomUUID().slice(0, 8)}`);

const row = (day: string, fields: Partial<UsageRow> = {}): UsageRow => ({
  day,
  deployment: 'de',
  kind: 'single',
  credential: 'key_000000000001',
  requests: 1,
  lookups: 1,
  problems: 0,
  ...fields,
});

/** The day `days` after `day`, by the calendar (Date.UTC), independently of the code. */
const plusDays = (day: string, days: number) => {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, date + days)).toISOString().slice(0, 10);
};

describe('the usage store', () => {
  it('applies a part once, however often it is sent, and sums rows into the day and the month', async () => {
    const stub = ledger('ledger-once');
    const part = {
      id: 'isolate-a.1',
      rows: [
        row('2026-11-20', { lookups: 3, requests: 2 }),
        row('2026-11-20', { credential: 'website:app.example', lookups: 4, requests: 1 }),
        row('2026-11-20', { kind: 'reference', lookups: 0, requests: 0, problems: 2 }),
      ],
    };
    const first = await stub.add([part], '2026-11-20');
    const again = await stub.add([part], '2026-11-20');
    const expected = { requests: 3, lookups: 7, problems: 2, websiteLookups: 4 };
    expect(first).toEqual({ day: '2026-11-20', dayTotals: expected, month: '2026-11-01', monthTotals: expected, spread: 1 });
    expect(again).toEqual(first);
    const later = await stub.add([part, { id: 'isolate-b.7', rows: [row('2026-11-21'), row('2026-10-31', { lookups: 50 })] }], '2026-11-21');
    expect(later).toEqual({
      day: '2026-11-21',
      dayTotals: { requests: 1, lookups: 1, problems: 0, websiteLookups: 0 },
      month: '2026-11-01',
      monthTotals: { requests: 4, lookups: 8, problems: 2, websiteLookups: 4 },
      spread: 1,
    });
    expect((await stub.rows('2026-10-31', '2026-11-20')).rows).toEqual([
      row('2026-10-31', { lookups: 50 }),
      row('2026-11-20', { kind: 'reference', lookups: 0, requests: 0, problems: 2 }),
      row('2026-11-20', { lookups: 3, requests: 2 }),
      row('2026-11-20', { credential: 'website:app.example', lookups: 4, requests: 1 }),
    ]);
  });

  it('says which of a reader’s part ids it holds', async () => {
    const stub = ledger('ledger-ids');
    await stub.add([{ id: 'isolate-c.1', rows: [row('2026-11-22')] }], '2026-11-22');
    const { totals, applied } = await stub.totals('2026-11-22', ['isolate-c.1', 'isolate-c.2']);
    expect(applied).toEqual(['isolate-c.1']);
    expect(totals.dayTotals).toEqual({ requests: 1, lookups: 1, problems: 0, websiteLookups: 0 });
  });

  it('keeps a row 400 days after its day and deletes it on the 401st', async () => {
    const stub = ledger('ledger-retention');
    // Days ahead of the real clock, so that the store's alarm (below) has nothing to delete meanwhile.
    const old = '2031-06-01';
    await stub.add([{ id: 'isolate-d.1', rows: [row(old), row(plusDays(old, 1))] }], old);
    await stub.add([{ id: 'isolate-d.2', rows: [row(plusDays(old, 400))] }], plusDays(old, 400));
    expect((await stub.rows(old, plusDays(old, 400))).rows.map((kept) => kept.day)).toEqual([old, plusDays(old, 1), plusDays(old, 400)]);
    await stub.add([{ id: 'isolate-d.3', rows: [row(plusDays(old, 401))] }], plusDays(old, 401));
    expect((await stub.rows(old, plusDays(old, 401))).rows.map((kept) => kept.day)).toEqual([plusDays(old, 1), plusDays(old, 400), plusDays(old, 401)]);
  });

  it('deletes the expired rows of an account that writes no more, by its alarm on the real clock', async () => {
    const stub = ledger('ledger-alarm');
    const today = new Date().toISOString().slice(0, 10);
    const expired = plusDays(today, -401);
    const kept = plusDays(today, -399);
    // Written on the day it happened, 401 days ago: its alarm for that row's expiry is due already.
    await stub.add([{ id: 'isolate-e.1', rows: [row(expired), row(kept)] }], expired);
    let days = (await stub.rows(expired, today)).rows.map((left) => left.day);
    for (let attempt = 0; attempt < 50 && days.includes(expired); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      days = (await stub.rows(expired, today)).rows.map((left) => left.day);
    }
    expect(days).toEqual([kept]);
  });
});
