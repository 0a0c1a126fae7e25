/**
 * @module The local time of a zone (`src/reference/local-time.ts`) against Node's own `Intl`, asked
 * other questions than the service asks it (the `longOffset` and `long` names of the zone, the Swedish
 * form of the date and time, which is ISO 8601's), at fixed instants: every 5 minutes through the hours
 * of daylight-saving changes, in zones with whole, half and three-quarter hour offsets, north and south.
 */
import { describe, expect, it } from 'vitest';
import { FORMATTER_SLOTS, zoneTime } from '../../src/reference/local-time.ts';

const MINUTE = 60_000;

/** The offset at `instant` as `±hh:mm`, from the `longOffset` name (`GMT+05:30`; `GMT` alone for none). */
function offsetOf(zone: string, instant: number): string {
  const name =
    new Intl.DateTimeFormat('en-GB', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const offset = name.slice(3) || '+00:00';
  return offset.length === 3 ? `${offset}:00` : offset;
}

/** The zone's long name at `instant`, in English: "Central European Summer Time", "Pacific Daylight Time". */
function longName(zone: string, instant: number): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'long' }).formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? '';
}

/** The local date and time to the second, as ISO 8601 writes it (Sweden's form has a space for the T). */
function wallOf(zone: string, instant: number): string {
  return new Intl.DateTimeFormat('sv-SE', { timeZone: zone, dateStyle: 'short', timeStyle: 'medium' }).format(instant).replace(' ', 'T');
}

/** Instants every 5 minutes from 2 hours before `change` to 2 hours after, each a few seconds past. */
function around(change: number): number[] {
  return Array.from({ length: 49 }, (_, i) => change - 2 * 60 * MINUTE + i * 5 * MINUTE + 7_654);
}

/** Daylight-saving changes of 2026 (UTC), each in a zone whose long names say which side is summer time. */
const CHANGES: readonly [string, number][] = [
  ['Europe/Berlin', Date.UTC(2026, 2, 29, 1)],
  ['Europe/London', Date.UTC(2026, 9, 25, 1)],
  ['America/New_York', Date.UTC(2026, 2, 8, 7)],
  ['America/St_Johns', Date.UTC(2026, 10, 1, 2, 30)],
  ['Australia/Sydney', Date.UTC(2026, 3, 4, 16)],
  ['Pacific/Auckland', Date.UTC(2026, 8, 26, 14)],
  ['Australia/Lord_Howe', Date.UTC(2026, 9, 3, 15, 30)],
  ['Pacific/Chatham', Date.UTC(2026, 3, 4, 14)],
];

describe('the local time of a zone', () => {
  it.each(CHANGES)('answers %s through its change as Intl does, and summer time on the side its long name calls so', (zone, change) => {
    const offsets = new Set<string>();
    for (const instant of around(change)) {
      const offset = offsetOf(zone, instant);
      offsets.add(offset);
      const summer = /Daylight|Summer/.test(longName(zone, instant));
      expect(zoneTime(zone, instant), new Date(instant).toISOString()).toEqual({
        utcOffset: offset,
        isDst: summer,
        localTime: `${wallOf(zone, instant)}${offset}`,
      });
    }
    // The change is within the instants asked.
    expect(offsets.size).toBe(2);
  });

  it.each([
    ['Asia/Kolkata', '+05:30'],
    ['Asia/Kathmandu', '+05:45'],
    ['America/Sao_Paulo', '-03:00'],
    ['Etc/UTC', '+00:00'],
  ])('answers %s, which keeps one offset all year, without summer time', (zone, offset) => {
    for (const instant of [Date.UTC(2026, 0, 15, 23, 59, 59), Date.UTC(2026, 6, 15, 0, 0, 1)]) {
      expect(zoneTime(zone, instant)).toEqual({ utcOffset: offset, isDst: false, localTime: `${wallOf(zone, instant)}${offset}` });
    }
  });

  it('answers a zone whose summer is its standard time in tzdata (Dublin) by its offsets: summer time in July', () => {
    const july = Date.UTC(2026, 6, 1, 12);
    expect(zoneTime('Europe/Dublin', july)).toEqual({ utcOffset: '+01:00', isDst: true, localTime: `${wallOf('Europe/Dublin', july)}+01:00` });
    expect(zoneTime('Europe/Dublin', Date.UTC(2026, 0, 1, 12))?.isDst).toBe(false);
  });

  it('answers nothing for no zone and for a zone the runtime does not know', () => {
    expect(zoneTime('', Date.UTC(2026, 0, 1))).toBeUndefined();
    expect(zoneTime('Mars/Olympus_Mons', Date.UTC(2026, 0, 1))).toBeUndefined();
  });

  it(`answers right when more zones are asked than the ${FORMATTER_SLOTS} formatters it keeps, at instants out of order`, () => {
    const zones = Intl.supportedValuesOf('timeZone').slice(0, FORMATTER_SLOTS * 3);
    const instants = [Date.UTC(2026, 6, 1, 10, 15), Date.UTC(2025, 11, 31, 23, 59, 59), Date.UTC(2026, 6, 1, 10, 45), Date.UTC(2027, 0, 1, 0, 0, 1)];
    for (const instant of instants) {
      for (const zone of zones) {
        const offset = offsetOf(zone, instant);
        expect(zoneTime(zone, instant), `${zone} at ${new Date(instant).toISOString()}`).toMatchObject({
          utcOffset: offset,
          localTime: `${wallOf(zone, instant)}${offset}`,
        });
      }
    }
  });
});
