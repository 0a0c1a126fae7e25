/** @module JSON text exactly as `JSON.stringify` writes it, without calling it for numbers and strings that need no escape (docs/hot-path.md). */

/**
 * A string that `JSON.stringify` writes between quotes as it is: no quote, backslash or control
 * character, which it escapes, and no surrogate, which it escapes when lone.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON escapes are the point.
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * `JSON.stringify(text)`.
 *
 * @example jsonString('Saint-Étienne') // '"Saint-Étienne"'
 * @example jsonString('say "hi"')      // '"say \\"hi\\""'
 */
export function jsonString(text: string): string {
  return PLAIN.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** A value of an answer: a string, a number, a boolean, or an array of them. */
export type JsonValue = string | number | boolean | readonly (string | number)[];

/**
 * `JSON.stringify(value)` for the values of an answer (a finite number is written as `String` writes
 * it, as `JSON.stringify` does).
 *
 * @example jsonValue(-0.1593) // '-0.1593'
 */
export function jsonValue(value: JsonValue): string {
  if (typeof value === 'string') return jsonString(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value);
}
