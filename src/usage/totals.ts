/** @module Sums of usage rows over a UTC day and its month, shared by the store and the isolates' own counts. */
import { WEBSITE_CREDENTIAL_PREFIX } from '../access/check.ts';
import type { AccountTotals, PeriodTotals, UsageRow } from './wire.ts';

/** `totals` with `rows` added: each to the month when it is of the month, and to the day when it is of the day. */
export function withRows(totals: AccountTotals, rows: Iterable<UsageRow>): AccountTotals {
  let { dayTotals, monthTotals } = totals;
  for (const row of rows) {
    if (row.day.slice(0, 7) !== totals.month.slice(0, 7)) continue;
    monthTotals = plus(monthTotals, row);
    if (row.day === totals.day) dayTotals = plus(dayTotals, row);
  }
  return { ...totals, dayTotals, monthTotals };
}

function plus(totals: PeriodTotals, row: UsageRow): PeriodTotals {
  return {
    requests: totals.requests + row.requests,
    lookups: totals.lookups + row.lookups,
    problems: totals.problems + row.problems,
    websiteLookups: totals.websiteLookups + (row.credential.startsWith(WEBSITE_CREDENTIAL_PREFIX) ? row.lookups : 0),
  };
}
