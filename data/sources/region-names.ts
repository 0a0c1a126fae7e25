/**
 * @module How region names are compared when deriving ISO 3166-2 codes (`region-codes.ts`): folding
 * case, diacritics and punctuation away, dropping generic words ("County", "Oblast", "län"), telling
 * city names from region names, and the spelling likeness of two words.
 */

/**
 * What a name says it is, from its generic words: "City of Zagreb" a city, "Zagreb County" a region,
 * "Zagreb" nothing. Both are "Zagreb" once generic words are gone, so the kind decides between
 * "Grad Zagreb" and "Zagrebačka županija".
 */
export type Kind = 'city' | 'region' | '';

/**
 * Words that say what kind of subdivision a name is rather than which one, in English and in the
 * romanised local forms of the reference data ("Novosibirskaya oblast'", "Jilin Sheng",
 * "Seoul-teukbyeolsi", "Stockholms län"), and the articles and conjunctions of such names. MaxMind writes
 * "Varmland County" where ISO writes "Värmlands län", so both sides are compared without them.
 */
const GENERIC_WORDS = new Set([
  // English (Spanish, French, Italian and Portuguese forms where they differ)
  ...['county', 'province', 'provincia', 'provincie', 'provinsi', 'region', 'regione', 'regiao', 'state'],
  ...['estado', 'district', 'prefecture', 'department', 'departamento', 'municipality', 'municipio'],
  ...['governorate', 'voivodeship', 'territory', 'autonomous', 'autonoma', 'republic', 'principality'],
  ...['principado', 'parish', 'canton', 'emirate', 'division', 'community', 'comunidad', 'comunitat'],
  ...['foral', 'metropolitan', 'special', 'capital', 'city', 'ciudad', 'cidade', 'grad', 'horad', 'gorod'],
  ...['stolitsa'],
  // Russian, Belarusian, Ukrainian, Central Asian
  ...['oblast', 'oblasty', 'oblys', 'voblast', 'voblasts', 'voblasc', 'krai', 'kray', 'okrug', 'avtonomnyy'],
  ...['respublika', 'raion', 'rayon'],
  // Chinese, Korean ("-do" is also Portuguese "of", below), Japanese, Vietnamese, Thai
  ...['sheng', 'shi', 'zizhiqu', 'si', 'teukbyeolsi', 'gwangyeoksi', 'teukbyeoljachido'],
  ...['teukbyeoljachisi', 'ken', 'tinh', 'changwat'],
  // Nordic, Baltic, Central and Eastern European
  ...['lan', 'fylke', 'maakond', 'apskritis', 'novads', 'kraj', 'megye', 'zupanija', 'judetul', 'judet'],
  ...['wojewodztwo', 'landkreis', 'kanton', 'opstina', 'obshtina', 'raionul', 'municipiul'],
  // Arabic, Lao, Mongolian, Bhutanese: "Muhafazat Hadramaout", "Khoueng Xekong", "Dzavhan Aymag"
  ...['muhafazat', 'baladiyat', 'khoueng', 'aymag', 'dzongkhag'],
  // Articles and conjunctions, with the Arabic article in its romanised forms ("Ar Raqqah")
  ...['of', 'the', 'de', 'del', 'do', 'dos', 'la', 'le', 'les', 'd', 'di', 'y', 'and', 'et', 'und', 'og'],
  ...['al', 'el', 'ad', 'adh', 'an', 'ar', 'as', 'ash', 'at', 'az'],
]);

/** Generic words that make a name a city's. */
const CITY_WORDS = new Set(['city', 'ciudad', 'cidade', 'grad', 'horad', 'gorod', 'stolitsa', 'capital']);

/** Generic words that make a name a region's (a county, province, oblast, ...). */
const REGION_WORDS = new Set([
  ...['county', 'province', 'provincia', 'provincie', 'provinsi', 'region', 'regione', 'regiao', 'state'],
  ...['estado', 'department', 'departamento', 'governorate', 'voivodeship', 'prefecture', 'oblast'],
  ...['oblasty', 'oblys', 'voblast', 'voblasts', 'voblasc', 'krai', 'kray', 'lan', 'fylke', 'maakond'],
  ...['apskritis', 'kraj', 'megye', 'zupanija', 'judetul', 'judet', 'wojewodztwo'],
]);

