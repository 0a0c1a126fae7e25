/** @module ISO 3166-2 subdivision codes derived from region names, for sources that give only names. */
import { allCountries } from 'country-region-data';
import { iso31662 } from 'iso-3166';
import { essentialWords, fold, jaroWinkler, type Kind, kindOf, QUALIFIERS } from './region-names.ts';

/**
 * Turns a region name into an ISO 3166-2 subdivision code.
 *
 * Reference data: the subdivision list of `iso-3166` (wooorm; code, name and parent of each of about
 * 5,000 subdivisions, mostly in local spelling: "Hessen", "Värmlands län", "Tôkyô") and the region lists
 * of `country-region-data` (often English or Hepburn spellings: "Flanders", "Chiba"), whose codes are
 * used only for countries where they agree with `iso-3166`.
 */
export interface RegionCoder {
  /**
   * The subdivision code of a region, without the country prefix.
   *
   * @param countryCode ISO 3166-1 alpha-2 code of the country (`'US'`).
   * @param regionName The region's name as the source spells it (`'California'`, `'Varmland County'`).
   * @returns The code (`'CA'`, `'S'`), or `''` when the country is unknown, the name is empty, or no
   *   subdivision matches confidently (none does, or several do equally well).
   * @example coder.code('GB', 'England') // 'ENG'
   */
  code(countryCode: string, regionName: string): string;
}

/** One way of writing a subdivision's name, with the forms that matching compares. */
interface Spelling {
  /** The code without the country prefix. */
  readonly code: string;
  readonly exact: string;
  readonly folded: string;
  readonly stripped: string;
  readonly tokens: readonly string[];
  /** The words of `stripped` in their original order, without spaces. */
  readonly joined: string;
  readonly kind: Kind;
}

/** The spellings of a country's subdivisions: first-level ones (parent is the country) and the rest. */
interface CountrySpellings {
  readonly firstLevel: Spelling[];
  readonly deeper: Spelling[];
}

/**
 * The ways a reference name can be written: "Madrid, Comunidad de" is also "Madrid" and "Comunidad de
 * Madrid", "Valle d'Aosta, Vallée d'Aoste" either half, "Haute-Sangha / Mambéré-Kadéï" either half,
 * and "Puducherry (Pondicherry)" either name if brackets hold names.
 */
function spellingsOf(name: string, bracketsAreNames: boolean): string[] {
  const out = new Set([name]);
  const bare = name.replace(/\s*\([^)]*\)/g, '').trim();
  out.add(bare);
  for (const m of name.matchAll(/\(([^)]*)\)/g)) {
    // A name in brackets, not a note such as "(EH-partial)" or "(de, lb)".
    if (bracketsAreNames && m[1] !== undefined && /^\p{Lu}\p{Ll}/u.test(m[1])) out.add(m[1]);
  }
  for (const part of bare.split(/\s+\/\s+|;/)) out.add(part.trim());
  const comma = /^([^,]+),\s*([^,]+)$/.exec(bare);
  if (comma?.[1] !== undefined && comma[2] !== undefined) {
    out.add(comma[1]);
    out.add(comma[2]);
    out.add(`${comma[2]} ${comma[1]}`);
  }
  out.delete('');
  return [...out];
}

/** A name in the forms that matching compares. */
function formsOf(name: string): Omit<Spelling, 'code'> {
  const folded = fold(name);
  const words = essentialWords(folded);
  const tokens = [...words].sort();
  return { exact: name, folded, stripped: tokens.join(' '), tokens, joined: words.join(''), kind: kindOf(folded) };
}

function spelling(code: string, name: string): Spelling {
  return { code, ...formsOf(name) };
}

/**
 * Every spelling of every subdivision, by country. `country-region-data` numbers some countries by
 * superseded schemes (Iran before 2018, Uganda, Oman: "Markazi" under the code ISO now gives Hormozgān),
 * so a country's entries there are used only if none of their names is ISO's name of another code.
 */
function buildIndex(): Map<string, CountrySpellings> {
  const byCountry = new Map<string, CountrySpellings>();
  const firstLevel = new Map<string, boolean>();
  for (const { code, name, parent } of iso31662) {
    const country = code.slice(0, 2);
    const entry = byCountry.get(country) ?? { firstLevel: [], deeper: [] };
    byCountry.set(country, entry);
    firstLevel.set(code, parent === country);
    const list = parent === country ? entry.firstLevel : entry.deeper;
    for (const n of spellingsOf(name, true)) list.push(spelling(code.slice(3), n));
  }
  for (const [, country, regions] of allCountries) {
    const entry = byCountry.get(country);
    if (entry === undefined) continue;
    const isoByFolded = new Map<string, Set<string>>();
    for (const s of [...entry.firstLevel, ...entry.deeper]) {
      const codes = isoByFolded.get(s.folded) ?? new Set();
      isoByFolded.set(s.folded, codes.add(s.code));
    }
    const extra: [Spelling, boolean][] = [];
    let outdated = false;
    for (const [name, local] of regions) {
      const level = firstLevel.get(`${country}-${local}`);
      if (level === undefined) continue;
      // Brackets there hold a capital, not another name: "Chuy Oblasty (Bishkek)".
      for (const n of spellingsOf(name, false)) {
        const s = spelling(local, n);
        const iso = isoByFolded.get(s.folded);
        if (iso !== undefined && !iso.has(local)) outdated = true;
        extra.push([s, level]);
      }
    }
    if (outdated) continue;
    for (const [s, level] of extra) (level ? entry.firstLevel : entry.deeper).push(s);
  }
  return byCountry;
}

