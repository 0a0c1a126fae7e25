/**
 * @module The time in an IANA time zone at an instant, from the runtime's `Intl` (ICU's zone data, no
 * table of our own): its offset from UTC, whether daylight saving time is in effect, and the local date
 * and time. A zone's offset is asked of `Intl` once per UTC hour and kept for that hour when it is the
 * same at both ends of it (in an hour where it changes, at every call), since a formatter is slow to make and
 * holds ICU memory while kept: only the {@link FORMATTER_SLOTS} most recently used
 * are kept. The local date and time up to the minute is kept for the minute, so that most calls only
 * add the seconds (docs/api.md, "Every field").
 */
import { LruMap } from '../memory/lru-map.ts';

/** The time in a zone at an instant. */
export interface ZoneTime {
  /** The offset from UTC, `±hh:mm` (`+05:30`, `-03:00`, `+00:00`). */
  readonly utcOffset: string;
  /** True when the offset is above the smaller of the zone's offsets on 1 January and 1 July of the year: summer time. */
  readonly isDst: boolean;
  /** ISO 8601 local date and time to the second, with the offset: `2026-11-26T14:32:05+01:00`. */
  readonly localTime: string;
}

/**
 * Formatters kept, the most recently used (about 28 KiB of ICU memory each; `src/geo/budget.ts` counts them).
 *
 * @internal Exported for the tests that ask more zones than are kept, and that hold the budget's model to it.
 */
export const FORMATTER_SLOTS = 32;

/** Zones whose offsets are kept: more than IANA has (about 420), so that only a flood of unknown names empties it. */
const ZONE_SLOTS = 1024;

const HOUR = 3_600_000;
const MINUTE = 60_000;

/** What is known of a zone: its offset in one UTC hour, its standard (smaller) offset in one year, and its local time in one minute. */
interface ZoneState {
  /** The UTC hour (its first millisecond) that `hourOffset` is of. */
  hour: number;
  /** The offset in minutes throughout `hour`; undefined when it changes within it. */
  hourOffset: number | undefined;
  year: number;
  standardOffset: number;
  /** The UTC minute (its first millisecond) that `minutePrefix`, `minuteOffset` and `minuteDst` are of. */
  minute: number;
  /** The local date and time up to the minute, `2026-11-26T14:32:`. */
  minutePrefix: string;
  minuteOffset: string;
  minuteDst: boolean;
}

/** Two digits of each second of a minute: '00' to '59'. */
const SECONDS = Array.from({ length: 60 }, (_, second) => String(second).padStart(2, '0'));

const states = new Map<string, ZoneState | null>();
const formatters = new LruMap<string, Intl.DateTimeFormat>(FORMATTER_SLOTS);

/**
 * The time in `zone` at `now`.
 *
 * @param zone an IANA zone name as the data holds it (`Europe/London`).
 * @param now milliseconds since the Unix epoch.
 * @returns undefined for '' and for a zone the runtime does not know.
 * @example zoneTime('Asia/Kolkata', Date.UTC(2026, 10, 26, 9, 2, 5)) // { utcOffset: '+05:30', isDst: false, localTime: '2026-11-26T14:32:05+05:30' }
 */
export function zoneTime(zone: string, now: number): ZoneTime | undefined {
  const state = zoneState(zone);
  if (state === undefined) return undefined;
  const second = now - (now % 1000);
  const minute = second - (second % MINUTE);
  if (minute !== state.minute || state.hourOffset === undefined) keepMinute(zone, state, now, minute);
  const seconds = SECONDS[(second - minute) / 1000] as string;
  return { utcOffset: state.minuteOffset, isDst: state.minuteDst, localTime: `${state.minutePrefix}${seconds}${state.minuteOffset}` };
}

/** Works out `state`'s minute fields for the minute `minute` that holds `now`. */
function keepMinute(zone: string, state: ZoneState, now: number, minute: number): void {
  const hour = now - (now % HOUR);
  if (hour !== state.hour) {
    const start = offsetAt(zone, hour);
    state.hour = hour;
    state.hourOffset = start === offsetAt(zone, hour + HOUR - 1) ? start : undefined;
  }
  const offset = state.hourOffset ?? offsetAt(zone, now);
  const year = new Date(now + offset * MINUTE).getUTCFullYear();
  if (year !== state.year) {
    state.year = year;
    state.standardOffset = Math.min(offsetAt(zone, Date.UTC(year, 0, 1)), offsetAt(zone, Date.UTC(year, 6, 1)));
  }
  // In an hour where the offset changes, it may change within the minute too: asked at every call then.
  state.minute = state.hourOffset === undefined ? Number.NaN : minute;
  state.minuteOffset = offsetText(offset);
  state.minuteDst = offset > state.standardOffset;
  state.minutePrefix = new Date(minute + offset * MINUTE).toISOString().slice(0, 17);
}

/** What is known of `zone`, made on first use; undefined for a zone the runtime does not know. */
function zoneState(zone: string): ZoneState | undefined {
  const known = states.get(zone);
  if (known !== undefined) return known ?? undefined;
  let state: ZoneState | null = null;
  if (zone !== '' && formatter(zone) !== undefined) {
    state = {
      hour: Number.NaN,
      hourOffset: undefined,
      year: Number.NaN,
      standardOffset: 0,
      minute: Number.NaN,
      minutePrefix: '',
      minuteOffset: '',
      minuteDst: false,
    };
  }
  if (states.size >= ZONE_SLOTS) states.clear();
  states.set(zone, state);
  return state ?? undefined;
}

/** The offset of `zone` from UTC at `instant`, in whole minutes (a zone `zoneState` found known). */
function offsetAt(zone: string, instant: number): number {
  const at = instant - (instant % 1000);
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  for (const part of (formatter(zone) as Intl.DateTimeFormat).formatToParts(at)) {
    const value = Number(part.value);
    if (part.type === 'year') year = value;
    else if (part.type === 'month') month = value;
    else if (part.type === 'day') day = value;
    else if (part.type === 'hour') hour = value;
    else if (part.type === 'minute') minute = value;
    else if (part.type === 'second') second = value;
  }
  return Math.round((Date.UTC(year, month - 1, day, hour, minute, second) - at) / MINUTE);
}

/** The formatter of `zone`'s wall clock, made or made the most recently used of the kept ones; undefined for a zone `Intl` refuses. */
function formatter(zone: string): Intl.DateTimeFormat | undefined {
  const kept = formatters.get(zone);
  if (kept !== undefined) return kept;
  try {
    const format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, format);
    return format;
  } catch {
    return undefined; // a RangeError: a zone ICU does not know
  }
}

/** `±hh:mm` of an offset in minutes. */
function offsetText(minutes: number): string {
  const magnitude = Math.abs(minutes);
  const hh = String(Math.floor(magnitude / 60)).padStart(2, '0');
  const mm = String(magnitude % 60).padStart(2, '0');
  return `${minutes < 0 ? '-' : '+'}${hh}:${mm}`;
}