/**
 * Points of the compass in the languages of the reference data, each mapped to one English word so that
 * "North Holland" meets "Noord-Holland", "Nord-Kivu" and "West Java" meets "Jawa Barat". They are the one
 * systematic difference between English and local names that spelling alone does not bridge.
 */
const COMPASS: Readonly<Record<string, string>> = {
  ...{ nord: 'north', noord: 'north', norte: 'north', norra: 'north', utara: 'north', kaskazini: 'north' },
  ...{ sud: 'south', zuid: 'south', sur: 'south', sul: 'south', sodra: 'south', selatan: 'south' },
  ...{ kusini: 'south', est: 'east', este: 'east', oost: 'east', ost: 'east', ostra: 'east' },
  ...{ timur: 'east', ouest: 'west', oeste: 'west', vast: 'west', vastra: 'west', barat: 'west' },
  ...{ magharibi: 'west', centre: 'central', center: 'central', centro: 'central', tengah: 'central' },
  ...{ tenggara: 'southeast' },
};

/**
 * Words that change which subdivision a name means: "East Kasai" is not "Kasaï", "Riau Islands" not
 * "Riau". A name may have words its subdivision's name lacks only if they are not these, and in
 * comparing spellings they only ever match themselves ("Mayo-Kebbi Ouest" is not "Mayo-Kebbi Est").
 */
export const QUALIFIERS = new Set([
  ...['north', 'south', 'east', 'west', 'northern', 'southern', 'eastern', 'western', 'central'],
  ...['northeast', 'northwest', 'southeast', 'southwest', 'new', 'old', 'upper', 'lower', 'greater'],
  ...['lesser', 'inner', 'outer', 'high', 'mid', 'middle', 'island', 'islands', 'isles'],
]);

/** Letters that Unicode does not decompose into a base letter and a mark. */
const UNDECOMPOSED: Readonly<Record<string, string>> = {
  ...{ ł: 'l', ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', đ: 'd', ı: 'i', þ: 'th', ð: 'd', ħ: 'h' },
};

/** Lower case, without diacritics or apostrophes, with any other punctuation as one space. */
export function fold(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[łøæœßđıþðħ]/g, (c) => UNDECOMPOSED[c] ?? c)
    .replace(/['’ʻʼ`‘]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The words of a folded name without generic words and with compass words in English. */
export function essentialWords(folded: string): string[] {
  const kept = folded
    .split(' ')
    .filter((w) => w !== '' && !GENERIC_WORDS.has(w))
    .map((w) => COMPASS[w] ?? w);
  return kept.length > 0 ? kept : folded.split(' ');
}

export function kindOf(folded: string): Kind {
  const words = folded.split(' ');
  const city = words.some((w) => CITY_WORDS.has(w));
  const region = words.some((w) => REGION_WORDS.has(w));
  return city === region ? '' : city ? 'city' : 'region';
}

/** Jaro–Winkler similarity of two strings, 0 (nothing alike) to 1 (equal). */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const aHit = new Array<boolean>(a.length).fill(false);
  const bHit = new Array<boolean>(b.length).fill(false);
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = Math.max(0, i - window); j < Math.min(b.length, i + window + 1); j++) {
      if (bHit[j] || a[i] !== b[j]) continue;
      aHit[i] = true;
      bHit[j] = true;
      matches++;
      break;
    }
  }
  if (matches === 0) return 0;
  let halfTranspositions = 0;
  for (let i = 0, j = 0; i < a.length; i++) {
    if (!aHit[i]) continue;
    while (!bHit[j]) j++;
    if (a[i] !== b[j]) halfTranspositions++;
    j++;
  }
  const m = matches;
  const jaro = (m / a.length + m / b.length + (m - halfTranspositions / 2) / m) / 3;
  let prefix = 0;
  while (prefix < 4 && a[prefix] !== undefined && a[prefix] === b[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}
