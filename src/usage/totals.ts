/** @module Sums of usage rows over a UTC day and its month, shared by the store and the isolates' own counts. */
import { WEBSITE_CREDENTIAL_PREFIX } from '../access/check.ts';
import { monthStart } from './period.ts';
import { type AccountTotals, NO_USE, type PeriodTotals, type UsageRow } from './wire.ts';

/** `totals` with `rows` added: each to the month when it is of the month, and to the day when it is of the day. */
export function withRows(totals: AccountTotals, rows: Iterable<UsageRow>): AccountTotals {
  let { dayTotals, monthTotals } = totals;
  for (const row of rows) {
    if (row.day.slice(0, 7) !== totals.month.slice(0, 7)) continue;
    monthTotals = plus(monthTotals, rowTotals(row));
    if (row.day === totals.day) dayTotals = plus(dayTotals, rowTotals(row));
  }
  return { ...totals, dayTotals, monthTotals };
}

/** `totals` with what `other` knows of the same day and month added (another object's totals; of another day or month, only what is shared). */
export function withTotals(totals: AccountTotals, other: AccountTotals): AccountTotals {
  return {
    ...totals,
    dayTotals: other.day === totals.day ? plus(totals.dayTotals, other.dayTotals) : totals.dayTotals,
    monthTotals: other.month === totals.month ? plus(totals.monthTotals, other.monthTotals) : totals.monthTotals,
  };
}

/**
 * What two reports of one account's totals tell together, for `day`: each measure the larger of the two
 * where both are of the period (counts only grow within a day and a month, so each is a lower bound of
 * the truth, and so is their larger), else the one that is.
 */
export function atLeast(day: string, a: AccountTotals | undefined, b: AccountTotals): AccountTotals {
  const month = monthStart(day);
  const dayOf = (told: AccountTotals | undefined) => (told?.day === day ? told.dayTotals : NO_USE);
  const monthOf = (told: AccountTotals | undefined) => (told?.month === month ? told.monthTotals : NO_USE);
  return { day, dayTotals: larger(dayOf(a), dayOf(b)), month, monthTotals: larger(monthOf(a), monthOf(b)) };
}

function rowTotals(row: UsageRow): PeriodTotals {
  return {
    requests: row.requests,
    lookups: row.lookups,
    problems: row.problems,
    websiteLookups: row.credential.startsWith(WEBSITE_CREDENTIAL_PREFIX) ? row.lookups : 0,
  };
}

function plus(a: PeriodTotals, b: PeriodTotals): PeriodTotals {
  return {
    requests: a.requests + b.requests,
    lookups: a.lookups + b.lookups,
    problems: a.problems + b.problems,
    websiteLookups: a.websiteLookups + b.websiteLookups,
  };
}

function larger(a: PeriodTotals, b: PeriodTotals): PeriodTotals {
  return {
    requests: Math.max(a.requests, b.requests),
    lookups: Math.max(a.lookups, b.lookups),
    problems: Math.max(a.problems, b.problems),
    websiteLookups: Math.max(a.websiteLookups, b.websiteLookups),
  };
}

/** No use yet on `day` and in its month. */
export function noUse(day: string): AccountTotals {
  return { day, dayTotals: NO_USE, month: monthStart(day), monthTotals: NO_USE };
}
