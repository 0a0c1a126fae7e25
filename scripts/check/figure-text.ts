/**
 * @module Reads figures out of text: a number (in digits or in words) with a unit of size, time, rate,
 * share or money, its value in the unit's base (bytes, seconds, percent, the currency) and how far its
 * rounding lets it be from a value. Widths of formats in bits (`32-bit`, `128 bits`) are not figures,
 * nor are numbers of things (`250 countries`), products (`960 × 480`) or terms of a formula.
 */

/** What a figure measures: its unit's kind, a rate as what per time. */
export type Dimension = 'size' | 'time' | 'size/time' | 'count/time' | 'share' | 'ratio' | 'USD' | 'EUR';

/** A unit as prose writes it: its dimension, and its size in the dimension's base (bytes, seconds, percent). */
interface Unit {
  readonly dimension: Dimension;
  readonly factor: number;
}

const KIB = 1024;
const DAY = 86_400;
const SIZE: Record<string, number> = {
  B: 1,
  byte: 1,
  bytes: 1,
  kB: 1e3,
  KB: 1e3,
  KiB: KIB,
  MB: 1e6,
  MiB: KIB ** 2,
  GB: 1e9,
  GiB: KIB ** 3,
  TB: 1e12,
  TiB: KIB ** 4,
  kilobytes: 1e3,
  megabytes: 1e6,
  gigabytes: 1e9,
};
const TIME: Record<string, number> = {
  ns: 1e-9,
  nanosecond: 1e-9,
  nanoseconds: 1e-9,
  µs: 1e-6,
  μs: 1e-6,
  microsecond: 1e-6,
  microseconds: 1e-6,
  ms: 1e-3,
  millisecond: 1e-3,
  milliseconds: 1e-3,
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  day: DAY,
  days: DAY,
  week: 7 * DAY,
  weeks: 7 * DAY,
  month: 30.4375 * DAY,
  months: 30.4375 * DAY,
  year: 365.25 * DAY,
  years: 365.25 * DAY,
};
/** Units written as a word of one letter, which need a space before them (`500s` are statuses, not seconds). */
const SPACED = new Set(['B', 's', 'h']);
const UNITS: ReadonlyMap<string, Unit> = new Map<string, Unit>([
  ...Object.entries(SIZE).map(([name, factor]): [string, Unit] => [name, { dimension: 'size', factor }]),
  ...Object.entries(TIME).map(([name, factor]): [string, Unit] => [name, { dimension: 'time', factor }]),
  ['req/s', { dimension: 'count/time', factor: 1 }],
  ['requests/s', { dimension: 'count/time', factor: 1 }],
  ['rps', { dimension: 'count/time', factor: 1 }],
  ['%', { dimension: 'share', factor: 1 }],
  ['percent', { dimension: 'share', factor: 1 }],
  ['per cent', { dimension: 'share', factor: 1 }],
  ['×', { dimension: 'ratio', factor: 1 }],
  ['USD', { dimension: 'USD', factor: 1 }],
  ['EUR', { dimension: 'EUR', factor: 1 }],
  ['cents', { dimension: 'USD', factor: 0.01 }],
]);
const CURRENCY: Readonly<Record<string, Dimension>> = { $: 'USD', '€': 'EUR' };

const SMALL = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const TENS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
/** Numbers written in words, as prose writes the small ones (`five minutes`, `twenty-three`). */
const SPELLED: ReadonlyMap<string, number> = new Map([
  ...SMALL.map((word, index): [string, number] => [word, index + 1]),
  ['fifteen', 15],
  ...TENS.flatMap((word, index): [string, number][] => [
    [word, 20 + 10 * index],
    ...SMALL.slice(0, 9).map((unit, k): [string, number] => [`${word}-${unit}`, 20 + 10 * index + k + 1]),
  ]),
  ['hundred', 100],
  ['thousand', 1000],
]);

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const longestFirst = (names: Iterable<string>) => [...names].sort((a, b) => b.length - a.length).map(escaped);
const DIGITS = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;
const WORDS = longestFirst(SPELLED.keys()).join('|');
const UNIT_WORDS = longestFirst([...UNITS.keys()].filter((name) => !SPACED.has(name))).join('|');
const SPACED_WORDS = longestFirst(SPACED).join('|');
const RATE_TIME = 'second|minute|hour|day|week|month|year';
const SPACE = '[ \\u00a0]';

