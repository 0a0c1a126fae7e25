/**
 * @module What the service's pages show, worked out from what the service already has: a lookup's
 * JSON and XML answers as the renderer wrote them, the rate limiter's decision, the database's
 * identity. Pure functions of their arguments (the time included), so that the pages hold no logic.
 */
import { Buffer } from 'node:buffer';
import type { z } from '@hono/zod-openapi';
import type { Utf8 } from '../format/utf8.ts';
import { type DatabaseIdentity, isStale } from '../geo/identity.ts';
import type { StoredFlag } from '../geo/schema.ts';
import type { LimitDecision } from '../ratelimit/window.ts';
import type { IpInfoAllSchema } from '../schemas/ip-info.ts';

/** The IP info record with every field, as the single lookup answers it with `fields=all`. */
export type IpInfo = z.output<typeof IpInfoAllSchema>;

/** Text held as UTF-8 (`format/utf8.ts`: what the renderer writes) as the text it encodes. */
export function textOf(text: Utf8): string {
  return Buffer.from(text, 'latin1').toString('utf8');
}

/**
 * A JSON answer laid out for reading: one member a line, an array of values on its member's line. For
 * the flat objects that the record and a problem are (members are values or arrays of values).
 *
 * @example indentedJson('{"ipVersion":4,"phoneCodes":[44]}') // '{\n  "ipVersion": 4,\n  "phoneCodes": [44]\n}'
 */
export function indentedJson(json: string): string {
  const members = Object.entries(JSON.parse(json) as Record<string, unknown>).map(([name, value]) => {
    const text = Array.isArray(value) ? `[${value.map((item) => JSON.stringify(item)).join(', ')}]` : JSON.stringify(value);
    return `  ${JSON.stringify(name)}: ${text}`;
  });
  return `{\n${members.join(',\n')}\n}`;
}

/**
 * A single lookup's XML answer laid out for reading: the declaration, then `response` with each field
 * element on its own line. The record's elements hold text only, so every `><` between two of them
 * is a boundary between fields; text never holds `<` or `>` unescaped.
 */
export function indentedXml(xml: string): string {
  const start = xml.indexOf('<response>');
  const end = xml.lastIndexOf('</response>');
  if (start < 0 || end < start) return xml;
  const fields = xml.slice(start + '<response>'.length, end).replace(/>(?=<[A-Za-z])/g, '>\n  ');
  return `${xml.slice(0, start).trimEnd()}\n<response>\n  ${fields}\n</response>`;
}

/** The free plan's allowance, as the `RateLimit` field gives it: the policy nearest to exhaustion. */
export interface Allowance {
  /** Requests left in the window. */
  readonly remaining: number;
  readonly quota: number;
  readonly windowSeconds: number;
  /** Whose requests the policy counts: 64, the address (an IPv6 one by its /64); 56 or 48, the IPv6 network that holds it. */
  readonly prefixLength: 64 | 56 | 48;
  /** Seconds until the window gives a request back; 0 when it holds none. */
  readonly resetSeconds: number;
  /** Seconds to wait before a request is admitted again; 0 when this one was admitted. */
  readonly retryAfterSeconds: number;
}

/**
 * The allowance a decision of the rate limiter leaves: the policy that the `RateLimit` field names
 * (`ratelimit/window.ts`), with its quota and window (`RateLimit-Policy`).
 */
export function allowanceOf(decision: LimitDecision): Allowance {
  const { policy, remaining, resetSeconds } = decision.binding;
  return {
    remaining,
    quota: policy.quota,
    windowSeconds: policy.windowSeconds,
    prefixLength: policy.prefixLength,
    resetSeconds,
    retryAfterSeconds: decision.allowed ? 0 : decision.retryAfterSeconds,
  };
}

/** The data a page names: version, age and the attribution its sources require. */
export interface DataFacts {
  readonly version: string;
  /** The newest location source's build date, `YYYY-MM-DD` (the version's date). */
  readonly date: string;
  /** Whole days since then. */
  readonly ageDays: number;
  /** A location or ASN source is older than the licence allows (`identity.ts`, `isStale`). */
  readonly stale: boolean;
  /** One line per source, in the database's order: its attribution, name, version and licence. */
  readonly sources: readonly { readonly name: string; readonly version: string; readonly licence: string; readonly attribution: string }[];
  /** The flags the data can set (a flag not listed is false everywhere), in `FLAGS` order (`geo/schema.ts`). */
  readonly flags: readonly StoredFlag[];
  /** The operator's corrections files, in precedence order: each one's name and the prefixes it sets. */
  readonly corrections: readonly { readonly name: string; readonly prefixes: number }[];
}