/** Initial vowels vary with romanisation ("Erbil" and "Arbīl", "Omran" and "‘Amrān"). */
const VOWELS = new Set(['a', 'e', 'i', 'o', 'u', 'y']);

/** Below this, two words are not spellings of one another ("Tuscany" and "Toscana" score 0.83). */
const WORD_THRESHOLD = 0.8;
/** Below this, two names are not spellings of one another. */
const NAME_THRESHOLD = 0.85;
/**
 * The threshold of a last try over all first-level subdivisions when nothing else matched ("Brittany"
 * and "Bretagne" score 0.80, "Mazovia" and "Mazowieckie" 0.83). It comes last because at this level a
 * subdivision of the kind a name says ("Valverde Province") can look like another ("El Valle" region)
 * while the right one matches strictly ("Valverde").
 */
const LAST_NAME_THRESHOLD = 0.8;
/** The best code must beat every other code of the country by this much. */
const NAME_MARGIN = 0.04;

/**
 * How alike two words are: Jaro–Winkler, but `0` for words whose first letters differ (other than two
 * vowels) unless they are very alike ("Apulia" and "Puglia" are, "Amman" and "Maan" are not), and
 * qualifiers ("north", "islands") are alike only to themselves.
 */
function wordSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (QUALIFIERS.has(a) || QUALIFIERS.has(b)) return 0;
  const score = jaroWinkler(a, b);
  const initialsAlike = a[0] === b[0] || (VOWELS.has(a[0] ?? '') && VOWELS.has(b[0] ?? ''));
  return initialsAlike || score >= 0.88 ? score : 0;
}

/**
 * How alike two names are, as words: each word's best partner on the other side, averaged over the words
 * of both; `0` when some word of the source's name has no partner (above `WORD_THRESHOLD`). When one
 * side is a single word, the names are also compared with their spaces removed ("Louangnamtha" and
 * "Louang Namtha").
 */
function similarity(q: Query, s: Spelling): number {
  const query = q.tokens;
  const candidate = s.tokens;
  let whole = 0;
  if ((query.length === 1 || candidate.length === 1) && ![...query, ...candidate].some((w) => QUALIFIERS.has(w))) {
    whole = wordSimilarity(q.joined, s.joined);
  }
  let sum = 0;
  for (const w of query) {
    const best = Math.max(...candidate.map((c) => wordSimilarity(w, c)));
    if (best < WORD_THRESHOLD) return whole;
    sum += best;
  }
  for (const c of candidate) sum += Math.max(...query.map((w) => wordSimilarity(w, c)));
  return Math.max(whole, sum / (query.length + candidate.length));
}

/** The one code among matching spellings; '' if there are several, null if none. */
function unique(matches: readonly Spelling[]): string | null {
  const codes = new Set(matches.map((s) => s.code));
  if (codes.size > 1) return '';
  return codes.values().next().value ?? null;
}

/** The most alike code if alike enough and clearly ahead; '' if not clearly ahead, null if none. */
function closest(spellings: readonly Spelling[], q: Query, threshold = NAME_THRESHOLD): string | null {
  const byCode = new Map<string, number>();
  for (const s of spellings) byCode.set(s.code, Math.max(byCode.get(s.code) ?? 0, similarity(q, s)));
  const [first, second] = [...byCode].sort((x, y) => y[1] - x[1]);
  if (first === undefined || first[1] < threshold) return null;
  return second !== undefined && first[1] - second[1] < NAME_MARGIN ? '' : first[0];
}

/** A source's region name in the forms that matching compares. */
type Query = Omit<Spelling, 'code'>;

/**
 * Matches a name against some of a country's subdivisions, from strict to loose; the first step that
 * finds anything decides, so a looser step never overrules a stricter one.
 */