/**
 * A figure: a currency sign and a number; a number (in digits or words) and a unit, maybe per a time
 * (`25 MB/s`); or a number so many per a time (`60 in any minute`, `3 a second`).
 */
const FIGURE = new RegExp(
  [
    // Not inside another word, number, path or version (`v1.5 s`, `/24 s`, `ipv4-5 s`), nor a term of a formula (`× 2 / 8 bytes`).
    String.raw`(?<![\w.,/#:@$€£]|\w-|[×/÷] ?)`,
    '(?:',
    `(?<currency>[$€])(?<money>${DIGITS})`,
    `|(?<number>${DIGITS}|\\b(?:${WORDS}))(?:(?:${SPACE}|-)?(?<unit>${UNIT_WORDS})|(?:${SPACE}|-)(?<spaced>${SPACED_WORDS}))(?:/(?<per>s|${RATE_TIME}))?`,
    `|(?<count>${DIGITS}|\\b(?:${WORDS}))${SPACE}(?:per|a|an|in any)${SPACE}(?<rate>${RATE_TIME})`,
    ')',
    String.raw`(?![\p{L}\p{N}_%])`,
  ].join(''),
  'gu',
);

/** A figure as the text writes it, and what it is worth. */
export interface Figure {
  /** Its offset in the text, and the text as written. */
  readonly index: number;
  readonly text: string;
  readonly dimension: Dimension;
  /** Its value in the dimension's base unit (bytes, seconds, bytes or counts per second, percent, the currency). */
  readonly value: number;
  /** Half the step of its last written digit, in the base unit: how far a rounded figure may be from the value it rounds. */
  readonly tolerance: number;
  /** How another value of its dimension is written as this one is: the base units of one of its unit, and the text around the number. */
  readonly factor: number;
  readonly before: string;
  readonly after: string;
}

/** A number in digits or words, and half the step of its last written digit (0 for words). */
function numberOf(text: string): { value: number; step: number } {
  const spelled = SPELLED.get(text);
  if (spelled !== undefined) return { value: spelled, step: 0 };
  const decimals = text.includes('.') ? (text.split('.')[1] as string).length : 0;
  return { value: Number(text.replaceAll(',', '')), step: 0.5 * 10 ** -decimals };
}

/** The figures of `text`, in order. */
export function figuresIn(text: string): Figure[] {
  const figures: Figure[] = [];
  for (const match of text.matchAll(FIGURE)) {
    const { currency, money, number, unit, spaced, per, count, rate } = match.groups as Record<string, string | undefined>;
    // A ratio is written against its number (`2.5×`); `960 × 480` and `16 × 0x00` are products.
    if (unit === '×' && (!match[0].endsWith(`${number}×`) || /^\s*\d/.test(text.slice(match.index + match[0].length)))) continue;
    let dimension: Dimension;
    let written: { value: number; step: number };
    let factor: number;
    if (currency !== undefined && money !== undefined) {
      dimension = CURRENCY[currency] as Dimension;
      written = numberOf(money);
      factor = 1;
    } else if (count !== undefined && rate !== undefined) {
      dimension = 'count/time';
      written = numberOf(count);
      factor = 1 / (TIME[rate] as number);
    } else {
      const named = UNITS.get((unit ?? spaced) as string) as Unit;
      written = numberOf(number as string);
      const perSecond = per === undefined ? 1 : 1 / (TIME[per] as number);
      dimension = per === undefined ? named.dimension : named.dimension === 'size' ? 'size/time' : 'count/time';
      factor = named.factor * perSecond;
    }
    const digits = (money ?? number ?? count) as string;
    const at = match[0].indexOf(digits);
    figures.push({
      index: match.index,
      text: match[0],
      dimension,
      value: written.value * factor,
      tolerance: written.step * factor,
      factor,
      before: match[0].slice(0, at),
      after: match[0].slice(at + digits.length),
    });
  }
  return figures;
}

/** The one figure that `text` is (`20000 ms`, `60 in any minute`), or undefined when it is not exactly one. */
export function figureOf(text: string): Figure | undefined {
  const [figure, more] = figuresIn(text);
  return figure !== undefined && more === undefined && figure.text === text ? figure : undefined;
}
