/** @module Reads answer text held as UTF-8 (`src/format/utf8.ts`) back as the text it encodes, for the tests that compare it. */
import { Buffer } from 'node:buffer';
import type { Utf8 } from '../../src/format/utf8.ts';

/**
 * The text that UTF-8 `text` encodes (malformed bytes as U+FFFD).
 *
 * @example fromUtf8(utf8('東京')) // '東京'
 */
export function fromUtf8(text: Utf8): string {
  return Buffer.from(text, 'latin1').toString('utf8');
}
