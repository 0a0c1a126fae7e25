/**
 * @module What the lookup routes share besides problems (`lookup-problems.ts`): the view a parsed query
 * asks for, and the 200 answer of the text rendered for it.
 */
import type { Context } from 'hono';
import { type Utf8, withUtf8Body } from '../format/utf8.ts';
import { ENGLISH, type LanguageIndex } from '../geo/languages.ts';
import type { Format } from '../lookup/entries.ts';
import type { FieldMask, View } from '../lookup/fields.ts';

/**
 * The view of a query that the route's schema has parsed (`lang` a language's index, `fields` a field
 * mask; see `schemas/lookup-options.ts`), with `defaults` for absent `fields` and English for absent
 * `lang`, at the request's instant (the local-time fields').
 */
export function viewOfQuery(query: { readonly lang?: LanguageIndex | undefined; readonly fields?: FieldMask | undefined }, defaults: FieldMask): View {
  return { fields: query.fields ?? defaults, language: query.lang ?? ENGLISH, now: Date.now() };
}

const CONTENT_TYPE = { json: 'application/json', xml: 'application/xml; charset=utf-8' } as const;

/** The 200 answer of a lookup route: `text` (a JSON or XML document in UTF-8, see `format/utf8.ts`) with its media type. */
export function lookupAnswer(c: Context, format: Format, text: Utf8): Response {
  return withUtf8Body(text, (body) => c.body(body, 200, { 'Content-Type': CONTENT_TYPE[format] }));
}
