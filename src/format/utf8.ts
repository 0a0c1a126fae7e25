/**
 * @module Answer text kept as UTF-8: a string whose characters are the bytes of its UTF-8 encoding, one
 * per byte (U+0000 to U+00FF), sent by copying those bytes (docs/decisions/0006-utf8-runs.md). It holds
 * because the renderer only joins such texts, slices them at ASCII characters, and escapes text for JSON
 * or XML before converting it (escaping also replaces lone surrogates). {@link Utf8} marks such text in
 * types, so that text of the other kind cannot be joined to it unconverted.
 */
import { Buffer } from 'node:buffer';

declare const UTF8: unique symbol;

/** Text held as its UTF-8 bytes, one character per byte; ASCII text is its own UTF-8. */
export type Utf8 = string & { readonly [UTF8]: true };

/** A character past U+007F: text without one is its own UTF-8. */
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * The UTF-8 of `text` (a lone surrogate as U+FFFD, as `TextEncoder` writes it): ASCII text as it is,
 * other text converted, which is slow (about 1 µs): convert what an entry keeps, once.
 *
 * @example utf8('é') // '\u00c3\u00a9'
 */
export function utf8(text: string): Utf8 {
  return (NOT_ASCII.test(text) ? Buffer.from(text, 'utf8').toString('latin1') : text) as Utf8;
}

/** The buffer answers are written into: grown to the largest answer, never shrunk (a bulk answer is under 100 KB). */
let scratch = Buffer.alloc(1 << 16);

/**
 * Calls `respond` with the body of an answer of UTF-8 `text` and answers what it answers: the text
 * itself when it is ASCII (its own UTF-8, which the runtime encodes at copy speed), else its bytes.
 * The bytes are written into one buffer that this isolate reuses, valid only during `respond`: a
 * response made of them keeps a copy (the Fetch standard's body of a buffer source is a copy of its
 * bytes, and workerd's is; a test holds it to that), so no ArrayBuffer is made per answer (docs/hot-path.md).
 *
 * @example withUtf8Body(text, (body) => c.body(body, 200, { 'Content-Type': 'application/json' }))
 */
export function withUtf8Body<R>(text: Utf8, respond: (body: string | Uint8Array<ArrayBuffer>) => R): R {
  if (!NOT_ASCII.test(text)) return respond(text);
  if (text.length > scratch.length) scratch = Buffer.alloc(2 ** Math.ceil(Math.log2(text.length)));
  const length = scratch.write(text, 0, 'latin1');
  // A plain view: a Buffer's own subarray is a Buffer, slower to make.
  return respond(new Uint8Array(scratch.buffer, scratch.byteOffset, length) as Uint8Array<ArrayBuffer>);
}