function matchSome(spellings: readonly Spelling[], q: Query): string | null {
  const { tokens } = q;
  const within = (s: Spelling) => s.tokens.length > tokens.length && tokens.every((t) => s.tokens.includes(t));
  const around = (s: Spelling) =>
    s.tokens.length < tokens.length && s.tokens.every((t) => tokens.includes(t)) && tokens.every((t) => s.tokens.includes(t) || !QUALIFIERS.has(t));
  return (
    unique(spellings.filter((s) => s.exact === q.exact)) ??
    unique(spellings.filter((s) => s.folded === q.folded)) ??
    unique(spellings.filter((s) => s.stripped === q.stripped)) ??
    // "Rhone-Alpes" for "Auvergne-Rhône-Alpes", "Vestfold" for "Vestfold og Telemark" (not "Vestland").
    unique(spellings.filter(within)) ??
    // "Free and Hanseatic City of Hamburg" for "Hamburg".
    unique(spellings.filter(around)) ??
    // "Hesse" for "Hessen", "Lombardy" for "Lombardia", "Novosibirsk" for "Novosibirskaya".
    closest(spellings, q)
  );
}

/**
 * Matches a name against one level of a country's subdivisions: first those of the kind the name says
 * it is (if it says), then those whose names say nothing, then the rest.
 */
function matchLevel(spellings: readonly Spelling[], q: Query): string | null {
  if (q.kind === '') return matchSome(spellings, q);
  const groups: Spelling[][] = [[], [], []];
  for (const s of spellings) groups[s.kind === q.kind ? 0 : s.kind === '' ? 1 : 2]?.push(s);
  for (const group of groups) {
    const found = matchSome(group, q);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Creates a coder over the reference data of `iso-3166` and `country-region-data`. Building the index
 * takes some tens of milliseconds; each distinct (country, name) pair is then matched once and cached,
 * since a build asks about few distinct pairs millions of times.
 *
 * A name is matched against the country's first-level subdivisions and, only if none matches, against
 * the deeper ones (a source's region is almost always of the first level: Madrid is the community, not
 * the province). Within a level, subdivisions of the kind the name says it is (a city, a region) come
 * first, then those whose names do not say, then the rest; within those, in order: the name as written;
 * folded (no diacritics or apostrophes, lower case, punctuation as spaces); its essential words (no
 * generic words such as "County", "Oblast" or "län", compass words in English, in any order); its words
 * all in a subdivision's name, or a subdivision's words all in it; a subdivision whose words are spelt
 * alike (Jaro–Winkler), if alike enough and clearly ahead of the next. Last, the most alike first-level
 * subdivision under a lower bar. A step that finds several codes gives `''`: no guess. English names
 * unlike the local ones ("Bavaria" for "Bayern", "Styria" for "Steiermark") stay uncoded, since the
 * reference data has no English names for them.
 *
 * @returns A coder; it keeps one cache entry per distinct pair asked about.
 * @example createRegionCoder().code('DE', 'Hesse') // 'HE'
 */
export function createRegionCoder(): RegionCoder {
  const index = buildIndex();
  const cache = new Map<string, string>();
  return {
    code(countryCode, regionName) {
      const key = `${countryCode}\t${regionName}`;
      let code = cache.get(key);
      if (code === undefined) {
        code = '';
        const spellings = index.get(countryCode.toUpperCase());
        const q = formsOf(regionName);
        if (spellings !== undefined && q.folded !== '') {
          code = matchLevel(spellings.firstLevel, q) ?? matchLevel(spellings.deeper, q) ?? closest(spellings.firstLevel, q, LAST_NAME_THRESHOLD) ?? '';
        }
        cache.set(key, code);
      }
      return code;
    },
  };
}

/** How many of a set of regions a coder codes; the build prints it. */
export interface RegionCoverage {
  /** Distinct (country, region name) pairs with a non-empty name. */
  regions: number;
  /** Of those, the pairs that got a code. */
  coded: number;
  /** The uncoded pairs as `'CC/Name'`, in the order first seen. */
  uncoded: string[];
}

/**
 * Counts how many distinct regions a coder codes.
 *
 * @param coder The coder the build uses (its cache makes a second pass over the same pairs cheap).
 * @param pairs (ISO 3166-1 alpha-2 code, region name) pairs, repeats allowed; empty names are skipped.
 * @returns Counts over distinct pairs, with the uncoded ones listed.
 * @example regionCoverage(coder, [['US', 'California'], ['US', 'Atlantis']])
 * // { regions: 2, coded: 1, uncoded: ['US/Atlantis'] }
 */
export function regionCoverage(coder: RegionCoder, pairs: Iterable<readonly [string, string]>): RegionCoverage {
  const seen = new Set<string>();
  const coverage: RegionCoverage = { regions: 0, coded: 0, uncoded: [] };
  for (const [country, name] of pairs) {
    const key = `${country}/${name}`;
    if (name === '' || seen.has(key)) continue;
    seen.add(key);
    coverage.regions++;
    if (coder.code(country, name) !== '') coverage.coded++;
    else coverage.uncoded.push(key);
  }
  return coverage;
}
