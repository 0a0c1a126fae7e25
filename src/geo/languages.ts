/** @module The languages of the location data's names (MaxMind's codes), and names held per language. */

/** The languages names can be asked in: MaxMind's codes, in MaxMind's order. */
export const LANGUAGES = ['de', 'en', 'es', 'fr', 'ja', 'pt-BR', 'ru', 'zh-CN'] as const;

/** One of {@link LANGUAGES}: a `?lang=` code. */
export type Language = (typeof LANGUAGES)[number];

/** A language's index in {@link LANGUAGES}: the index into {@link Names}. */
export type LanguageIndex = number;

/** The index of English, the default language and every name's fallback. */
export const ENGLISH: LanguageIndex = LANGUAGES.indexOf('en');

/**
 * One name in every language, by {@link LanguageIndex}; '' where the data has none in that language.
 * Shared and frozen.
 */
export type Names = readonly string[];

/** Names that are all empty. */
export const NO_NAMES: Names = Object.freeze(LANGUAGES.map(() => ''));

/** The index of `code` (exactly as in {@link LANGUAGES}), or -1. */
export function languageIndex(code: string): LanguageIndex {
  return (LANGUAGES as readonly string[]).indexOf(code);
}