/**
 * The data view of a loaded database at `now`.
 *
 * @param now milliseconds since the Unix epoch.
 */
export function dataFactsOf(identity: DatabaseIdentity, now: number): DataFacts {
  const date = identity.version.slice(0, 10);
  return {
    version: identity.version,
    date,
    ageDays: Math.max(0, Math.floor((now - Date.parse(`${date}T00:00:00Z`)) / 86_400_000)),
    stale: isStale(identity, now),
    sources: identity.sources.map(({ name, version, licence, attribution }) => ({ name, version, licence, attribution })),
    flags: identity.flags,
    corrections: identity.corrections.map(({ name, prefixes }) => ({ name, prefixes })),
  };
}

/**
 * The link that reports a wrong location: the operator's `CORRECTIONS_URL` with the address and what
 * the service answered for it in the query (`ip`, `countryCode`, `regionCode`, `cityName`, `zipCode`,
 * and the data's `version`), beside any query it has of its own.
 *
 * @param base an absolute http(s) URL (`correctionsUrlOf`, `src/env.ts`).
 * @example reportLink('https://example.com/report', { ipAddress: '81.2.69.142', countryCode: 'GB', … }, '2026-09-18.3f2a9c1d')
 *   // 'https://example.com/report?ip=81.2.69.142&countryCode=GB&regionCode=ENG&cityName=East+Finchley&zipCode=N2&version=2026-09-18.3f2a9c1d'
 */
export function reportLink(base: string, record: Pick<IpInfo, 'ipAddress' | 'countryCode' | 'regionCode' | 'cityName' | 'zipCode'>, version: string): string {
  const url = new URL(base);
  const answered = {
    ip: record.ipAddress,
    countryCode: record.countryCode,
    regionCode: record.regionCode,
    cityName: record.cityName,
    zipCode: record.zipCode,
    version,
  };
  for (const [name, value] of Object.entries(answered)) url.searchParams.set(name, value);
  return url.href;
}

/** The time of day in a record's time zone, as a page shows it and as `<time datetime>` holds it. */
export interface LocalTime {
  /** e.g. `Wed 26 Nov, 14:32`. */
  readonly text: string;
  /** The offset from UTC, e.g. `UTC+1`, `UTC+5:30`, `UTC` for none. */
  readonly offset: string;
  /** The record's `localTime`: ISO 8601 with the zone's offset, to the second, e.g. `2026-11-26T14:32:05+01:00`. */
  readonly datetime: string;
}

/** Local dates and times as a page writes them: the wall clock is given as a UTC instant. */
const CLOCK_TEXT = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/**
 * The local time a record answers (`localTime` and `utcOffset`, which the lookup takes from the
 * runtime's `Intl`) in the page's words.
 *
 * @returns undefined for a record without one (no time zone).
 * @example localTimeOf({ localTime: '2026-11-26T14:32:05+00:00', utcOffset: '+00:00' }) // { text: 'Thu 26 Nov, 14:32', offset: 'UTC', datetime: '2026-11-26T14:32:05+00:00' }
 */
export function localTimeOf(record: Pick<IpInfo, 'localTime' | 'utcOffset'>): LocalTime | undefined {
  const { localTime, utcOffset } = record;
  const wall = Date.parse(`${localTime.slice(0, 19)}Z`);
  if (!localTime || Number.isNaN(wall)) return undefined;
  return {
    text: CLOCK_TEXT.format(wall),
    offset: utcOffset === '+00:00' ? 'UTC' : `UTC${utcOffset.replace(/^([+-])0?(\d+)(?::00$)?/, '$1$2')}`,
    datetime: localTime,
  };
}

/**
 * A position in words: degrees to four decimals with their hemisphere.
 *
 * @example coordinates(51.5967, -0.1593) // '51.5967° N, 0.1593° W'
 */
export function coordinates(latitude: number, longitude: number): string {
  const degrees = (value: number, positive: string, negative: string) => `${Math.abs(value).toFixed(4)}° ${value < 0 ? negative : positive}`;
  return `${degrees(latitude, 'N', 'S')}, ${degrees(longitude, 'E', 'W')}`;
}
