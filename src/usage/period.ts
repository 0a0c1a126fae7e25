/**
 * @module The calendar periods that usage is counted and capped by: the UTC day and the UTC calendar
 * month (docs/api.md, "Usage and quotas"). Days are `YYYY-MM-DD` text, which sorts as time does.
 */

const DAY_MS = 86_400_000;

/** The UTC day of `ms` (ms since the epoch), e.g. `2026-11-27`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The first day of the month that holds `day` (`YYYY-MM-DD`), e.g. `2026-11-01` for `2026-11-27`. */
export function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

/** The instant (ms since the epoch) at which the UTC day after `day` begins. */
export function nextDayStart(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) + DAY_MS;
}

/** The instant (ms since the epoch) at which the UTC month after the one that holds `day` begins. */
export function nextMonthStart(day: string): number {
  const year = Number(day.slice(0, 4));
  const month = Number(day.slice(5, 7));
  return Date.UTC(year, month, 1);
}

/** The day `days` days after `day` (before it when negative). */
export function addDays(day: string, days: number): string {
  return utcDay(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS);
}

/** A UTC day with the instant it ends, kept by callers that ask for the day on every request. */
export class DayClock {
  #day = '';
  #endsAt = 0;

  /** The UTC day of `ms`: computed again only when `ms` is past the end of the last day asked for. */
  dayOf(ms: number): string {
    if (ms >= this.#endsAt || ms < this.#endsAt - DAY_MS) {
      this.#day = utcDay(ms);
      this.#endsAt = nextDayStart(this.#day);
    }
    return this.#day;
  }
}
